"""CARLA's recorder log format: packets, reader, writer, the live Recorder, queries, JSON."""

from recorder.errors import LogFormatError, RecorderError
from recorder.json_codec import build_log, dump_json, dump_log, load_spec
from recorder.log_access import ActorInfo, Frame, RecordedLog, open_log
from recorder.packet_ids import PacketId
from recorder.queries import query_blocked, query_collisions, query_info
from recorder.reader import FrameIndex, LogHeader, LogReader, RawPacket
from recorder.recorder import Recorder
from recorder.rotation import recorder_rotation
from recorder.writer import LogWriter

__all__ = [
    "ActorInfo",
    "Frame",
    "FrameIndex",
    "LogFormatError",
    "LogHeader",
    "LogReader",
    "LogWriter",
    "PacketId",
    "RawPacket",
    "RecordedLog",
    "Recorder",
    "RecorderError",
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
