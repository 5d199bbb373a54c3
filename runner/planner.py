"""The global route planner: CARLA's GlobalRoutePlanner over a lockstep Map.

Behaviour follows CARLA's `agents.navigation.global_route_planner` (0.9.x):
the map's topology gives one edge per lane, from its entry to its exit, each
node a location rounded to the metre; a lane's path is sampled every
`sampling` metres with `Waypoint.next`; dead-end lanes get an edge to their last
sample; lane changes the markings allow add zero-length edges to the lane
beside. A* (edge weight: samples + 1; heuristic: straight-line distance
between nodes; ties broken by push order) finds the node sequence, and the
trace walks it, giving each point a RoadOption: LANEFOLLOW along lanes, and
at a junction LEFT, RIGHT or STRAIGHT from the exit vectors' cross product.
`interpolate_trajectory` chains trace_route over consecutive key points, as
the leaderboard's route_manipulation does, and gives the GPS plan too.
"""

from __future__ import annotations

import heapq
import itertools
import math
import weakref
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from runner.errors import RunnerError
from world import elementary as el
from world.geometry import Location, Rotation, Transform, xyz_distance
from world.map.geolocation import geo_origin
from world.map.lane_enums import LaneChange, LaneType, lane_change_from_odr

__all__ = [
    "GlobalRoutePlanner",
    "RoadOption",
    "gps_plan",
    "interpolate_trajectory",
    "location_to_gps",
    "route_plan",
]

EARTH_RADIUS_EQUA = 6378137.0
TURN_THRESHOLD = math.radians(35.0)
# m: a vectorised lane-centre distance this close to a sampling threshold is taken again
# from the exact pose (the two agree to ~1e-13 m on the project's and CARLA's maps)
SCREEN_MARGIN = 1e-6
# steps past a lane's end walked with its own (a topology lane's samples end about there),
# and at most this many in all (a lane whose first successor is itself never ends)
PAST_LANE_END = 4
FIRST_STEPS_MAX = 4096


class RoadOption(IntEnum):
    """CARLA's agents.navigation.local_planner.RoadOption."""

    VOID = -1
    LEFT = 1
    RIGHT = 2
    STRAIGHT = 3
    LANEFOLLOW = 4
    CHANGELANELEFT = 5
    CHANGELANERIGHT = 6

    def __str__(self) -> str:
        return self.name


@dataclass
class _Edge:
    length: int
    path: list
    entry_waypoint: Any
    exit_waypoint: Any
    entry_vector: np.ndarray | None
    exit_vector: np.ndarray | None
    net_vector: np.ndarray | None
    intersection: bool
    type: RoadOption
    # screening centres (Map.centre_locations) of entry, path and exit, made on first use
    centres: np.ndarray | None = None


def _vector(a: Location, b: Location) -> np.ndarray:
    """The unit vector from a to b (CARLA's agents.tools.misc.vector)."""
    x, y, z = b.x - a.x, b.y - a.y, b.z - a.z
    norm = math.sqrt(x * x + y * y + z * z) + np.finfo(float).eps
    return np.array([x / norm, y / norm, z / norm])


def _forward(waypoint) -> np.ndarray:
    v = waypoint.transform.rotation.get_forward_vector()
    return np.array([v.x, v.y, v.z])


def _key(waypoint) -> tuple:
    return (waypoint.road_id, waypoint.section_id, waypoint.lane_id)


def _lane_steps(first, distance: float) -> list:
    """`first` and the waypoints `distance` metres apart after it to the end of its lane and
    PAST_LANE_END more (the first branch at a fork), fewer where the lanes end, and no more
    than FIRST_STEPS_MAX."""
    steps, past = [first], 0
    while past < PAST_LANE_END and len(steps) < FIRST_STEPS_MAX:
        ahead = steps[-1].next(distance)
        if not ahead:
            break
        steps.append(ahead[0])
        past += ahead[0].key != first.key
    return steps


def _steps(first, distance: float, count: int) -> list:
    """`first` and the waypoints `distance` metres apart after it along its lanes (the first
    branch at a fork), `count` in all or fewer where the lanes end."""
    steps = [first]
    while len(steps) < count:
        ahead = steps[-1].next(distance)
        if not ahead:
            break
        steps.append(ahead[0])
    return steps


class GlobalRoutePlanner:
    """Routes between locations of `world_map`, sampled every `sampling` metres."""

    def __init__(self, world_map, sampling: float = 1.0) -> None:
        self._map = world_map
        self._sampling = float(sampling)
        self._topology: list[dict] = []
        self._nodes: dict[tuple, int] = {}
        self._vertex: list[tuple] = []
        self._edges: dict[int, dict[int, _Edge]] = {}
        self._road_to_edge: dict[tuple, tuple[int, int]] = {}
        self._loose_vertex: dict[int, tuple] = {}
        self._previous_decision = RoadOption.VOID
        self._intersection_end_node = -1
        self._changes: dict[tuple, bool] = {}
        self._build_topology()
        self._build_graph()
        self._find_loose_ends()
        self._lane_change_link()

    # -- building the graph ----------------------------------------------------------------

    def _build_topology(self) -> None:
        """One segment per topology pair, in the map's order; a pair whose ends lie more than
        `sampling` apart is sampled along its lane (all such lanes at once, _sample_lanes)."""
        res = self._sampling
        shared: dict[tuple, Any] = {}
        pending: list[tuple[dict, Any, Location]] = []
        for pair in self._map.get_topology():
            # a lane start is the exit of each lane before it and the entry of its own pairs:
            # one Waypoint for it, so its pose is worked out once
            wp1, wp2 = (shared.setdefault((w.key, w.s), w) for w in pair)
            l1, l2 = wp1.transform.location, wp2.transform.location
            seg = {
                "entry": wp1,
                "exit": wp2,
                "entryxyz": tuple(float(v) for v in np.round([l1.x, l1.y, l1.z], 0)),
                "exitxyz": tuple(float(v) for v in np.round([l2.x, l2.y, l2.z], 0)),
                "path": [],
            }
            if l1.distance(l2) > res:
                pending.append((seg, wp1.next(res)[0], l2))
            else:
                ahead = wp1.next(res)
                if not ahead:
                    continue
                seg["path"].append(ahead[0])
            self._topology.append(seg)
        self._sample_lanes(pending)

    def _sample_lanes(self, pending: list[tuple[dict, Any, Location]]) -> None:
        """Each pending segment's path: CARLA's sampling of its lane (_sample_lane) from its
        first step to its exit location. The steps to the end of every lane and a few past
        it have their centres screened in one batch (one numpy evaluation per lane section
        of the map, not one per lane)."""
        walks = [_lane_steps(first, self._sampling) for _, first, _ in pending]
        centres = self._map.centre_locations([w for steps in walks for w in steps])
        at = 0
        for (seg, _, end), steps in zip(pending, walks, strict=True):
            seg["path"] = self._sample_lane(steps, centres[at : at + len(steps)], end)
            at += len(steps)

    def _sample_lane(self, steps: list, centres: np.ndarray, end: Location) -> list:
        """CARLA's sampling of one topology lane: the first of `steps`, then a step of
        `sampling` metres at a time, while the point is more than `sampling` metres from the
        lane's `end`. `steps` (with their lane `centres`) are the first ones; more are walked
        with `Waypoint.next` in batches when they run out.

        The distances to `end` are screened on the map's vectorised lane centres; only a
        distance within SCREEN_MARGIN of the threshold takes the exact waypoint pose, so the
        samples are the ones the exact poses give, at a tiny fraction of the cost."""
        res = self._sampling
        path: list = []
        target = np.array([end.x, end.y, end.z])
        while True:
            offsets = centres - target
            squared = offsets[:, 0] * offsets[:, 0] + offsets[:, 1] * offsets[:, 1]
            distances = np.sqrt(squared + offsets[:, 2] * offsets[:, 2]).tolist()
            for waypoint, distance in zip(steps, distances, strict=True):
                if abs(distance - res) <= SCREEN_MARGIN:
                    far = waypoint.transform.location.distance(end) > res
                else:
                    far = distance > res
                if not far:
                    return path
                path.append(waypoint)
            ahead = steps[-1].next(res)
            if not ahead:
                return path
            steps = _steps(ahead[0], res, 16)
            centres = self._map.centre_locations(steps)

    def _node(self, vertex: tuple) -> int:
        if vertex not in self._nodes:
            self._nodes[vertex] = len(self._vertex)
            self._vertex.append(vertex)
            self._edges[self._nodes[vertex]] = {}
        return self._nodes[vertex]

    def _add_edge(self, n1: int, n2: int, edge: _Edge) -> None:
        self._edges[n1][n2] = edge

    def _build_graph(self) -> None:
        for seg in self._topology:
            n1, n2 = self._node(seg["entryxyz"]), self._node(seg["exitxyz"])
            entry, exit_ = seg["entry"], seg["exit"]
            self._road_to_edge[_key(entry)] = (n1, n2)
            self._add_edge(
                n1,
                n2,
                _Edge(
                    len(seg["path"]) + 1,
                    seg["path"],
                    entry,
                    exit_,
                    _forward(entry),
                    _forward(exit_),
                    _vector(entry.transform.location, exit_.transform.location),
                    bool(entry.is_junction),
                    RoadOption.LANEFOLLOW,
                ),
            )

    def _find_loose_ends(self) -> None:
        """Lanes whose exit starts no lane of the topology (dead ends) get an edge to a node of
        their own, numbered -1, -2, ... as CARLA numbers them."""
        count = 0
        res = self._sampling
        for seg in self._topology:
            end_wp = seg["exit"]
            key = _key(end_wp)
            if key in self._road_to_edge:
                continue
            count += 1
            n1, n2 = self._nodes[seg["exitxyz"]], -count
            self._road_to_edge[key] = (n1, n2)
            path = []
            ahead = end_wp.next(res)
            while ahead and _key(ahead[0]) == key:
                path.append(ahead[0])
                ahead = ahead[0].next(res)
            if path:
                last = path[-1].transform.location
                self._loose_vertex[n2] = (last.x, last.y, last.z)
                self._edges[n2] = {}
                edge = _Edge(
                    len(path) + 1,
                    path,
                    end_wp,
                    path[-1],
                    None,
                    None,
                    None,
                    bool(end_wp.is_junction),
                    RoadOption.LANEFOLLOW,
                )
                self._add_edge(n1, n2, edge)

    def _lane_change_link(self) -> None:
        for seg in self._topology:
            left_found = right_found = False
            for waypoint in seg["path"]:
                if not seg["entry"].is_junction:
                    right_found = right_found or self._link(
                        seg, waypoint, "right", RoadOption.CHANGELANERIGHT, right_found
                    )
                    left_found = left_found or self._link(
                        seg, waypoint, "left", RoadOption.CHANGELANELEFT, left_found
                    )
                if left_found and right_found:
                    break

    def _may_change(self, key: tuple, side: str) -> bool:
        """Whether any road mark of the lane `key` (right) or of its inner neighbour (left)
        allows the change: when none does, no waypoint of that lane can link that side,
        and its markings need not be looked up point by point."""
        cached = self._changes.get((key, side))
        if cached is None:
            road, index, lane = key
            if side == "left":
                lane = lane + 1 if lane < 0 else lane - 1
            lanes = self._map.opendrive.roads[road].lane_sections[index].lanes
            marks = lanes[lane].road_marks if lane in lanes else []
            allowed = LaneChange.Right if side == "right" else LaneChange.Left
            cached = any(lane_change_from_odr(m.lane_change) & allowed for m in marks)
            self._changes[(key, side)] = cached
        return cached

    def _link(self, seg: dict, waypoint, side: str, option: RoadOption, found: bool) -> bool:
        if found:
            return True
        if not self._may_change(waypoint.key, side):
            return False
        marking = getattr(waypoint, f"{side}_lane_marking")
        allowed = LaneChange.Right if side == "right" else LaneChange.Left
        if marking is None or not (marking.lane_change & allowed):
            return False
        beside = waypoint.get_right_lane() if side == "right" else waypoint.get_left_lane()
        if beside is None or beside.lane_type != LaneType.Driving:
            return False
        if beside.road_id != waypoint.road_id:
            return False
        target = self._localize(beside.transform.location)
        if target is None:
            return False
        edge = _Edge(0, [], waypoint, beside, None, None, None, False, option)
        self._add_edge(self._nodes[seg["entryxyz"]], target[0], edge)
        return True

    # -- search ----------------------------------------------------------------------------

    def _vertex_of(self, node: int) -> tuple:
        return self._vertex[node] if node >= 0 else self._loose_vertex[node]

    def _localize(self, location: Location) -> tuple[int, int] | None:
        waypoint = self._map.get_waypoint(location)
        if waypoint is None:
            return None
        return self._road_to_edge.get(_key(waypoint))

    def _heuristic(self, n1: int, n2: int) -> float:
        a, b = self._vertex_of(n1), self._vertex_of(n2)
        return math.sqrt(sum((x - y) * (x - y) for x, y in zip(a, b, strict=True)))

    def _astar(self, source: int, target: int) -> list[int]:
        counter = itertools.count()
        queue = [(0.0, next(counter), source, 0, None)]
        enqueued: dict[int, tuple[float, float]] = {}
        explored: dict[int, int | None] = {}
        while queue:
            _, _, node, dist, parent = heapq.heappop(queue)
            if node == target:
                path = [node]
                back = parent
                while back is not None:
                    path.append(back)
                    back = explored[back]
                return path[::-1]
            if node in explored:
                if explored[node] is None:
                    continue
                if enqueued[node][0] < dist:
                    continue
            explored[node] = parent
            for neighbour, edge in self._edges[node].items():
                cost = dist + edge.length
                if neighbour in enqueued:
                    queued, h = enqueued[neighbour]
                    if queued <= cost:
                        continue
                else:
                    h = self._heuristic(neighbour, target)
                enqueued[neighbour] = (cost, h)
                heapq.heappush(queue, (cost + h, next(counter), neighbour, cost, node))
        raise RunnerError(f"route planner: no path from node {source} to node {target}")

    def _path_search(self, origin: Location, destination: Location) -> list[int]:
        start, end = self._localize(origin), self._localize(destination)
        for name, found, loc in (("start", start, origin), ("end", end, destination)):
            if found is None:
                raise RunnerError(
                    f"route planner: the route's {name} ({loc.x:.2f}, {loc.y:.2f}, {loc.z:.2f})"
                    " is not on a driving lane of the map"
                )
        route = self._astar(start[0], end[0])
        route.append(end[1])
        return route

    # -- turn decisions --------------------------------------------------------------------

    def _successive_last_intersection_edge(self, index: int, route: list[int]):
        last_edge = None
        last_node = None
        for n1, n2 in zip(route[index:-1], route[index + 1 :], strict=True):
            candidate = self._edges[n1][n2]
            if n1 == route[index]:
                last_edge = candidate
            if candidate.type == RoadOption.LANEFOLLOW and candidate.intersection:
                last_edge = candidate
                last_node = n2
            else:
                break
        return last_node, last_edge

    def _turn_decision(self, index: int, route: list[int]) -> RoadOption:
        decision = None
        previous, current, following = route[index - 1], route[index], route[index + 1]
        next_edge = self._edges[current][following]
        if index > 0:
            if (
                self._previous_decision != RoadOption.VOID
                and self._intersection_end_node is not None
                and self._intersection_end_node > 0
                and self._intersection_end_node != previous
                and next_edge.type == RoadOption.LANEFOLLOW
                and next_edge.intersection
            ):
                decision = self._previous_decision
            else:
                self._intersection_end_node = -1
                current_edge = self._edges[previous][current]
                turning = (
                    current_edge.type == RoadOption.LANEFOLLOW
                    and not current_edge.intersection
                    and next_edge.type == RoadOption.LANEFOLLOW
                    and next_edge.intersection
                )
                if turning:
                    last_node, tail = self._successive_last_intersection_edge(index, route)
                    self._intersection_end_node = last_node
                    if tail is not None:
                        next_edge = tail
                    cv, nv = current_edge.exit_vector, next_edge.exit_vector
                    if cv is None or nv is None:
                        return next_edge.type
                    crosses = []
                    for neighbour, select in self._edges[current].items():
                        if select.type == RoadOption.LANEFOLLOW and neighbour != following:
                            crosses.append(float(np.cross(cv, select.net_vector)[2]))
                    next_cross = float(np.cross(cv, nv)[2])
                    cosine = float(np.dot(cv, nv)) / (
                        float(np.linalg.norm(cv)) * float(np.linalg.norm(nv))
                    )
                    deviation = el.acos(min(max(cosine, -1.0), 1.0))
                    if not crosses:
                        crosses.append(0.0)
                    if deviation < TURN_THRESHOLD:
                        decision = RoadOption.STRAIGHT
                    elif next_cross < min(crosses):
                        decision = RoadOption.LEFT
                    elif next_cross > max(crosses):
                        decision = RoadOption.RIGHT
                    elif next_cross < 0:
                        decision = RoadOption.LEFT
                    elif next_cross > 0:
                        decision = RoadOption.RIGHT
                else:
                    decision = next_edge.type
        else:
            decision = next_edge.type
        self._previous_decision = decision
        return decision

    # -- the trace -------------------------------------------------------------------------

    def _edge_centres(self, edge: _Edge) -> np.ndarray:
        """The screening centres of the edge's entry, path and exit (made on first use)."""
        if edge.centres is None:
            points = [edge.entry_waypoint, *edge.path, edge.exit_waypoint]
            edge.centres = self._map.centre_locations(points)
        return edge.centres

    @staticmethod
    def _closest(waypoint, candidates: list, centres: np.ndarray) -> int:
        """The index of the candidate nearest `waypoint` (the first on a tie), on the exact
        lane centres. The candidates' screening `centres` rule out those farther than the
        nearest by more than twice SCREEN_MARGIN; only the others take their exact pose."""
        here = waypoint.centre_xyz()
        offsets = centres - np.array(here)
        screened = np.sqrt(
            offsets[:, 0] * offsets[:, 0]
            + offsets[:, 1] * offsets[:, 1]
            + offsets[:, 2] * offsets[:, 2]
        )
        # fmin skips a NaN, and `not >` keeps it: a NaN centre is measured exactly
        limit = np.fmin.reduce(screened) + 2.0 * SCREEN_MARGIN
        best, index = float("inf"), -1
        for i in np.flatnonzero(~(screened > limit)).tolist():
            d = xyz_distance(*candidates[i].centre_xyz(), *here)
            if d < best:
                best, index = d, i
        return index

    def trace_route(self, origin: Location, destination: Location) -> list[tuple[Any, RoadOption]]:
        """(waypoint, RoadOption) every `sampling` metres from origin to destination."""
        trace: list[tuple[Any, RoadOption]] = []
        route = self._path_search(origin, destination)
        current = self._map.get_waypoint(origin)
        goal = self._map.get_waypoint(destination)
        for i in range(len(route) - 1):
            option = self._turn_decision(i, route)
            edge = self._edges[route[i]][route[i + 1]]
            if edge.type not in (RoadOption.LANEFOLLOW, RoadOption.VOID):
                trace.append((current, option))
                n1, n2 = self._road_to_edge[_key(edge.exit_waypoint)]
                after = self._edges[n1][n2]
                if after.path:
                    centres = self._edge_centres(after)[1:-1]
                    k = min(len(after.path) - 1, self._closest(current, after.path, centres) + 5)
                    current = after.path[k]
                else:
                    current = after.exit_waypoint
                trace.append((current, option))
                continue
            path = [edge.entry_waypoint, *edge.path, edge.exit_waypoint]
            centres = self._edge_centres(edge)
            start = self._closest(current, path, centres)
            for waypoint in path[start:]:
                current = waypoint
                trace.append((current, option))
                last_edge = len(route) - i <= 2
                if last_edge and waypoint.transform.location.distance(destination) < (
                    2 * self._sampling
                ):
                    break
                if (
                    last_edge
                    and _key(current) == _key(goal)
                    and start > self._closest(goal, path, centres)
                ):
                    break
        return trace


def interpolate_trajectory(
    world_map, points: list[Location], sampling: float = 1.0, planner=None
) -> list[tuple[Transform, RoadOption]]:
    """The dense route through `points`: trace_route between each consecutive pair, as
    the leaderboard's interpolate_trajectory builds `scenario.route`."""
    grp = planner if planner is not None else GlobalRoutePlanner(world_map, sampling)
    route: list[tuple[Transform, RoadOption]] = []
    for a, b in itertools.pairwise(points):
        for waypoint, option in grp.trace_route(a, b):
            route.append((waypoint.transform, option))
    return route


PLANS_KEPT = 64  # the plans a planner keeps (route_plan), the oldest forgotten first
_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def route_plan(
    world_map, points: list[Location], planner: GlobalRoutePlanner
) -> list[tuple[Transform, RoadOption]]:
    """interpolate_trajectory's plan through `points`, kept by the planner for the process's
    life: a route's repetitions (and routes through the same key points) trace it once.
    The plan holds the numbers, and each call gets Transforms of its own (an agent may move
    its plan's points): the bits of a trace's, which `Waypoint.transform` builds the same
    way from the same six numbers."""
    kept = _PLANS.get(planner)
    if kept is None:
        kept = _PLANS[planner] = {}
    key = tuple((p.x, p.y, p.z) for p in points)
    poses = kept.get(key)
    if poses is None:
        plan = interpolate_trajectory(world_map, points, planner=planner)
        if len(kept) >= PLANS_KEPT:
            del kept[next(iter(kept))]
        kept[key] = [
            (t.location.x, t.location.y, t.location.z, t.rotation.pitch, t.rotation.yaw,
             t.rotation.roll, option)
            for t, option in plan
        ]  # fmt: skip
        return plan
    return [
        (Transform(Location(x, y, z), Rotation(pitch, yaw, roll)), option)
        for x, y, z, pitch, yaw, roll, option in poses
    ]


def location_to_gps(lat_ref: float, lon_ref: float, location: Location) -> dict[str, float]:
    """CARLA's Mercator conversion of a world location (the leaderboard's _location_to_gps)."""
    scale = el.cos(lat_ref * math.pi / 180.0)
    mx = scale * lon_ref * math.pi * EARTH_RADIUS_EQUA / 180.0
    my = scale * EARTH_RADIUS_EQUA * el.log(el.tan((90.0 + lat_ref) * math.pi / 360.0))
    mx += location.x
    my -= location.y
    lon = mx * 180.0 / (math.pi * EARTH_RADIUS_EQUA * scale)
    lat = 360.0 * el.atan(el.exp(my / (EARTH_RADIUS_EQUA * scale))) / math.pi - 90.0
    return {"lat": lat, "lon": lon, "z": location.z}


def gps_plan(world_map, route: list[tuple[Transform, RoadOption]]) -> list[tuple[dict, RoadOption]]:
    """The route as ({'lat', 'lon', 'z'}, RoadOption), through the map's geo reference."""
    origin = geo_origin(world_map.opendrive.header.geo_reference or None)
    return [
        (location_to_gps(origin.latitude, origin.longitude, tf.location), option)
        for tf, option in route
    ]
