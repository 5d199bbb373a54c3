"""CarlaRecorderDoorVehicle: a door (EVehicleDoor, uint8) opened or closed."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec


@dataclass(slots=True)
class VehicleDoorRecord:
    id: int
    doors: int
    open: bool


VEHICLE_DOOR = FixedLayout(VehicleDoorRecord, [("id", "I", 1), ("doors", "B", 1), ("open", "?", 1)])
VEHICLE_DOOR_CODEC = PacketCodec.fixed(PacketId.VehicleDoor, "door_vehicle", VEHICLE_DOOR)
