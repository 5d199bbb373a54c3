"""Animation packets: AnimVehicle, AnimWalker, AnimVehicleWheels and AnimBiker."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, LogFormatError, PacketCodec


@dataclass(slots=True)
class AnimVehicleRecord:
    """CarlaRecorderAnimVehicle: the vehicle's control as applied."""

    id: int
    steering: float
    throttle: float
    brake: float
    handbrake: bool
    gear: int


@dataclass(slots=True)
class AnimWalkerRecord:
    """CarlaRecorderAnimWalker: the walker's speed."""

    id: int
    speed: float


@dataclass(slots=True)
class AnimBikerRecord:
    """CarlaRecorderAnimBiker: a two-wheeler's forward speed and engine rotation."""

    id: int
    forward_speed: float
    engine_rotation: float


@dataclass(slots=True)
class WheelInfo:
    """One wheel of AnimVehicleWheels: EVehicleWheelLocation (uint8), steer angle, spin."""

    location: int
    steering_angle: float
    tire_rotation: float


@dataclass(slots=True)
class AnimVehicleWheelsRecord:
    """CarlaRecorderAnimWheels: a vehicle id and a uint32-counted list of wheels."""

    id: int
    wheels: list[WheelInfo] = field(default_factory=list)


ANIM_VEHICLE = FixedLayout(
    AnimVehicleRecord,
    [
        ("id", "I", 1),
        ("steering", "f", 1),
        ("throttle", "f", 1),
        ("brake", "f", 1),
        ("handbrake", "?", 1),
        ("gear", "i", 1),
    ],
)
ANIM_WALKER = FixedLayout(AnimWalkerRecord, [("id", "I", 1), ("speed", "f", 1)])
ANIM_BIKER = FixedLayout(
    AnimBikerRecord, [("id", "I", 1), ("forward_speed", "f", 1), ("engine_rotation", "f", 1)]
)
WHEEL = FixedLayout(
    WheelInfo, [("location", "B", 1), ("steering_angle", "f", 1), ("tire_rotation", "f", 1)]
)
_HEAD = struct.Struct("<II")


def pack_anim_wheels(r: AnimVehicleWheelsRecord) -> bytes:
    return _HEAD.pack(r.id, len(r.wheels)) + b"".join(WHEEL.pack(w) for w in r.wheels)


def unpack_anim_wheels(data: bytes, offset: int, end: int) -> tuple[AnimVehicleWheelsRecord, int]:
    if offset + _HEAD.size > end:
        raise LogFormatError("AnimVehicleWheels record runs past the packet end", offset)
    actor, count = _HEAD.unpack_from(data, offset)
    offset += _HEAD.size
    if count * WHEEL.size > end - offset:
        raise LogFormatError(
            f"AnimVehicleWheels claims {count} wheels, past the packet end", offset
        )
    wheels = [WHEEL.unpack_from(data, offset + i * WHEEL.size) for i in range(count)]
    return AnimVehicleWheelsRecord(actor, wheels), offset + count * WHEEL.size


ANIM_VEHICLE_CODEC = PacketCodec.fixed(PacketId.AnimVehicle, "anim_vehicle", ANIM_VEHICLE)
ANIM_WALKER_CODEC = PacketCodec.fixed(PacketId.AnimWalker, "anim_walker", ANIM_WALKER)
ANIM_BIKER_CODEC = PacketCodec.fixed(PacketId.AnimBiker, "anim_biker", ANIM_BIKER)
ANIM_VEHICLE_WHEELS_CODEC = PacketCodec(
    PacketId.AnimVehicleWheels,
    "anim_vehicle_wheels",
    AnimVehicleWheelsRecord,
    pack_anim_wheels,
    unpack_anim_wheels,
)
