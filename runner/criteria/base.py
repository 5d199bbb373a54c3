"""What every criterion shares: the tick it is updated with, its status and events, and the
route geometry several of them walk along."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from runner.scoring.errors import ScoringError
from runner.scoring.events import TrafficEvent
from world.geometry import Location, Rotation, Transform, Vector3D
from world.map.lane_enums import LaneType
from world.map.waypoint import Waypoint


class LaneSpot(NamedTuple):
    """The lane nearest a point: its waypoint, and the nearest point of the lane centre on
    the map's lane polyline (within about a centimetre of the exact centre, and far cheaper
    than `waypoint.transform`), with the polyline's yaw there; `inside` says whether the
    point is within half the lane's width of that centre point (plan view). A named tuple:
    one or two are made a tick, and a frozen dataclass's init costs several times more."""

    waypoint: Waypoint
    location: Location
    yaw: float
    inside: bool


def lane_spot(map_: Any, location: Vector3D, lane_type: LaneType) -> LaneSpot | None:
    """The nearest lane of `lane_type` to `location`, None when the map has none."""
    point = map_.project_point(location.x, location.y, location.z, lane_type)
    if point is None:
        return None
    road, section, lane = map_.lane_keys[point.node]
    waypoint = Waypoint(map_, road, section, lane, point.s)
    return LaneSpot(waypoint, Location(*point.location), point.yaw, point.inside)


class TickView:
    """The ego and the clock after one world tick: what ScenarioRunner's data provider caches
    once a tick. `speed` is the planar speed (m/s), as the data provider computes it.

    A plain class with slots, made once a tick: a frozen dataclass's init (one
    object.__setattr__ a field) cost several times as much, and nothing compares or copies it.
    """

    __slots__ = (
        "_lanes",
        "ego",
        "frame",
        "location",
        "speed",
        "time",
        "transform",
        "velocity",
        "world",
    )

    def __init__(
        self,
        world: Any,
        ego: Any,
        frame: int,
        time: float,
        transform: Transform,
        velocity: Vector3D,
        speed: float,
    ) -> None:
        self.world = world
        self.ego = ego
        self.frame = frame
        self.time = time
        self.transform = transform
        self.location: Location = transform.location
        self.velocity = velocity
        self.speed = speed
        self._lanes: dict = {}

    def lane(self, lane_type: LaneType = LaneType.Driving) -> LaneSpot | None:
        """The ego's nearest lane of `lane_type`, looked up once a tick for all criteria."""
        lanes = self._lanes
        if lane_type not in lanes:
            lanes[lane_type] = lane_spot(self.world.get_map(), self.location, lane_type)
        return lanes[lane_type]

    @classmethod
    def capture(cls, world: Any, ego: Any) -> TickView:
        """Read the ego and the world's clock now (call it once per tick, after world.tick):
        `get_velocity()` and `get_transform()`'s numbers, read from the actor table's row
        (row = id - 1, world.state) with one `tolist` a column."""
        stamp = world.clock()
        actors = world.state_tables().actors
        row = ego.id - 1
        vx, vy, vz = actors.vel[row].tolist()
        x, y, z = actors.pos[row].tolist()
        pitch, yaw, roll = actors.rot[row].tolist()
        velocity = Vector3D(vx, vy, vz)
        transform = Transform(Location(x, y, z), Rotation(pitch, yaw, roll))
        speed = math.sqrt(vx * vx + vy * vy)
        return cls(world, ego, stamp.frame, stamp.elapsed_seconds, transform, velocity, speed)


class Criterion:
    """A test of the ego over a route: `update` once per tick, `terminate` once at the end.

    `test_status` is INIT, RUNNING, SUCCESS or FAILURE; `events` are the traffic events the
    statistics score. `stops_route` becomes True when this criterion ends the route (route
    completed, or a failure of a criterion that terminates on failure).
    """

    name = "Criterion"
    terminate_on_failure = False

    def __init__(self) -> None:
        self.test_status = "INIT"
        self.events: list[TrafficEvent] = []
        self.stops_route = False

    def update(self, tick: TickView) -> None:
        """Look at this tick."""

    def terminate(self, tick: TickView | None) -> None:
        """The route ended (any reason): a criterion still open succeeds."""
        if self.test_status in ("RUNNING", "INIT"):
            self.test_status = "SUCCESS"

    def _fail_stops(self) -> None:
        if self.terminate_on_failure and self.test_status == "FAILURE":
            self.stops_route = True


def at_text(location: Vector3D) -> str:
    """`(x=…, y=…, z=…)` with each coordinate rounded to 3 decimals, as the messages print it."""
    return f"(x={round(location.x, 3)}, y={round(location.y, 3)}, z={round(location.z, 3)})"


class RoutePath:
    """A dense route (one Transform per point, ~1 m apart): the points, their forward vectors,
    and the metres from the start to each point (carla's float32 point distances, summed)."""

    @classmethod
    def of(cls, route: Sequence[Transform] | RoutePath) -> RoutePath:
        """`route` itself when it is a RoutePath already (one path shared by the route's
        criteria), else the path of its transforms."""
        return route if isinstance(route, RoutePath) else cls(route)

    def __init__(self, transforms: Sequence[Transform]) -> None:
        if len(transforms) < 2:
            raise ScoringError(f"route: the criteria need at least 2 points, got {len(transforms)}")
        self.transforms = list(transforms)
        self.locations = [t.location for t in self.transforms]
        self.forwards = [t.get_forward_vector() for t in self.transforms]
        # each point's x, y, z and forward vector's x, y, z, as plain floats
        self.points = [
            (p.x, p.y, p.z, f.x, f.y, f.z)
            for p, f in zip(self.locations, self.forwards, strict=True)
        ]
        xyz = np.array([[p.x, p.y, p.z] for p in self.locations], dtype=np.float32)
        d = xyz[1:] - xyz[:-1]
        squared = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
        squared = squared + d[:, 2] * d[:, 2]
        accum = [0.0]
        for segment in np.sqrt(squared).tolist():
            accum.append(accum[-1] + segment)
        self.accum = accum

    def __len__(self) -> int:
        return len(self.transforms)

    def last_passed(self, first: int, count: int, location: Vector3D) -> int:
        """The last of the `count` points from `first` that `location` is past (ahead of the
        point along its forward vector: Vector3D's difference and dot product, worked on
        plain floats in their order), -1 when none: the windows the criteria look through
        each tick, in one call."""
        x, y, z = location.x, location.y, location.z
        plain = self.points
        found = -1
        for index in range(first, min(first + count, len(plain))):
            px, py, pz, fx, fy, fz = plain[index]
            if (x - px) * fx + (y - py) * fy + (z - pz) * fz > 0:
                found = index
        return found


SCREEN_REACH = 10.0  # m the location may move from a NearScreen's anchor before it looks again
SCREEN_SLACK = 1e-3  # m kept from the reach: far above the rounding of the distances


class NearScreen:
    """Which of some fixed points may lie within `radius` of a moving location, without a
    distance to each of them every tick: from an anchor (the location where it last looked),
    the points farther than `radius` + SCREEN_REACH are out of reach while the location
    stays within SCREEN_REACH of the anchor (the triangle inequality), so only the others
    (`candidates`, in the points' order) need their exact distance. A criterion that ran its
    exact test over every point gets the same answers from the candidates alone."""

    def __init__(self, points: Sequence[Vector3D], radius: float) -> None:
        self._points = [(p.x, p.y, p.z) for p in points]
        self._radius = radius
        self._anchor: tuple[float, float, float] | None = None
        self._candidates: list[int] = []
        self._zone_squared = (SCREEN_REACH - SCREEN_SLACK) ** 2

    def candidates(self, location: Vector3D) -> list[int]:
        """Indices of the points that may be within `radius` of `location`."""
        x, y, z = location.x, location.y, location.z
        anchor = self._anchor
        if anchor is not None:
            dx, dy, dz = x - anchor[0], y - anchor[1], z - anchor[2]
            if dx * dx + dy * dy + dz * dz < self._zone_squared:
                return self._candidates
        reach = self._radius + SCREEN_REACH
        self._anchor = (x, y, z)
        self._candidates = [
            i
            for i, (px, py, pz) in enumerate(self._points)
            if not math.sqrt((px - x) ** 2 + (py - y) ** 2 + (pz - z) ** 2) > reach
        ]
        return self._candidates
