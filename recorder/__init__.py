"""CARLA's recorder log format: packets, reader, writer, queries, JSON dump and build."""

from recorder.errors import LogFormatError, RecorderError
from recorder.packet_ids import PacketId
from recorder.query_blocked import query_blocked
from recorder.query_collisions import query_collisions
from recorder.query_info import query_info
from recorder.reader import FrameIndex, LogHeader, LogReader, RawPacket

__all__ = [
    "FrameIndex",
    "LogFormatError",
    "LogHeader",
    "LogReader",
    "PacketId",
    "RawPacket",
    "RecorderError",
    "query_blocked",
    "query_collisions",
    "query_info",
]
