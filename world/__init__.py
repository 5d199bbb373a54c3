"""lockstep's simulator: geometry, OpenDRIVE maps, actors, physics, traffic, sensors, weather."""

# first: it chooses numba's cache directory before any compiled kernel is defined
import world.physics.compiled_cache  # noqa: F401
from world.actors.actor_list import ActorList
from world.actors.blueprints import (
    ActorAttribute,
    ActorAttributeType,
    ActorBlueprint,
    BlueprintLibrary,
    Color,
    blueprint_library,
)
from world.actors.controls import (
    BoneTransformDataOut,
    VehicleAckermannControl,
    VehicleControl,
    WalkerBoneControlIn,
    WalkerBoneControlOut,
    WalkerControl,
)
from world.actors.vehicle_state import (
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
from world.handles import (
    Actor,
    Sensor,
    Spectator,
    TrafficLight,
    TrafficSign,
    Vehicle,
    Walker,
    WalkerAIController,
)
from world.map.flat_map import FlatMap
from world.map.junction import Junction
from world.map.landmark import Landmark, LandmarkOrientation, LandmarkType
from world.map.lane_enums import (
    LaneChange,
    LaneMarking,
    LaneMarkingColor,
    LaneMarkingType,
    LaneType,
)
from world.map.map import Map
from world.map.waypoint import Waypoint
from world.physics.collisions import CollisionEvent
from world.physics.control import GearPhysicsControl, VehiclePhysicsControl, WheelPhysicsControl
from world.sensors.data import (
    GnssMeasurement,
    IMUMeasurement,
    LaneInvasionEvent,
    ObstacleDetectionEvent,
    SensorData,
)
from world.settings import EpisodeSettings, WorldSettings
from world.snapshot import ActorSnapshot, Timestamp, WorldSnapshot
from world.traffic.autopilot.manager import TrafficManager, street_spawn_points
from world.weather import WeatherParameters, weather_from_config, weather_preset
from world.world import World

__all__ = [
    "Actor",
    "ActorAttribute",
    "ActorAttributeType",
    "ActorBlueprint",
    "ActorList",
    "ActorSnapshot",
    "ActorState",
    "ActorType",
    "AttachmentType",
    "BlueprintError",
    "BlueprintLibrary",
    "BoneTransformDataOut",
    "BoundingBox",
    "CityObjectLabel",
    "CollisionEvent",
    "Color",
    "EpisodeSettings",
    "FlatMap",
    "GearPhysicsControl",
    "GeoLocation",
    "GnssMeasurement",
    "IMUMeasurement",
    "Junction",
    "Landmark",
    "LandmarkOrientation",
    "LandmarkType",
    "LaneChange",
    "LaneInvasionEvent",
    "LaneMarking",
    "LaneMarkingColor",
    "LaneMarkingType",
    "LaneType",
    "Location",
    "LockstepError",
    "Map",
    "MapError",
    "ObstacleDetectionEvent",
    "Rotation",
    "Sensor",
    "SensorData",
    "Spectator",
    "Timestamp",
    "TrafficLight",
    "TrafficLightState",
    "TrafficManager",
    "TrafficSign",
    "Transform",
    "Vector2D",
    "Vector3D",
    "Vehicle",
    "VehicleAckermannControl",
    "VehicleControl",
    "VehicleDoor",
    "VehicleFailureState",
    "VehicleLightState",
    "VehiclePhysicsControl",
    "VehicleWheelLocation",
    "Walker",
    "WalkerAIController",
    "WalkerBoneControlIn",
    "WalkerBoneControlOut",
    "WalkerControl",
    "Waypoint",
    "WeatherParameters",
    "WheelPhysicsControl",
    "World",
    "WorldError",
    "WorldSettings",
    "WorldSnapshot",
    "blueprint_library",
    "street_spawn_points",
    "weather_from_config",
    "weather_preset",
]
