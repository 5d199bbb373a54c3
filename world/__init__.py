"""lockstep's simulator: geometry, OpenDRIVE maps, actors, physics, traffic, sensors, weather."""

from world.blueprints import (
    ActorAttribute,
    ActorAttributeType,
    ActorBlueprint,
    BlueprintLibrary,
    Color,
    blueprint_library,
)
from world.controls import (
    BoneTransformDataOut,
    VehicleAckermannControl,
    VehicleControl,
    WalkerBoneControlIn,
    WalkerBoneControlOut,
    WalkerControl,
)
from world.errors import BlueprintError, LockstepError, MapError, WorldError
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
from world.weather import WeatherParameters, weather_from_config, weather_preset

__all__ = [
    "ActorAttribute",
    "ActorAttributeType",
    "ActorBlueprint",
    "ActorState",
    "ActorType",
    "AttachmentType",
    "BlueprintError",
    "BlueprintLibrary",
    "BoneTransformDataOut",
    "BoundingBox",
    "CityObjectLabel",
    "Color",
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
    "blueprint_library",
    "weather_from_config",
    "weather_preset",
]
