"""CARLA's recorder log format: packets, reader, writer, queries, JSON dump and build."""

from recorder.errors import LogFormatError, RecorderError
from recorder.json_codec import build_log, dump_json, dump_log, load_spec
from recorder.packet_ids import PacketId
from recorder.reader import FrameIndex, LogHeader, LogReader, RawPacket
from recorder.writer import LogWriter

__all__ = [
    "FrameIndex",
    "LogFormatError",
    "LogHeader",
    "LogReader",
    "LogWriter",
    "PacketId",
    "RawPacket",
    "RecorderError",
    "build_log",
    "dump_json",
    "dump_log",
    "load_spec",
]
