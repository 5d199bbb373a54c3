"""lockstep's simulator: geometry, OpenDRIVE maps, actors, physics, traffic, sensors, weather."""

from world.controls import (
    BoneTransformDataOut,
    VehicleAckermannControl,
    VehicleControl,
    WalkerBoneControlIn,
    WalkerBoneControlOut,
    WalkerControl,
)
from world.errors import LockstepError, MapError, WorldError
from world.geometry import (
    BoundingBox,
    GeoLocation,
    Location,
    Rotation,
    Transform,
    Vector2D,
    Vector3D,
)
from world.physics_control import GearPhysicsControl, VehiclePhysicsControl, WheelPhysicsControl
from world.vehicle_state import (
    ActorState,
    ActorType,
    AttachmentType,
    CityObjectLabel,
    TrafficLightState,
    VehicleDoor,
    VehicleFailureState,
    VehicleLightState,
    VehicleWheelLocation,
)
from world.weather import WeatherParameters, weather_preset

__all__ = [
    "ActorState",
    "ActorType",
    "AttachmentType",
    "BoneTransformDataOut",
    "BoundingBox",
    "CityObjectLabel",
    "GearPhysicsControl",
    "GeoLocation",
    "Location",
    "LockstepError",
    "MapError",
    "Rotation",
    "TrafficLightState",
    "Transform",
    "Vector2D",
    "Vector3D",
    "VehicleAckermannControl",
    "VehicleControl",
    "VehicleDoor",
    "VehicleFailureState",
    "VehicleLightState",
    "VehiclePhysicsControl",
    "VehicleWheelLocation",
    "WalkerBoneControlIn",
    "WalkerBoneControlOut",
    "WalkerControl",
    "WeatherParameters",
    "WheelPhysicsControl",
    "WorldError",
    "weather_preset",
]
