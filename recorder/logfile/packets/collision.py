"""CarlaRecorderCollision: one record per colliding pair (4294967295 = not a CARLA actor)."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec


@dataclass(slots=True)
class CollisionRecord:
    id: int
    id1: int
    id2: int
    hero1: bool
    hero2: bool


COLLISION = FixedLayout(
    CollisionRecord,
    [("id", "I", 1), ("id1", "I", 1), ("id2", "I", 1), ("hero1", "?", 1), ("hero2", "?", 1)],
)
COLLISION_CODEC = PacketCodec.fixed(PacketId.Collision, "collision", COLLISION)
