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

__all__ = [
    "BoundingBox",
    "GeoLocation",
    "Location",
    "LockstepError",
    "MapError",
    "Rotation",
    "Transform",
    "Vector2D",
    "Vector3D",
    "WorldError",
]
