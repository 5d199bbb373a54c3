"""CarlaRecorderPosition: an actor's location (cm) and rotation (roll, pitch, yaw; degrees)."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec, Vec3


@dataclass(slots=True)
class PositionRecord:
    id: int
    location: Vec3
    rotation: Vec3


POSITION = FixedLayout(PositionRecord, [("id", "I", 1), ("location", "f", 3), ("rotation", "f", 3)])
POSITION_CODEC = PacketCodec.fixed(PacketId.Position, "position", POSITION)
