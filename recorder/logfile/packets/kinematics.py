"""CarlaRecorderKinematics: an actor's linear and angular velocity."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec, Vec3


@dataclass(slots=True)
class KinematicsRecord:
    id: int
    linear_velocity: Vec3
    angular_velocity: Vec3


KINEMATICS = FixedLayout(
    KinematicsRecord, [("id", "I", 1), ("linear_velocity", "f", 3), ("angular_velocity", "f", 3)]
)
KINEMATICS_CODEC = PacketCodec.fixed(PacketId.Kinematics, "kinematics", KINEMATICS)
