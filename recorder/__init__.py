"""CARLA's recorder log format: packets, reader, writer, queries, JSON dump and build."""

from recorder.errors import LogFormatError, RecorderError
from recorder.packet_ids import PacketId
from recorder.reader import FrameIndex, LogHeader, LogReader, RawPacket

__all__ = [
    "FrameIndex",
    "LogFormatError",
    "LogHeader",
    "LogReader",
    "PacketId",
    "RawPacket",
    "RecorderError",
]
