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
from dataclasses import dataclass, fields
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
NO_OFFSET = -1000  # a lane that is not one of the route's
UNSURE = 0.25  # lane widths off a lane's centre line (or off the route's ends) where the
# map's lane decides the lane offset, not the lateral offset


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

    def take(self, rows: np.ndarray) -> Placement:
        return Placement(*(getattr(self, f.name)[rows] for f in fields(self)))

    @staticmethod
    def merged(known: np.ndarray, old: Placement, new: Placement) -> Placement:
        """Rows `known` from `old` (in order), the others from `new`."""
        out = []
        for f in fields(Placement):
            a, b = getattr(old, f.name), getattr(new, f.name)
            column = np.empty(len(known), dtype=np.result_type(a, b))
            column[known], column[~known] = a, b
            out.append(column)
        return Placement(*out)


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
        self._opposite: dict[int, list] = {}
        self._tables: dict[int, np.ndarray] = {}
        self._section_offsets: dict[int, list[int]] = {}
        self._road_lane_nodes: dict[tuple[str, int], list[int]] | None = None
        keys = [None if wp is None else wp.key for wp in self.waypoints]
        change = [k == 0 or keys[k] != keys[k - 1] for k in range(len(keys))]
        self.section = np.cumsum(change) - 1  # the route's lane section at each point
        self.section_start = np.flatnonzero(change)
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

    def place(self, xyz: np.ndarray, yaw: np.ndarray, first: int, last: int) -> Placement:
        """Projects points `xyz` (V, 3) heading `yaw` (V, degrees) onto the plan between
        indices `first` and `last` (inclusive). A point's lane offset is its lateral offset
        in the route lane's widths, rounded; where that is unsure for a point heading the
        route's way (more than UNSURE off a whole number, or off the route's ends), it is
        the offset of its map lane among the route's lanes at its plan point, if it is one
        of them (the map's nearest lane, one batch query)."""
        xy = xyz[:, :2]
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
        lanes = lateral / self.width[nearest]
        lane = np.rint(lanes).astype(np.int64)
        turn = np.abs(np.mod(yaw - self.yaw[nearest] + 180.0, 360.0) - 180.0)
        inside = np.abs(along) <= WINDOW_STRIDE
        beyond = (nearest == 0) & (along < 0.0)
        beyond |= (nearest >= len(self.points) - WINDOW_STRIDE) & (along > 0.0)
        inside |= beyond
        same_way = turn < SAME_WAY
        unsure = beyond | (np.abs(lanes - lane) > UNSURE)
        unsure &= inside & same_way & (np.abs(lane) <= MAX_LANES + 1)
        if unsure.any():
            rows = np.flatnonzero(unsure)
            lane[rows] = self._lanes_by_key(xyz[rows], nearest[rows], lane[rows])
        on_road = inside & (np.abs(lane) <= MAX_LANES)
        arc = self.accum[nearest] + along
        return Placement(nearest, arc, lateral, lane, on_road, same_way, turn > 180.0 - SAME_WAY)

    def _lanes_by_key(self, xyz: np.ndarray, nearest: np.ndarray, lane: np.ndarray) -> np.ndarray:
        """`lane`, set from the map lane under each point where that is a route lane."""
        lane = lane.copy()
        nodes = self.map.project_batch(xyz).node
        sections = self.section[nearest]
        for section in np.unique(sections).tolist():
            rows = np.flatnonzero((sections == section) & (nodes >= 0))
            found = self._offset_table(section)[nodes[rows]]
            known = found != NO_OFFSET
            lane[rows[known]] = found[known]
        return lane

    def _offset_table(self, section: int) -> np.ndarray:
        """Map lane node -> lane offset among the route's lanes on route section `section`
        (NO_OFFSET for other lanes), kept."""
        if section not in self._tables:
            table = np.full(len(self.map.lane_keys), NO_OFFSET, dtype=np.int64)
            wp = self.waypoints[int(self.section_start[section])]
            for offset, side in [] if wp is None else same_direction_lanes(wp):
                table[self._nodes_of(lane_key(side))] = offset
            self._tables[section] = table
        return self._tables[section]

    def _nodes_of(self, key: tuple[str, int]) -> list[int]:
        if self._road_lane_nodes is None:
            self._road_lane_nodes = {}
            for node, (road, _section, lane_id) in enumerate(self.map.lane_keys):
                self._road_lane_nodes.setdefault((str(road), int(lane_id)), []).append(node)
        return self._road_lane_nodes.get(key, [])

    def lane_offsets(self, index: int) -> list[int]:
        """The lane offsets of the route's lanes at plan index `index`, in order (the same
        all along a lane section of the route's lane)."""
        section = int(self.section[index])
        if section not in self._section_offsets:
            wp = self.waypoints[int(self.section_start[section])]
            lanes = [] if wp is None else same_direction_lanes(wp)
            self._section_offsets[section] = [offset for offset, _ in lanes]
        return self._section_offsets[section]

    # -- lanes at a route point --------------------------------------------------------------

    def lanes_at(self, index: int) -> list[tuple[int, Any]]:
        """The same-direction lanes (offset, waypoint) at plan index `index`."""
        wp = self.waypoints[index]
        return [] if wp is None else same_direction_lanes(wp)

    def lane_waypoint(self, index: int, offset: int) -> Any | None:
        """The waypoint `offset` lanes right (negative: left) of the route's at `index`, on a
        driving lane going the route's way; None when there is none."""
        wp = self.waypoints[index]
        step = "get_right_lane" if offset > 0 else "get_left_lane"
        for _ in range(abs(offset)):
            if wp is None:
                return None
            side = getattr(wp, step)()
            if side is None or side.lane_type != LaneType.Driving:
                return None
            if side.lane_id * wp.lane_id < 0:
                return None
            wp = side
        return wp

    def opposite_at(self, index: int) -> list[Any]:
        """The opposite lanes at plan index `index`, nearest the centre first (kept)."""
        if index not in self._opposite:
            wp = self.waypoints[index]
            self._opposite[index] = [] if wp is None else opposite_lanes(wp)
        return self._opposite[index]

    def in_junction(self, index: int) -> bool:
        return bool(self.junction[index] >= 0)
