"""One module per CARLA packet (or small family): record types with pack and unpack side by side.

`CODECS` maps every `PacketId` to its `PacketCodec`; `CODEC_BY_KEY` maps the JSON list keys of
the golden SPEC.json schema to the same codecs.
"""

from __future__ import annotations

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.animation import (
    ANIM_BIKER_CODEC,
    ANIM_VEHICLE_CODEC,
    ANIM_VEHICLE_WHEELS_CODEC,
    ANIM_WALKER_CODEC,
    AnimBikerRecord,
    AnimVehicleRecord,
    AnimVehicleWheelsRecord,
    AnimWalkerRecord,
    WheelInfo,
)
from recorder.logfile.packets.base import FixedLayout, PacketCodec, pack_string, unpack_string
from recorder.logfile.packets.boxes import BOUNDING_BOX_CODEC, TRIGGER_VOLUME_CODEC, BoxRecord
from recorder.logfile.packets.collision import COLLISION_CODEC, CollisionRecord
from recorder.logfile.packets.events import (
    EVENT_ADD_CODEC,
    EVENT_DEL_CODEC,
    EVENT_PARENT_CODEC,
    ActorAttribute,
    EventAddRecord,
    EventDelRecord,
    EventParentRecord,
)
from recorder.logfile.packets.frame import (
    FRAME_COUNTER_CODEC,
    FRAME_END_CODEC,
    FRAME_START_CODEC,
    PLATFORM_TIME_CODEC,
    VISUAL_TIME_CODEC,
    FrameCounterRecord,
    FrameEndRecord,
    FrameStartRecord,
    TimeRecord,
)
from recorder.logfile.packets.kinematics import KINEMATICS_CODEC, KinematicsRecord
from recorder.logfile.packets.lights import (
    SCENE_LIGHT_CODEC,
    VEHICLE_LIGHT_CODEC,
    SceneLightRecord,
    VehicleLightRecord,
)
from recorder.logfile.packets.physics_control import (
    PHYSICS_CONTROL_CODEC,
    GearRecord,
    PhysicsControlRecord,
    Wheel36,
    Wheel48,
    Wheel208,
)
from recorder.logfile.packets.physics_control_ue5 import PhysicsControlUE5Record
from recorder.logfile.packets.position import POSITION_CODEC, PositionRecord
from recorder.logfile.packets.state import STATE_CODEC, StateRecord
from recorder.logfile.packets.traffic_light_time import (
    TRAFFIC_LIGHT_TIME_CODEC,
    TrafficLightTimeRecord,
)
from recorder.logfile.packets.ue5 import ue5_codecs
from recorder.logfile.packets.vehicle_door import VEHICLE_DOOR_CODEC, VehicleDoorRecord
from recorder.logfile.packets.walker_bones import WALKER_BONES_CODEC, Bone, WalkerBonesRecord
from recorder.logfile.packets.weather import WEATHER_CODEC, WeatherRecord

CODECS: dict[PacketId, PacketCodec] = {
    c.packet_id: c
    for c in (
        FRAME_START_CODEC,
        FRAME_END_CODEC,
        EVENT_ADD_CODEC,
        EVENT_DEL_CODEC,
        EVENT_PARENT_CODEC,
        COLLISION_CODEC,
        POSITION_CODEC,
        STATE_CODEC,
        ANIM_VEHICLE_CODEC,
        ANIM_WALKER_CODEC,
        VEHICLE_LIGHT_CODEC,
        SCENE_LIGHT_CODEC,
        KINEMATICS_CODEC,
        BOUNDING_BOX_CODEC,
        PLATFORM_TIME_CODEC,
        PHYSICS_CONTROL_CODEC,
        TRAFFIC_LIGHT_TIME_CODEC,
        TRIGGER_VOLUME_CODEC,
        FRAME_COUNTER_CODEC,
        WALKER_BONES_CODEC,
        VISUAL_TIME_CODEC,
        ANIM_VEHICLE_WHEELS_CODEC,
        ANIM_BIKER_CODEC,
        VEHICLE_DOOR_CODEC,
        WEATHER_CODEC,
    )
}
assert len(CODECS) == len(PacketId)
CODEC_BY_KEY: dict[str, PacketCodec] = {c.key: c for c in CODECS.values()}
# Codecs by the id byte of a log: UE4 (CARLA 0.9.x) and UE5 (CARLA 0.10) numbering and layouts.
UE4_CODECS: dict[int, PacketCodec] = {int(pid): c for pid, c in CODECS.items()}
UE5_CODECS: dict[int, PacketCodec] = ue5_codecs(CODECS)

# numpy structured dtypes of the fixed-size records, by packet id (packed, little-endian).
DTYPES = {pid: c.dtype for pid, c in CODECS.items() if c.dtype is not None}

__all__ = [
    "CODECS",
    "CODEC_BY_KEY",
    "DTYPES",
    "UE4_CODECS",
    "UE5_CODECS",
    "ActorAttribute",
    "AnimBikerRecord",
    "AnimVehicleRecord",
    "AnimVehicleWheelsRecord",
    "AnimWalkerRecord",
    "Bone",
    "BoxRecord",
    "CollisionRecord",
    "EventAddRecord",
    "EventDelRecord",
    "EventParentRecord",
    "FixedLayout",
    "FrameCounterRecord",
    "FrameEndRecord",
    "FrameStartRecord",
    "GearRecord",
    "KinematicsRecord",
    "PacketCodec",
    "PhysicsControlRecord",
    "PhysicsControlUE5Record",
    "PositionRecord",
    "SceneLightRecord",
    "StateRecord",
    "TimeRecord",
    "TrafficLightTimeRecord",
    "VehicleDoorRecord",
    "VehicleLightRecord",
    "WalkerBonesRecord",
    "WeatherRecord",
    "Wheel36",
    "Wheel48",
    "Wheel208",
    "WheelInfo",
    "pack_string",
    "unpack_string",
]
