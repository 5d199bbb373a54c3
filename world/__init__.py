"""lockstep's simulator: geometry, OpenDRIVE maps, actors, physics, traffic, sensors, weather."""

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
from world.junction import Junction
from world.landmark import Landmark, LandmarkOrientation, LandmarkType
from world.lane_enums import LaneChange, LaneMarking, LaneMarkingColor, LaneMarkingType, LaneType
from world.map import Map
from world.waypoint import Waypoint

__all__ = [
    "BoundingBox",
    "GeoLocation",
    "Junction",
    "Landmark",
    "LandmarkOrientation",
    "LandmarkType",
    "LaneChange",
    "LaneMarking",
    "LaneMarkingColor",
    "LaneMarkingType",
    "LaneType",
    "Location",
    "LockstepError",
    "Map",
    "MapError",
    "Rotation",
    "Transform",
    "Vector2D",
    "Vector3D",
    "Waypoint",
    "WorldError",
]
