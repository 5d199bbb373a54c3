"""The route as the background traffic sees it: the dense plan's points as arrays, the lane
under each point, where things stand along and across it, and the lanes beside it.

Positions are route-relative: the arc length along the plan (m from its first point) and
a lane offset across it, 0 on the route's lane, +1 the next lane to its right in the same
direction, -1 the next to its left. Lanes stay numbered the same way when the route
crosses from one road to the next, which is what lets the road bubble follow the ego
without remapping lane keys. A vehicle is placed by projecting it onto the nearest plan
point of a window of the route (one numpy pass for all vehicles).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from world import elementary as el
from world.map.lane_enums import LaneType

__all__ = [
    "Placement",
    "RouteFrame",
    "among",
    "lane_key",
    "opposite_lanes",
    "same_direction_lanes",
]

WINDOW_STRIDE = 2  # plan points (1 m apart) per projection sample
SAME_WAY = 45.0  # degrees: a vehicle heading this close to the route's heading goes its way
MAX_LANES = 4  # lanes either side of the route's that count as its road


def among(values: np.ndarray, options: Sequence[int]) -> np.ndarray:
    """Which of `values` are one of the few `options` (np.isin without its set-up cost)."""
    if not len(options):
        return np.zeros(len(values), dtype=bool)
    return (values[:, None] == np.asarray(options)[None, :]).any(axis=1)


def lane_key(wp: Any) -> tuple[str, int]:
    """A lane's identity: (road, lane id)."""
    return (str(wp.road_id), int(wp.lane_id))


def same_direction_lanes(wp: Any) -> list[tuple[int, Any]]:
    """The driving lanes of `wp`'s road going its way, as (offset, waypoint): 0 is `wp`,
    positive offsets to its right, negative to its left."""
    out = [(0, wp)]
    for step, sign in (("get_right_lane", 1), ("get_left_lane", -1)):
        side, offset = wp, 0
        while True:
            side = getattr(side, step)()
            if side is None or side.lane_type != LaneType.Driving:
                break
            if side.lane_id * wp.lane_id < 0:
                break
            offset += sign
            out.append((offset, side))
    out.sort(key=lambda pair: pair[0])
    return out


def opposite_lanes(wp: Any) -> list[Any]:
    """The driving lanes of `wp`'s road going against it, the one nearest the centre first."""
    first = wp
    while True:
        first = first.get_left_lane()
        if first is None:
            return []
        if first.lane_id * wp.lane_id < 0:
            break
    out = []
    lane = first
    while lane is not None:
        if lane.lane_type == LaneType.Driving:
            out.append(lane)
        lane = lane.get_right_lane()
    return out


@dataclass
class Placement:
    """Where vehicles stand relative to the route: nearest plan index, arc length (m along
    the route), lateral offset (m, right positive), lane offset; whether each is on the
    route's road (within MAX_LANES of its lane and not off past the window's ends, except
    before the route's start and past its end, where the road goes on), and whether it
    heads the route's way or against it (within SAME_WAY degrees)."""

    index: np.ndarray
    arc: np.ndarray
    lateral: np.ndarray
    lane: np.ndarray
    on_road: np.ndarray
    same_way: np.ndarray
    opposite_way: np.ndarray


class RouteFrame:
    """The plan's points, tangents, arc lengths, lane waypoints and junctions, as arrays."""

    def __init__(self, world_map: Any, plan: Sequence) -> None:
        self.map = world_map
        self.points = np.array(
            [(tf.location.x, tf.location.y, tf.location.z) for tf, _ in plan], dtype=np.float64
        )
        self.yaw = np.array([tf.rotation.yaw for tf, _ in plan], dtype=np.float64)
        radians = np.radians(self.yaw)
        self.tangent = np.stack([el.cos_v(radians), el.sin_v(radians)], axis=1)
        steps = np.diff(self.points, axis=0)
        lengths = np.sqrt((steps * steps).sum(axis=1))
        self.accum = np.concatenate([[0.0], np.cumsum(lengths)])
        self.waypoints = world_map.get_waypoints_batch(self.points)
        self.width = np.array([wp.lane_width if wp is not None else 3.5 for wp in self.waypoints])
        self._lanes: dict[int, list] = {}
        self._opposite: dict[int, list] = {}
        junction_ids: dict[Any, int] = {}
        self.junction = np.array(
            [
                junction_ids.setdefault(wp.junction_id, len(junction_ids))
                if wp is not None and wp.is_junction
                else -1
                for wp in self.waypoints
            ],
            dtype=np.int64,
        )

    def __len__(self) -> int:
        return len(self.points)

    @property
    def length(self) -> float:
        return float(self.accum[-1])

    def index_at(self, arc: float) -> int:
        """The plan index at `arc` m along the route (clipped to the route)."""
        k = int(np.searchsorted(self.accum, arc))
        return min(max(k, 0), len(self.accum) - 1)

    # -- where things stand ------------------------------------------------------------------

    def place(self, xy: np.ndarray, yaw: np.ndarray, first: int, last: int) -> Placement:
        """Projects points `xy` (V, 2) heading `yaw` (V, degrees) onto the plan between
        indices `first` and `last` (inclusive)."""
        first = max(int(first), 0)
        last = min(int(last), len(self.points) - 1)
        dx = xy[:, 0:1] - self.points[first : last + 1 : WINDOW_STRIDE, 0]
        dy = xy[:, 1:2] - self.points[first : last + 1 : WINDOW_STRIDE, 1]
        nearest = first + WINDOW_STRIDE * np.argmin(dx * dx + dy * dy, axis=1)
        ox = xy[:, 0] - self.points[nearest, 0]
        oy = xy[:, 1] - self.points[nearest, 1]
        tx, ty = self.tangent[nearest, 0], self.tangent[nearest, 1]
        along = ox * tx + oy * ty
        lateral = oy * tx - ox * ty
        lane = np.rint(lateral / self.width[nearest]).astype(np.int64)
        turn = np.abs(np.mod(yaw - self.yaw[nearest] + 180.0, 360.0) - 180.0)
        inside = np.abs(along) <= WINDOW_STRIDE
        inside |= (nearest == 0) & (along < 0.0)
        inside |= (nearest >= len(self.points) - WINDOW_STRIDE) & (along > 0.0)
        on_road = inside & (np.abs(lane) <= MAX_LANES)
        arc = self.accum[nearest] + along
        return Placement(
            nearest, arc, lateral, lane, on_road, turn < SAME_WAY, turn > 180.0 - SAME_WAY
        )

    # -- lanes at a route point --------------------------------------------------------------

    def lanes_at(self, index: int) -> list[tuple[int, Any]]:
        """The same-direction lanes (offset, waypoint) at plan index `index` (kept: their
        waypoints keep their poses once computed)."""
        if index not in self._lanes:
            wp = self.waypoints[index]
            self._lanes[index] = [] if wp is None else same_direction_lanes(wp)
        return self._lanes[index]

    def lane_waypoint(self, index: int, offset: int) -> Any | None:
        """The waypoint `offset` lanes right (negative: left) of the route's at `index`, on a
        driving lane going the route's way; None when there is none."""
        for lane_offset, wp in self.lanes_at(index):
            if lane_offset == offset:
                return wp
        return None

    def opposite_at(self, index: int) -> list[Any]:
        """The opposite lanes at plan index `index`, nearest the centre first (kept)."""
        if index not in self._opposite:
            wp = self.waypoints[index]
            self._opposite[index] = [] if wp is None else opposite_lanes(wp)
        return self._opposite[index]

    def in_junction(self, index: int) -> bool:
        return bool(self.junction[index] >= 0)
