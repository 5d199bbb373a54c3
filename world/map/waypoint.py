"""CARLA's Waypoint: a point on a lane centre (road, lane section, lane, s) and its neighbours.

A Waypoint is a small value: the map it belongs to, its lane (road id, section
index, lane id) and s. Everything else (transform, width, markings, next/previous
waypoints, lanes beside it, landmarks ahead) is asked of the map, as CARLA's
client Waypoint asks its road::Map.

`id` is lockstep's stable hash of (road id, section, lane, s): the first 8 bytes
of BLAKE2b over the road id text and the other three packed little-endian
(int32, int32, float64), read as a signed int64. CARLA hashes the same four
values with std::hash, whose numbers depend on the C++ library; only equality
of ids is meant to be compared.
"""

from __future__ import annotations

import hashlib
import struct
from typing import TYPE_CHECKING

from world.geometry import Location, Rotation, Transform
from world.map.lane_enums import LaneChange, LaneMarking, LaneType

if TYPE_CHECKING:
    from world.map.junction import Junction
    from world.map.landmark import Landmark
    from world.map.map import Map

__all__ = ["Waypoint", "public_id"]


def public_id(text: str) -> int | str:
    """An OpenDRIVE id as CARLA's API shows it: an int when the text is one, else the text."""
    try:
        return int(text)
    except ValueError:
        return text


class Waypoint:
    """A lane-centre point of a Map with CARLA's carla.Waypoint API."""

    __slots__ = ("_lane", "_map", "_pose", "_road", "_s", "_section")

    def __init__(self, map_: Map, road: str, section: int, lane: int, s: float) -> None:
        self._map = map_
        self._road = road
        self._section = section
        self._lane = lane
        self._s = float(s)
        self._pose: tuple[float, ...] | None = None

    @property
    def key(self) -> tuple[str, int, int]:
        """The lane as lockstep addresses it: (road id text, section index, lane id)."""
        return (self._road, self._section, self._lane)

    @property
    def id(self) -> int:
        digest = hashlib.blake2b(
            self._road.encode() + struct.pack("<iid", self._section, self._lane, self._s),
            digest_size=8,
        ).digest()
        return struct.unpack("<q", digest)[0]

    def _centre(self) -> tuple[float, ...]:
        if self._pose is None:
            self._pose = self._map._pose(self)
        return self._pose

    def centre_xyz(self) -> tuple[float, float, float]:
        """transform.location's x, y, z, without building the Transform (for scans over many
        waypoints)."""
        x, y, z = self._centre()[:3]
        return x, y, z

    @property
    def transform(self) -> Transform:
        x, y, z, yaw, pitch, roll, _ = self._centre()
        return Transform(Location(x, y, z), Rotation(pitch, yaw, roll))

    @property
    def road_id(self) -> int | str:
        return public_id(self._road)

    @property
    def section_id(self) -> int:
        return self._section

    @property
    def lane_id(self) -> int:
        return self._lane

    @property
    def s(self) -> float:
        return self._s

    @property
    def is_junction(self) -> bool:
        return self._map.road_junction(self._road) != "-1"

    is_intersection = is_junction

    @property
    def junction_id(self) -> int | str:
        return public_id(self._map.road_junction(self._road))

    @property
    def lane_width(self) -> float:
        return self._centre()[6]

    @property
    def lane_type(self) -> LaneType:
        node = self._map._graph.nodes.get(self.key)
        if node is None:  # the centre lane, which no lane graph holds
            return self._map.odr_lane_type(self.key)
        return node.lane_type

    @property
    def lane_change(self) -> LaneChange:
        return self._map._lane_change(self)

    @property
    def right_lane_marking(self) -> LaneMarking | None:
        return self._map._markings(self)[0]

    @property
    def left_lane_marking(self) -> LaneMarking | None:
        return self._map._markings(self)[1]

    def next(self, distance: float) -> list[Waypoint]:
        """Waypoints `distance` metres ahead in the lane's travel direction, one per branch."""
        return self._map._next(self, distance)

    def previous(self, distance: float) -> list[Waypoint]:
        """Waypoints `distance` metres behind, one per branch."""
        return self._map._previous(self, distance)

    def next_until_lane_end(self, distance: float) -> list[Waypoint]:
        """Waypoints every `distance` metres to the end of this road's lane (end included)."""
        return self._map._until_lane_end(self, distance, forward=True)

    def previous_until_lane_start(self, distance: float) -> list[Waypoint]:
        """Waypoints every `distance` metres back to the start of this road's lane."""
        return self._map._until_lane_end(self, distance, forward=False)

    def get_right_lane(self) -> Waypoint | None:
        """The lane to the right in the travel direction, at the same s (any lane type)."""
        step = 1 if self._lane > 0 else -1
        return self._map._sibling(self, self._lane + step)

    def get_left_lane(self) -> Waypoint | None:
        """The lane to the left in the travel direction; from lane +-1 that is the opposite one."""
        if abs(self._lane) == 1:
            return self._map._sibling(self, -self._lane)
        step = -1 if self._lane > 0 else 1
        return self._map._sibling(self, self._lane + step)

    def get_junction(self) -> Junction | None:
        return self._map._junction_of(self._road) if self.is_junction else None

    def get_landmarks(self, distance: float, stop_at_junction: bool = False) -> list[Landmark]:
        """Landmarks that apply to this lane within `distance` metres ahead."""
        return self._map._landmarks_ahead(self, distance, stop_at_junction, None)

    def get_landmarks_of_type(
        self, distance: float, type: str, stop_at_junction: bool = False
    ) -> list[Landmark]:
        """As get_landmarks, keeping those whose OpenDRIVE signal type is `type`."""
        return self._map._landmarks_ahead(self, distance, stop_at_junction, str(type))

    def __repr__(self) -> str:
        return (
            f"Waypoint(road_id={self._road}, section_id={self._section}, "
            f"lane_id={self._lane}, s={self._s:.6g})"
        )
