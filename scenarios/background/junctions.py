"""The junctions the route crosses, as the background traffic handles them: which lanes
enter and leave each one, which of those the route takes, where the sources that feed it
stand, and the state scenarios change (entries removed, the middle kept clear, ...).

A junction the route only passes through without any choice (every lane into it leads to
one lane out, and every lane out comes from one lane in: a bend drawn as a junction) is no
junction here, as in ScenarioRunner's background activity; neither is the one the route
starts in. Consecutive junction spans of one map junction less than 2 m apart are one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scenarios.background.route import RouteFrame, lane_key, opposite_lanes, same_direction_lanes
from world.map.lane_enums import LaneType

__all__ = ["EntrySource", "ExitLane", "RouteJunction", "route_junctions"]

MERGE_GAP = 2.0  # m between two spans of the same junction that count as one
WALK_STEP = 1.0  # m per step out of a junction along a lane
WALK_LIMIT = 60  # steps
SOURCE_STEP = 5.0  # m per step from an entry back to its source


def _out_of_junction(wp: Any, forward: bool) -> Any | None:
    """The first waypoint outside any junction from `wp` along its lane (forward or back)."""
    for _ in range(WALK_LIMIT):
        if not wp.is_junction:
            return wp
        found = wp.next(WALK_STEP) if forward else wp.previous(WALK_STEP)
        if not found:
            return None
        wp = found[0]
    return None


@dataclass
class EntrySource:
    """A place upstream of an entry lane where vehicles appear to drive into the junction."""

    id: int
    wp: Any  # where vehicles appear
    key: tuple[str, int]  # the entry lane's
    location: Any  # wp's
    active: bool = True
    last: Any = None  # the vehicle it spawned last


@dataclass
class ExitLane:
    """A lane out of the junction: the vehicles that left by it (front-most first), how
    many it holds and how far past the exit they count as the junction's."""

    wp: Any
    key: tuple[str, int]
    route: bool  # the route leaves by this lane's road, going this way
    opposite: bool  # it runs back along the route's entry road
    location: Any  # wp's
    capacity: int = 0
    reach: float = 0.0
    spots: list = field(default_factory=list)  # where vehicles wait on it, farthest first
    vehicles: list = field(default_factory=list)


@dataclass
class RouteJunction:
    """One junction crossing of the route: topology, then the state while it is active."""

    ordinal: int
    junctions: list  # the map's Junction objects
    enter_index: int  # the route's last point before the junction
    exit_index: int  # its first point after (len(route) when the route ends inside)
    entries: list  # waypoints just before the junction, one per lane in
    exits: list  # waypoints just after, one per lane out
    route_entry_keys: list
    route_exit_keys: list
    opposite_exit_keys: list  # lanes out running back along the route's entry road
    boxes: np.ndarray  # (J, 4): x_min, x_max, y_min, y_max of each map junction's box
    # state, changed by scenarios through the background's knobs
    sources: list[EntrySource] = field(default_factory=list)
    exit_lanes: dict = field(default_factory=dict)
    clear_middle: bool = False
    stop_entries: bool = False
    inactive_entries: list = field(default_factory=list)
    inactive_exits: list = field(default_factory=list)
    exit_space: float = 0.0

    def inside(self, xy: np.ndarray) -> np.ndarray:
        """Which points (V, 2) lie in one of the junction's boxes."""
        out = np.zeros(len(xy), dtype=bool)
        for x0, x1, y0, y1 in self.boxes.tolist():
            out |= (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
        return out

    def entry_key_of(self, wp: Any) -> tuple[str, int] | None:
        """The junction's entry lane that `wp`'s lane leads into (walking forward)."""
        keys = [lane_key(e) for e in self.entries]
        for _ in range(WALK_LIMIT * 4):
            if wp.is_junction:
                return None
            if lane_key(wp) in keys:
                return lane_key(wp)
            found = wp.next(WALK_STEP)
            if not found:
                return None
            wp = found[0]
        return None

    def exit_key_of(self, wp: Any) -> tuple[str, int] | None:
        """The junction's exit lane that `wp`'s lane comes from (walking back)."""
        keys = [lane_key(e) for e in self.exits]
        for _ in range(WALK_LIMIT * 4):
            if wp.is_junction:
                return None
            if lane_key(wp) in keys:
                return lane_key(wp)
            found = wp.previous(WALK_STEP)
            if not found:
                return None
            wp = found[0]
        return None


def _maneuvers(junction: Any) -> list[tuple[Any, Any]]:
    """(entry, exit) waypoints outside the junction of each of its driving lanes."""
    out = []
    for start, end in junction.get_waypoints(LaneType.Driving):
        entry = _out_of_junction(start, forward=False)
        leave = _out_of_junction(end, forward=True)
        if entry is not None and leave is not None:
            out.append((entry, leave))
    return out


def _has_choices(maneuvers: list[tuple[Any, Any]]) -> bool:
    """Whether some lane in leads to two lanes out or some lane out comes from two in, or
    a road carries four or more of the junction's lanes (a highway's dedicated lanes)."""
    exits_of: dict[tuple, set] = {}
    entries_of: dict[tuple, set] = {}
    per_road: dict[str, int] = {}
    for entry, leave in maneuvers:
        a, b = lane_key(entry), lane_key(leave)
        exits_of.setdefault(a, set()).add(b)
        entries_of.setdefault(b, set()).add(a)
        per_road[a[0] + ">"] = per_road.get(a[0] + ">", 0) + 1
        per_road[b[0] + "<"] = per_road.get(b[0] + "<", 0) + 1
    if any(len(v) > 1 for v in exits_of.values()):
        return True
    if any(len(v) > 1 for v in entries_of.values()):
        return True
    return any(n >= 4 for n in per_road.values())


def _closest(wp: Any, candidates: list) -> Any | None:
    """The candidate on `wp`'s lane, else the nearest one."""
    key = lane_key(wp)
    for c in candidates:
        if lane_key(c) == key:
            return c
    if not candidates:
        return None
    here = wp.transform.location
    return min(candidates, key=lambda c: c.transform.location.distance(here))


def _spans(route: RouteFrame) -> list[tuple[int, int, Any]]:
    """(first, last) plan indices of each run of junction points, with its map junction."""
    spans: list[list] = []
    ids = route.junction
    k = 0
    n = len(ids)
    while k < n:
        if ids[k] < 0:
            k += 1
            continue
        start = k
        while k + 1 < n and ids[k + 1] == ids[start]:
            k += 1
        junction = route.waypoints[start].get_junction()
        if spans and spans[-1][2].id == junction.id:
            gap = route.accum[start] - route.accum[spans[-1][1]]
            if gap < MERGE_GAP:
                spans[-1][1] = k
                k += 1
                continue
        spans.append([start, k, junction])
        k += 1
    return [(a, b, j) for a, b, j in spans]


def route_junctions(route: RouteFrame) -> list[RouteJunction]:
    """The junctions the route crosses after its start, in order (bends left out)."""
    out: list[RouteJunction] = []
    for first, last, junction in _spans(route):
        if first == 0:
            continue  # the ego starts in it
        maneuvers = _maneuvers(junction)
        if not _has_choices(maneuvers):
            continue
        entries: dict[tuple, Any] = {}
        exits: dict[tuple, Any] = {}
        for entry, leave in maneuvers:
            entries.setdefault(lane_key(entry), entry)
            exits.setdefault(lane_key(leave), leave)
        both = set(entries) & set(exits)  # lanes joining two junctions: neither in nor out
        entry_wps = [wp for key, wp in entries.items() if key not in both]
        exit_wps = [wp for key, wp in exits.items() if key not in both]
        enter_index = first - 1
        exit_index = last + 1
        route_entry = route.waypoints[enter_index]
        route_entry_keys = [
            lane_key(c)
            for _, wp in same_direction_lanes(route_entry)
            if (c := _closest(wp, entry_wps)) is not None
        ]
        opposite_exit_keys = [
            lane_key(c)
            for wp in opposite_lanes(route_entry)
            if (c := _closest(wp, exit_wps)) is not None
        ]
        route_exit_keys: list = []
        if exit_index < len(route):
            route_exit = route.waypoints[exit_index]
            route_exit_keys = [
                lane_key(c)
                for _, wp in same_direction_lanes(route_exit)
                if (c := _closest(wp, exit_wps)) is not None
            ]
        box = junction.bounding_box
        c, e = box.location, box.extent
        boxes = np.array([[c.x - e.x, c.x + e.x, c.y - e.y, c.y + e.y]])
        out.append(
            RouteJunction(
                len(out),
                [junction],
                enter_index,
                exit_index,
                entry_wps,
                exit_wps,
                route_entry_keys,
                route_exit_keys,
                opposite_exit_keys,
                boxes,
            )
        )
    return out
