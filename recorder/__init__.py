"""CARLA's recorder log format: packets, reader, writer, the live Recorder, queries, JSON,
and CARLA's replayer.

The names below are imported on first use (PEP 562), so a log query that needs the reader
does not load the writer, the JSON codec and the analysis API at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# name -> the module that defines it
_HOMES = {
    "ActorInfo": "recorder.log_access",
    "Frame": "recorder.log_access",
    "FrameIndex": "recorder.reader",
    "LogFormatError": "recorder.errors",
    "LogHeader": "recorder.reader",
    "LogReader": "recorder.reader",
    "LogWriter": "recorder.writer",
    "NotARecorderError": "recorder.errors",
    "PacketId": "recorder.packet_ids",
    "RawPacket": "recorder.reader",
    "RecordedLog": "recorder.log_access",
    "Recorder": "recorder.recorder",
    "RecorderError": "recorder.errors",
    "ReplayError": "recorder.errors",
    "ReplayHelper": "recorder.replay_helper",
    "Replayer": "recorder.replayer",
    "TruncatedLogWarning": "recorder.errors",
    "build_log": "recorder.json_codec",
    "dump_json": "recorder.json_codec",
    "dump_log": "recorder.json_codec",
    "load_spec": "recorder.json_codec",
    "open_log": "recorder.log_access",
    "query_blocked": "recorder.queries.blocked",
    "query_collisions": "recorder.queries.collisions",
    "query_info": "recorder.queries.info",
    "recorder_rotation": "recorder.rotation",
}

__all__ = [
    "ActorInfo",
    "Frame",
    "FrameIndex",
    "LogFormatError",
    "LogHeader",
    "LogReader",
    "LogWriter",
    "NotARecorderError",
    "PacketId",
    "RawPacket",
    "RecordedLog",
    "Recorder",
    "RecorderError",
    "ReplayError",
    "ReplayHelper",
    "Replayer",
    "TruncatedLogWarning",
    "build_log",
    "dump_json",
    "dump_log",
    "load_spec",
    "open_log",
    "query_blocked",
    "query_collisions",
    "query_info",
    "recorder_rotation",
]


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'recorder' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


if TYPE_CHECKING:
    from recorder.errors import (
        LogFormatError,
        NotARecorderError,
        RecorderError,
        ReplayError,
        TruncatedLogWarning,
    )
    from recorder.json_codec import build_log, dump_json, dump_log, load_spec
    from recorder.log_access import ActorInfo, Frame, RecordedLog, open_log
    from recorder.packet_ids import PacketId
    from recorder.queries.blocked import query_blocked
    from recorder.queries.collisions import query_collisions
    from recorder.queries.info import query_info
    from recorder.reader import FrameIndex, LogHeader, LogReader, RawPacket
    from recorder.recorder import Recorder
    from recorder.replay_helper import ReplayHelper
    from recorder.replayer import Replayer
    from recorder.rotation import recorder_rotation
    from recorder.writer import LogWriter
