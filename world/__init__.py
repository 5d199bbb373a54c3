"""lockstep's simulator: geometry, OpenDRIVE maps, actors, physics, traffic, sensors, weather.

The names below load on first use (PEP 562): `import world.errors` or `import world.geometry`
costs no numba and no compiled kernel, so the log tools and `lockstep --help` start fast;
`from world import World` loads the world's modules then. Each module that defines kernels
takes its decorator from world.kernels.compiled (the ahead-of-time module's functions, or
numba's JIT).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

# One thread for BLAS (numpy's `@`), unless the user chose otherwise: lockstep runs no
# threads, a BLAS answer may depend on how many threads shared it, and an idle BLAS pool's
# threads spin on the cores a worker pool needs (about 0.1 s of CPU at numpy's import).
# Set here, before world imports numpy; a process that imported numpy first keeps its pool.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
del _variable

# each public name -> the module that defines it
_MODULE_OF: dict[str, str] = {
    "Actor": "world.handles",
    "ActorAttribute": "world.actors.blueprints",
    "ActorAttributeType": "world.actors.blueprints",
    "ActorBlueprint": "world.actors.blueprints",
    "ActorList": "world.actors.actor_list",
    "ActorSnapshot": "world.snapshot",
    "ActorState": "world.actors.vehicle_state",
    "ActorType": "world.actors.vehicle_state",
    "AttachmentType": "world.actors.vehicle_state",
    "BlueprintError": "world.errors",
    "BlueprintLibrary": "world.actors.blueprints",
    "BoneTransformDataOut": "world.actors.controls",
    "BoundingBox": "world.geometry",
    "CityObjectLabel": "world.actors.vehicle_state",
    "CollisionEvent": "world.physics.collisions",
    "Color": "world.actors.blueprints",
    "ColorConverter": "world.sensors.color_converter",
    "DVSEvent": "world.sensors.dvs_events",
    "DVSEventArray": "world.sensors.dvs_events",
    "EpisodeSettings": "world.settings",
    "FlatMap": "world.map.flat_map",
    "GearPhysicsControl": "world.physics.control",
    "GeoLocation": "world.geometry",
    "GnssMeasurement": "world.sensors.data",
    "IMUMeasurement": "world.sensors.data",
    "Image": "world.sensors.images",
    "Junction": "world.map.junction",
    "Landmark": "world.map.landmark",
    "LandmarkOrientation": "world.map.landmark",
    "LandmarkType": "world.map.landmark",
    "LaneChange": "world.map.lane_enums",
    "LaneInvasionEvent": "world.sensors.data",
    "LaneMarking": "world.map.lane_enums",
    "LaneMarkingColor": "world.map.lane_enums",
    "LaneMarkingType": "world.map.lane_enums",
    "LaneType": "world.map.lane_enums",
    "LidarDetection": "world.sensors.point_clouds",
    "LidarMeasurement": "world.sensors.point_clouds",
    "Location": "world.geometry",
    "LockstepError": "world.errors",
    "Map": "world.map.map",
    "MapError": "world.errors",
    "ObstacleDetectionEvent": "world.sensors.data",
    "OpticalFlowImage": "world.sensors.images",
    "OpticalFlowPixel": "world.sensors.images",
    "RadarDetection": "world.sensors.point_clouds",
    "RadarMeasurement": "world.sensors.point_clouds",
    "Rotation": "world.geometry",
    "SemanticLidarDetection": "world.sensors.point_clouds",
    "SemanticLidarMeasurement": "world.sensors.point_clouds",
    "Sensor": "world.handles",
    "SensorData": "world.sensors.data",
    "Spectator": "world.handles",
    "Timestamp": "world.snapshot",
    "TrafficLight": "world.handles",
    "TrafficLightState": "world.actors.vehicle_state",
    "TrafficManager": "world.traffic.autopilot.manager",
    "TrafficSign": "world.handles",
    "Transform": "world.geometry",
    "Vector2D": "world.geometry",
    "Vector3D": "world.geometry",
    "Vehicle": "world.handles",
    "VehicleAckermannControl": "world.actors.controls",
    "VehicleControl": "world.actors.controls",
    "VehicleDoor": "world.actors.vehicle_state",
    "VehicleFailureState": "world.actors.vehicle_state",
    "VehicleLightState": "world.actors.vehicle_state",
    "VehiclePhysicsControl": "world.physics.control",
    "VehicleWheelLocation": "world.actors.vehicle_state",
    "Walker": "world.handles",
    "WalkerAIController": "world.handles",
    "WalkerBoneControlIn": "world.actors.controls",
    "WalkerBoneControlOut": "world.actors.controls",
    "WalkerControl": "world.actors.controls",
    "Waypoint": "world.map.waypoint",
    "WeatherParameters": "world.weather",
    "WheelPhysicsControl": "world.physics.control",
    "World": "world.world",
    "WorldError": "world.errors",
    "WorldSettings": "world.settings",
    "WorldSnapshot": "world.snapshot",
    "blueprint_library": "world.actors.blueprints",
    "street_spawn_points": "world.traffic.autopilot.manager",
    "weather_from_config": "world.weather",
    "weather_preset": "world.weather",
}

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
    "ColorConverter",
    "DVSEvent",
    "DVSEventArray",
    "EpisodeSettings",
    "FlatMap",
    "GearPhysicsControl",
    "GeoLocation",
    "GnssMeasurement",
    "IMUMeasurement",
    "Image",
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
    "LidarDetection",
    "LidarMeasurement",
    "Location",
    "LockstepError",
    "Map",
    "MapError",
    "ObstacleDetectionEvent",
    "OpticalFlowImage",
    "OpticalFlowPixel",
    "RadarDetection",
    "RadarMeasurement",
    "Rotation",
    "SemanticLidarDetection",
    "SemanticLidarMeasurement",
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


def __getattr__(name: str) -> Any:
    """Imports the module defining `name` on first use and keeps the value here."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'world' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
