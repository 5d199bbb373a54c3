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
    "ActorInfo": "recorder.logfile.access",
    "Frame": "recorder.logfile.access",
    "FrameIndex": "recorder.logfile.reader",
    "LogFormatError": "recorder.errors",
    "LogHeader": "recorder.logfile.reader",
    "LogReader": "recorder.logfile.reader",
    "LogWriter": "recorder.logfile.writer",
    "NotARecorderError": "recorder.errors",
    "PacketId": "recorder.logfile.packet_ids",
    "RawPacket": "recorder.logfile.reader",
    "RecordedLog": "recorder.logfile.access",
    "Recorder": "recorder.live.recorder",
    "RecorderError": "recorder.errors",
    "ReplayError": "recorder.errors",
    "ReplayHelper": "recorder.replay.helper",
    "Replayer": "recorder.replay.replayer",
    "TruncatedLogWarning": "recorder.errors",
    "build_log": "recorder.json_form.codec",
    "dump_json": "recorder.json_form.codec",
    "dump_log": "recorder.json_form.codec",
    "load_spec": "recorder.json_form.codec",
    "open_log": "recorder.logfile.access",
    "query_blocked": "recorder.queries.blocked",
    "query_collisions": "recorder.queries.collisions",
    "query_info": "recorder.queries.info",
    "recorder_rotation": "recorder.logfile.rotation",
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
    from recorder.json_form.codec import build_log, dump_json, dump_log, load_spec
    from recorder.live.recorder import Recorder
    from recorder.logfile.access import ActorInfo, Frame, RecordedLog, open_log
    from recorder.logfile.packet_ids import PacketId
    from recorder.logfile.reader import FrameIndex, LogHeader, LogReader, RawPacket
    from recorder.logfile.rotation import recorder_rotation
    from recorder.logfile.writer import LogWriter
    from recorder.queries.blocked import query_blocked
    from recorder.queries.collisions import query_collisions
    from recorder.queries.info import query_info
    from recorder.replay.helper import ReplayHelper
    from recorder.replay.replayer import Replayer
