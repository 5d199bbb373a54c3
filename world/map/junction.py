"""CARLA's Junction: an OpenDRIVE junction's id, bounding box and lane waypoints."""

from __future__ import annotations

from typing import TYPE_CHECKING

from world.geometry import BoundingBox, Location, Vector3D
from world.map.lane_enums import LaneType
from world.map.waypoint import Waypoint, public_id

if TYPE_CHECKING:
    from world.map.map import Map

__all__ = ["Junction"]


class Junction:
    """A junction of a Map (carla.Junction)."""

    __slots__ = ("_box", "_id", "_map")

    def __init__(self, map_: Map, junction_id: str, box: BoundingBox) -> None:
        self._map = map_
        self._id = junction_id
        self._box = box

    @property
    def id(self) -> int | str:
        return public_id(self._id)

    @property
    def bounding_box(self) -> BoundingBox:
        b = self._box
        return BoundingBox(
            Location(b.location.x, b.location.y, b.location.z),
            Vector3D(b.extent.x, b.extent.y, b.extent.z),
        )

    def get_waypoints(
        self, lane_type: LaneType = LaneType.Driving
    ) -> list[tuple[Waypoint, Waypoint]]:
        """(start, end) waypoints of every lane of `lane_type` on the junction's connecting roads,
        start and end taken in the lane's travel direction."""
        return self._map._junction_waypoints(self._id, lane_type)

    def __repr__(self) -> str:
        return f"Junction(id={self._id})"
