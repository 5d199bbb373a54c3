"""A driver written the way CARLA's own navigation agents are, against the `carla` API only.

It is client code for the tests of lockstep's `carla` namespace: a global route planner
(A* over `Map.get_topology()`, 1 m waypoint steps) and a local planner (PID on the speed,
PID on the heading error to a waypoint a few metres ahead), the two halves of CARLA's
BasicAgent. Nothing here reaches into lockstep's own modules.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

STEP = 1.0  # m between route waypoints, as CARLA's GlobalRoutePlanner samples


def _key(location) -> tuple[int, int, int]:
    return (round(location.x * 2), round(location.y * 2), round(location.z * 2))


def _lane(wp) -> tuple[int, int, int]:
    return (wp.road_id, wp.section_id, wp.lane_id)


def _ahead(wp, goal) -> bool:
    """Whether `goal` lies more than half a step ahead of `wp` along its heading."""
    forward = wp.transform.get_forward_vector()
    here, there = wp.transform.location, goal.transform.location
    return (there.x - here.x) * forward.x + (there.y - here.y) * forward.y > 0.5 * STEP


class RoutePlanner:
    """A* over the map's lane segments (topology entries and exits joined where they meet)."""

    def __init__(self, carla_map) -> None:
        self.map = carla_map
        self.segments = []  # (entry, exit, length)
        self.by_entry: dict[tuple[int, int, int], list[int]] = {}
        self.by_lane: dict[tuple[int, int, int], list[int]] = {}
        for entry, exit_ in carla_map.get_topology():
            index = len(self.segments)
            length = max(entry.transform.location.distance(exit_.transform.location), 0.1)
            self.segments.append((entry, exit_, length))
            self.by_entry.setdefault(_key(entry.transform.location), []).append(index)
            self.by_lane.setdefault(_lane(entry), []).append(index)

    def _segment_of(self, wp) -> int:
        found = self.by_lane.get(_lane(wp), [])
        if not found:
            raise LookupError(f"no topology segment for lane {_lane(wp)}")
        return min(found, key=lambda i: abs(self.segments[i][0].s - wp.s))

    def _successors(self, index: int) -> list[int]:
        return self.by_entry.get(_key(self.segments[index][1].transform.location), [])

    def plan(self, origin, destination) -> list:
        """Waypoints every STEP metres from origin to destination (carla.Location each)."""
        start = self.map.get_waypoint(origin)
        goal = self.map.get_waypoint(destination)
        first, last = self._segment_of(start), self._segment_of(goal)
        goal_xy = goal.transform.location
        frontier = [(0.0, 0.0, first, (first,))]
        best: dict[int, float] = {}  # the start segment may be reached again, round a loop
        path = None
        while frontier:
            _f, cost, index, trail = heapq.heappop(frontier)
            if index == last and (len(trail) > 1 or _ahead(start, goal)):
                path = trail
                break
            for nxt in self._successors(index):
                new_cost = cost + self.segments[index][2]
                if new_cost < best.get(nxt, math.inf):
                    best[nxt] = new_cost
                    h = self.segments[nxt][0].transform.location.distance(goal_xy)
                    heapq.heappush(frontier, (new_cost + h, new_cost, nxt, (*trail, nxt)))
        if path is None:
            raise LookupError("no route")
        return self._walk(start, goal, path)

    def _walk(self, start, goal, path) -> list:
        route = [start]
        wp = start
        for step, index in enumerate(path):
            lane = _lane(self.segments[index][0])
            upcoming = _lane(self.segments[path[step + 1]][0]) if step + 1 < len(path) else None
            for _ in range(100000):
                if step == len(path) - 1 and _lane(wp) == _lane(goal) and not _ahead(wp, goal):
                    return route
                options = wp.next(STEP)
                if not options:
                    break
                same = [o for o in options if _lane(o) == lane]
                onward = [o for o in options if upcoming is not None and _lane(o) == upcoming]
                if same:
                    wp = same[0]
                elif onward:
                    wp = onward[0]
                    route.append(wp)
                    break
                else:
                    break
                route.append(wp)
        return route


@dataclass
class PID:
    kp: float
    ki: float
    kd: float
    dt: float
    _integral: float = 0.0
    _last: float | None = None

    def step(self, error: float) -> float:
        self._integral = max(-40.0, min(40.0, self._integral + error * self.dt))
        derivative = 0.0 if self._last is None else (error - self._last) / self.dt
        self._last = error
        return self.kp * error + self.ki * self._integral + self.kd * derivative


@dataclass
class Drive:
    """Follows a planned route at `speed_kmh`: BasicAgent's local planner, in short."""

    carla: object
    vehicle: object
    route: list
    speed_kmh: float = 30.0
    dt: float = 0.05
    lookahead: float = 4.0
    _next: int = 0
    _speed_pid: PID = field(init=False)
    _steer_pid: PID = field(init=False)

    def __post_init__(self) -> None:
        self._speed_pid = PID(1.0, 0.05, 0.0, self.dt)
        self._steer_pid = PID(1.95, 0.05, 0.2, self.dt)

    def done(self) -> bool:
        return self._next >= len(self.route) - 1 and self._distance_to_end() < 2.0

    def _distance_to_end(self) -> float:
        return self.vehicle.get_location().distance(self.route[-1].transform.location)

    def run_step(self):
        carla = self.carla
        here = self.vehicle.get_location()
        while self._next < len(self.route) - 1:
            if here.distance(self.route[self._next].transform.location) > self.lookahead:
                break
            self._next += 1
        target = self.route[self._next].transform.location
        transform = self.vehicle.get_transform()
        forward = transform.get_forward_vector()
        to_target = carla.Vector3D(target.x - here.x, target.y - here.y, 0.0)
        norm = math.hypot(to_target.x, to_target.y)
        angle = 0.0
        if norm > 1e-6:
            cross = forward.x * to_target.y - forward.y * to_target.x
            dot = (forward.x * to_target.x + forward.y * to_target.y) / norm
            angle = math.copysign(math.acos(max(-1.0, min(1.0, dot))), cross)
        steer = max(-0.8, min(0.8, self._steer_pid.step(angle)))
        v = self.vehicle.get_velocity()
        speed = 3.6 * math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z)
        wanted = self.speed_kmh
        remaining = self._distance_to_end()
        if self._next >= len(self.route) - 3:
            wanted = min(wanted, 3.6 * 0.5 * remaining + 3.0)
        if self.done():
            return carla.VehicleControl(throttle=0.0, steer=0.0, brake=1.0)
        acceleration = self._speed_pid.step((wanted - speed) / 10.0)
        if acceleration >= 0.0:
            return carla.VehicleControl(throttle=min(acceleration, 0.75), steer=steer, brake=0.0)
        return carla.VehicleControl(throttle=0.0, steer=steer, brake=min(-acceleration, 0.3))
