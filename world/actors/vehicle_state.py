"""CARLA's state enums: vehicle lights, doors, wheels, failures, traffic lights, actor kinds, tags.

Names and values are those of CARLA 0.9.14-0.9.15 (LibCarla rpc/*.h and the
recorder's CarlaRecorderEventAdd types), so numbers written to a log or compared
with CARLA's client code mean the same thing.
"""

from __future__ import annotations

from world.enums import CarlaEnum, CarlaFlag

__all__ = [
    "ActorState",
    "ActorType",
    "AttachmentType",
    "CityObjectLabel",
    "TrafficLightState",
    "VehicleDoor",
    "VehicleFailureState",
    "VehicleLightState",
    "VehicleWheelLocation",
]


class VehicleLightState(CarlaFlag):
    """The lights of a vehicle, as bits (rpc/VehicleLightState.h, the recorder's light flags)."""

    NONE = 0
    Position = 0x1
    LowBeam = 0x2
    HighBeam = 0x4
    Brake = 0x8
    RightBlinker = 0x10
    LeftBlinker = 0x20
    Reverse = 0x40
    Fog = 0x80
    Interior = 0x100
    Special1 = 0x200
    Special2 = 0x400
    All = 0xFFFFFFFF


class VehicleDoor(CarlaEnum):
    """A vehicle's doors (rpc/VehicleDoor.h); `All` opens or closes every door."""

    FL = 0
    FR = 1
    RL = 2
    RR = 3
    Hood = 4
    Trunk = 5
    All = 6


class VehicleWheelLocation(CarlaEnum):
    """Wheel indices (rpc/VehicleWheels.h); a two-wheeler names its wheels Front/Back.

    `Front_Wheel` and `Back_Wheel` are aliases of `FL_Wheel` (0) and `FR_Wheel` (1),
    as in CARLA, so they print as the four-wheel names.
    """

    FL_Wheel = 0
    FR_Wheel = 1
    BL_Wheel = 2
    BR_Wheel = 3
    Front_Wheel = 0
    Back_Wheel = 1


class VehicleFailureState(CarlaEnum):
    """Why a vehicle stopped working (rpc/VehicleFailureState.h)."""

    NONE = 0
    Rollover = 1
    Engine = 2
    TirePuncture = 3


class TrafficLightState(CarlaEnum):
    """A traffic light's state (rpc/TrafficLightState.h), as the recorder stores it."""

    Red = 0
    Yellow = 1
    Green = 2
    Off = 3
    Unknown = 4


class ActorType(CarlaEnum):
    """The actor kind the recorder writes in its EventAdd packets (CarlaActor::ActorType)."""

    Other = 0
    Vehicle = 1
    Walker = 2
    TrafficLight = 3
    TrafficSign = 4
    Sensor = 5
    INVALID = 6


class ActorState(CarlaEnum):
    """Whether an actor is alive in the simulation (rpc/ActorState.h)."""

    Invalid = 0
    Alive = 1
    Dormant = 2


class AttachmentType(CarlaEnum):
    """How a child follows its parent (rpc/AttachmentType.h); here all follow rigidly."""

    Rigid = 0
    SpringArm = 1
    SpringArmGhost = 2


class CityObjectLabel(CarlaEnum):
    """Semantic tags (rpc/ObjectLabel.h, the Cityscapes-ordered ids of CARLA 0.9.14 and later)."""

    NONE = 0
    Roads = 1
    Sidewalks = 2
    Buildings = 3
    Walls = 4
    Fences = 5
    Poles = 6
    TrafficLight = 7
    TrafficSigns = 8
    Vegetation = 9
    Terrain = 10
    Sky = 11
    Pedestrians = 12
    Rider = 13
    Car = 14
    Truck = 15
    Bus = 16
    Train = 17
    Motorcycle = 18
    Bicycle = 19
    Static = 20
    Dynamic = 21
    Other = 22
    Water = 23
    RoadLines = 24
    Ground = 25
    Bridge = 26
    RailTrack = 27
    GuardRail = 28
    Any = 0xFF
