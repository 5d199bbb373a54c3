"""The packet ids of CARLA's recorder log (UE4 plugin, `CarlaRecorderPacketId`)."""

from __future__ import annotations

from world.enums import CarlaEnum


class PacketId(CarlaEnum):
    """One byte at the start of every packet; ids 21-24 are UE4's numbering."""

    FrameStart = 0
    FrameEnd = 1
    EventAdd = 2
    EventDel = 3
    EventParent = 4
    Collision = 5
    Position = 6
    State = 7
    AnimVehicle = 8
    AnimWalker = 9
    VehicleLight = 10
    SceneLight = 11
    Kinematics = 12
    BoundingBox = 13
    PlatformTime = 14
    PhysicsControl = 15
    TrafficLightTime = 16
    TriggerVolume = 17
    FrameCounter = 18
    WalkerBones = 19
    VisualTime = 20
    AnimVehicleWheels = 21
    AnimBiker = 22
    VehicleDoor = 23
    Weather = 24


KNOWN_IDS = frozenset(int(p) for p in PacketId)
