"""Frame packets (CarlaRecorderFrames, VisualTime, PlatformTime, FrameCounter): no record count."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, LogFormatError, PacketCodec


@dataclass(slots=True)
class FrameStartRecord:
    """CarlaRecorderFrame: the frame's id, its duration (-1 until the next frame), its time."""

    id: int
    duration: float
    elapsed: float


@dataclass(slots=True)
class TimeRecord:
    """VisualTime and PlatformTime: one double, seconds."""

    time: float


@dataclass(slots=True)
class FrameCounterRecord:
    """FrameCounter: one uint64 (CARLA defines the packet but never writes it)."""

    frame_counter: int


@dataclass(slots=True)
class FrameEndRecord:
    """FrameEnd: no data."""


FRAME_START = FixedLayout(
    FrameStartRecord, [("id", "Q", 1), ("duration", "d", 1), ("elapsed", "d", 1)]
)
TIME = FixedLayout(TimeRecord, [("time", "d", 1)])
FRAME_COUNTER = FixedLayout(FrameCounterRecord, [("frame_counter", "Q", 1)])

FRAME_START_CODEC = PacketCodec.fixed(
    PacketId.FrameStart, "frame_start", FRAME_START, counted=False
)
VISUAL_TIME_CODEC = PacketCodec.fixed(PacketId.VisualTime, "visual_time", TIME, counted=False)
PLATFORM_TIME_CODEC = PacketCodec.fixed(PacketId.PlatformTime, "platform_time", TIME, counted=False)
FRAME_COUNTER_CODEC = PacketCodec.fixed(
    PacketId.FrameCounter, "frame_counter", FRAME_COUNTER, counted=False
)


def _pack_end(_record: FrameEndRecord) -> bytes:
    return b""


def _unpack_end(_data: bytes, offset: int, end: int) -> tuple[FrameEndRecord, int]:
    if end != offset:
        raise LogFormatError(f"FrameEnd packet holds {end - offset} bytes, expected 0", offset)
    return FrameEndRecord(), offset


FRAME_END_CODEC = PacketCodec(
    PacketId.FrameEnd, "frame_end", FrameEndRecord, _pack_end, _unpack_end, counted=False
)
