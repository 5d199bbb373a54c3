"""The AI walkers' compiled kernels against the numpy forms they replace, bit for bit, and a
step into a vehicle's box worked by hand."""

from __future__ import annotations

import heapq
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from world import Map
from world import elementary as el
from world.kernels.array_table import ArrayTable
from world.traffic.walkers.ai import (
    ARRIVAL_PASSES,
    ARRIVE_RADIUS,
    STEP_AHEAD,
    VEHICLE_REACH,
    WALKER_CONSTANTS,
    WALKER_LOOK_AHEAD,
    WALKER_MARGIN,
    WALKER_RADIUS,
)
from world.traffic.walkers.kernels import DEAD, STEER_TABLE_KINDS, STEERED, route, steer_table
from world.traffic.walkers.navigation import WalkerNavigation

TOWN_SMALL = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"


class Scene:
    """Actor columns (cars first, then walkers and their controllers) and the walkers' routes,
    laid out as the world's tables and WalkerAISystem hold them."""

    def __init__(self, cars: int, walkers: int, rng: np.random.Generator) -> None:
        n = cars + 2 * walkers
        self.n = n
        self.alive = np.ones(n + 3, dtype=np.bool_)  # spare rows past n, as a table's capacity
        self.pos = np.zeros((n + 3, 3))
        self.rot = np.zeros((n + 3, 3))
        self.extent = np.zeros((n + 3, 3))
        self.vrow = np.full(n + 3, -1, dtype=np.int32)
        self.wrow = np.full(n + 3, -1, dtype=np.int32)
        self.pos[:n, :2] = rng.uniform(0.0, 25.0, (n, 2))
        self.pos[:n, 2] = rng.uniform(0.0, 1.0, n)
        self.rot[:cars, 1] = rng.uniform(-180.0, 180.0, cars)
        self.extent[:cars] = (2.4, 1.0, 0.8)
        self.vrow[:cars] = np.arange(cars)
        self.walker = np.arange(cars, cars + walkers, dtype=np.int64)
        self.controller = self.walker + walkers
        self.wrow[self.walker] = np.arange(walkers)[::-1]  # table rows need not follow actors
        self.routes = []
        for row in self.walker.tolist():
            points = self.pos[row] + rng.uniform(-3.0, 3.0, (4, 3))
            if rng.random() < 0.4:  # first point within ARRIVE_RADIUS: the walker passes it
                points[0] = self.pos[row] + (0.3, -0.2, 0.0)
            if rng.random() < 0.1:  # at its next points, the last it may pass too: speed 0
                points[:3] = self.pos[row]
            self.routes.append(points)
        self.length = np.array([len(r) for r in self.routes], dtype=np.int64)
        self.offset = np.concatenate([[0], np.cumsum(self.length)[:-1]]).astype(np.int64)
        self.flat = np.vstack(self.routes)
        self.progress = rng.integers(0, 2, walkers).astype(np.int64)
        self.speed = rng.uniform(0.5, 2.5, walkers)
        self.direction = np.full((walkers, 3), 7.0, dtype=np.float32)
        self.walker_speed = np.full(walkers, 7.0, dtype=np.float32)

    def steer(self, first_pass: int = 0) -> int:
        """The walkers' tick's call (steer_table, as WalkerAISystem makes its table)."""
        groups = (
            (self.alive, self.pos, self.rot, self.extent, self.vrow, self.wrow),
            (
                self.controller,
                self.walker,
                self.flat,
                self.offset,
                self.length,
                self.progress,
                self.speed,
            ),
            (self.direction, self.walker_speed),
            (WALKER_CONSTANTS,),
        )
        table = ArrayTable(groups, STEER_TABLE_KINDS)
        return steer_table(table.table, self.n, first_pass, ARRIVAL_PASSES)


def around_walkers(pos: np.ndarray, unit: np.ndarray, speed: np.ndarray, out: np.ndarray) -> int:
    """The walkers' turn around each other, written out pair by pair from its rule (turns `out`
    in place, returns the number of pairs turned): i's walk over WALKER_LOOK_AHEAD relative to
    j's walk toward its route point passes within 2 WALKER_RADIUS + WALKER_MARGIN of j, j
    ahead of i's direction; i turns to the right tangent of j's circle if that is to its right."""
    clearance = 2.0 * WALKER_RADIUS + WALKER_MARGIN
    turned = 0
    for i, j in itertools.product(range(len(pos)), repeat=2):
        b = pos[j, :2] - pos[i, :2]
        if i == j or speed[i] == 0.0 or not float(b @ out[i, :2]) > 0.0:
            continue
        r = (out[i, :2] * speed[i] - unit[j, :2] * speed[j]) * WALKER_LOOK_AHEAD
        span = float(r @ r)
        t = min(max(float(b @ r) / span if span > 0.0 else 0.0, 0.0), 1.0)
        if not float(np.sum((b - t * r) ** 2)) < clearance**2:
            continue
        gap = float(el.hypot_v(*b))
        angle = el.asin(clearance / gap) if gap > clearance else math.pi / 2
        tangent = (
            np.array(
                [
                    b[0] * el.cos(angle) - b[1] * el.sin(angle),
                    b[0] * el.sin(angle) + b[1] * el.cos(angle),
                ]
            )
            / gap
        )
        if out[i, 0] * tangent[1] - out[i, 1] * tangent[0] > 0.0:
            out[i, :2] = tangent
            turned += 1
    return turned


def numpy_steer(s: Scene) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The array form the kernel replaced, with the walkers' turn around each other added
    before the vehicles' (where the rule applies): (progress, direction, speed) in walker order
    and the numbers of walker-walker and walker-vehicle pairs turned."""
    pos = s.pos[s.walker]
    progress = s.progress.copy()
    for _ in range(ARRIVAL_PASSES):
        at = s.flat[s.offset + np.minimum(progress, s.length - 1)]
        near = el.hypot_v(*(at[:, :2] - pos[:, :2]).T) < ARRIVE_RADIUS
        if not near.any():
            break
        progress = progress + near
    target = s.flat[s.offset + np.minimum(progress, s.length - 1)]
    direction = target - pos
    direction[:, 2] = 0.0
    norm = np.linalg.norm(direction, axis=1)
    unit = direction / np.where(norm > 0.0, norm, 1.0)[:, None]
    cars = np.flatnonzero(s.alive[: s.n] & (s.vrow[: s.n] >= 0))
    yaw = np.radians(s.rot[cars, 1])
    cos, sin = el.cos_v(yaw)[None], el.sin_v(yaw)[None]
    car = s.pos[cars, :2]
    gap = pos[:, None, :2] - car[None]
    step = pos[:, None, :2] + unit[:, None, :2] * STEP_AHEAD - car[None]
    lx = step[..., 0] * cos + step[..., 1] * sin
    ly = -step[..., 0] * sin + step[..., 1] * cos
    ext = s.extent[cars]
    blocked = (gap[..., 0] * gap[..., 0] + gap[..., 1] * gap[..., 1] < VEHICLE_REACH**2) & (
        (np.abs(lx) < ext[None, :, 0] + WALKER_RADIUS)
        & (np.abs(ly) < ext[None, :, 1] + WALKER_RADIUS)
    )
    pairs = np.argwhere(blocked)  # walker-major, as the world turns them
    out = unit.copy()
    walkers_turned = around_walkers(pos, unit, np.where(norm > 0.0, s.speed, 0.0), out)
    for i, c in pairs.tolist():
        delta = pos[i, :2] - car[c]
        away = delta / max(float(np.linalg.norm(delta)), 1e-9)
        along = out[i, :2] - min(float(out[i, :2] @ away), 0.0) * away
        if np.linalg.norm(along) < 0.2:
            along = np.array([-away[1], away[0]])
        out[i, :2] = along / np.linalg.norm(along)
    speed = np.where(norm > 0.0, s.speed, 0.0).astype(np.float32)
    return progress, out.astype(np.float32), speed, walkers_turned, len(pairs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_steer_equals_the_array_form_bit_for_bit(seed):
    scene = Scene(cars=30, walkers=40, rng=np.random.default_rng(seed))
    scene.alive[scene.n :] = False
    before = scene.progress.copy()
    progress, direction, speed, walkers_turned, turned = numpy_steer(scene)
    assert scene.steer() == STEERED
    # the scenes exercise each branch: walkers passing route points, turning at another
    # walker and at a vehicle, and standing on their point
    assert (progress > before).any()
    assert walkers_turned > 0
    assert turned > 0
    assert (speed == 0.0).any()
    rows = scene.wrow[scene.walker]
    assert np.array_equal(scene.progress, progress)
    assert np.array_equal(scene.direction[rows], direction)
    assert np.array_equal(scene.walker_speed[rows], speed)


def test_dead_actors_and_route_ends_hand_back_before_writing():
    scene = Scene(cars=2, walkers=3, rng=np.random.default_rng(4))
    scene.alive[scene.controller[1]] = False
    assert scene.steer() == DEAD
    assert (scene.direction == 7.0).all()
    # a dead actor is only checked on the first call of a tick
    scene.progress[:] = scene.length
    assert scene.steer(first_pass=1) == 1
    assert scene.steer() == DEAD
    scene.alive[:] = True
    assert scene.steer() == 0
    assert (scene.walker_speed == 7.0).all()


def test_a_step_into_a_car_turns_along_its_side():
    # Worked by hand: a car at (2, 0) heading +x, half extents 2.4 x 1.0 m; a walker at the
    # origin heading +x. Its next step (0.5, 0) is 1.5 m behind the car's centre, inside
    # 2.4 + 0.3 m: blocked. Away from the car is (-1, 0); the part of (1, 0) toward the car
    # is -1, so what is left is (1, 0) - 1 * (1, 0) = (0, 0), shorter than 0.2: the walker
    # turns to (-away_y, away_x) = (0, -1), along the car's side.
    scene = Scene(cars=1, walkers=1, rng=np.random.default_rng(0))
    scene.pos[:3] = ((2.0, 0.0, 0.0), (0.0, 0.0, 0.0), (9.0, 9.0, 0.0))
    scene.rot[0] = 0.0
    scene.flat = np.array([[10.0, 0.0, 0.0], [20.0, 0.0, 0.0], [30.0, 0.0, 0.0]])
    scene.offset, scene.length = np.array([0]), np.array([3])
    scene.progress = np.array([0])
    scene.speed = np.array([1.4])
    assert scene.steer() == STEERED
    assert scene.direction[0].tolist() == [0.0, -1.0, 0.0]
    assert scene.walker_speed[0] == np.float32(1.4)
    # without the car it walks straight on toward (10, 0)
    scene.vrow[0] = -1
    scene.steer()
    assert scene.direction[0].tolist() == [1.0, 0.0, 0.0]


def numpy_route(nav: WalkerNavigation, start, goal, cross: bool) -> list[int]:
    """The Python A* the kernel replaced (nearest nodes by numpy, neighbours in index order)."""

    def nearest(point, among):
        gap = np.linalg.norm(nav.points[among, :2] - point[None, :2], axis=1)
        return int(among[int(np.argmin(gap))])

    pts = nav.points
    a = nearest(start, np.flatnonzero(nav.lane_of >= 0))
    b = nearest(goal, np.arange(len(pts)))
    if not cross:
        b = nearest(goal, np.flatnonzero(nav.component == nav.component[a]))
    target = pts[b, :2]
    best, came, done = {a: 0.0}, {}, set()
    heap = [(float(np.linalg.norm(pts[a, :2] - target)), a)]
    while heap:
        _, node = heapq.heappop(heap)
        if node == b:
            break
        if node in done:
            continue
        done.add(node)
        for other in sorted(nav._edges[node]):
            if nav._edges[node][other] and not cross:
                continue
            cost = best[node] + float(np.linalg.norm(pts[other, :2] - pts[node, :2]))
            if cost < best.get(other, np.inf):
                best[other] = cost
                came[other] = node
                heapq.heappush(heap, (cost + float(np.linalg.norm(pts[other, :2] - target)), other))
    if b not in best:
        return [a]
    path = [b]
    while path[-1] != a:
        path.append(came[path[-1]])
    return path[::-1]


def test_route_equals_the_python_search_node_for_node():
    nav = WalkerNavigation(Map.from_file(TOWN_SMALL))
    rng = np.random.default_rng(7)
    low, high = nav.points.min(axis=0), nav.points.max(axis=0)
    crossed = 0
    for _ in range(40):
        start, goal = rng.uniform(low, high), rng.uniform(low, high)
        for cross in (False, True):
            expected = numpy_route(nav, start, goal, cross)
            got = nav.route(start, goal, cross)
            assert got.tolist() == expected
            crossed += cross and any(
                nav.is_crossing_edge(p, q) for p, q in itertools.pairwise(expected)
            )
    assert crossed > 0  # some routes use a crosswalk
    # a route to its own start node is that node
    node = int(nav.sidewalk[5])
    assert nav.route(nav.points[node], nav.points[node], False).tolist() == [node]


def test_route_without_a_path_is_the_start_node():
    # Two nodes with no edge between them (what the kernel sees of disconnected sidewalks
    # when crossing is allowed): the goal cannot be reached, so the walker stays put.
    points = np.array([[0.0, 0.0, 0.0], [10.0, 0.0, 0.0]])
    lane_of = np.array([0, 1])
    component = np.array([0, 1])
    first_edge = np.zeros(3, dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    got = route(
        points,
        lane_of,
        component,
        first_edge,
        empty,
        np.zeros(0, dtype=np.bool_),
        points[0],
        points[1],
        True,
    )
    assert got.tolist() == [0]


def two_walkers(a_goal: float, b_goal: float) -> Scene:
    """Walkers A at the origin and B at (2, 0), routed to (a_goal, 0) and (b_goal, 0) at
    1.4 m/s, no vehicle."""
    scene = Scene(cars=0, walkers=2, rng=np.random.default_rng(0))
    scene.pos[:4] = 0.0
    scene.pos[1] = (2.0, 0.0, 0.0)
    scene.flat = np.array([[a_goal, 0.0, 0.0], [b_goal, 0.0, 0.0]])
    scene.offset, scene.length = np.array([0, 1]), np.array([1, 1])
    scene.progress = np.array([0, 0])
    scene.speed = np.array([1.4, 1.4])
    return scene


def test_walkers_meeting_head_on_turn_to_their_right_along_the_others_circle():
    # Worked by hand: A heads +x, B heads -x, 2 m apart. A's walk over the next second relative
    # to B is (1.4 + 1.4, 0) = (2.8, 0) m: it passes through B's centre, within 2 * 0.3 + 0.1 =
    # 0.7 m. A turns to the right tangent of B's 0.7 m circle: the bearing (1, 0) turned by
    # +asin(0.7 / 2) = +20.49 degrees, (0.93675, 0.35); B, mirrored, to (-0.93675, -0.35),
    # its own right.
    scene = two_walkers(10.0, -10.0)
    assert scene.steer() == STEERED
    rows = scene.wrow[scene.walker]
    side = 0.7 / 2.0
    ahead = (1.0 - side * side) ** 0.5
    assert scene.direction[rows[0]].tolist() == pytest.approx([ahead, side, 0.0], abs=1e-6)
    assert scene.direction[rows[1]].tolist() == pytest.approx([-ahead, -side, 0.0], abs=1e-6)


def test_a_walker_following_another_at_its_speed_does_not_turn():
    # A 2 m behind B, both heading +x at 1.4 m/s: the relative walk is (0, 0), so A stays 2 m
    # from B, outside 0.7 m; B has A behind it (negative dot product): neither turns.
    scene = two_walkers(10.0, 12.0)
    scene.steer()
    rows = scene.wrow[scene.walker]
    assert scene.direction[rows].tolist() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    # B walking at 0.4 m/s instead: A closes 1.0 m in the second, to 1 m from B, and keeps
    # its line; at 0.1 m/s it closes 1.3 m to 0.7 m, not inside 0.7 m: it still keeps it
    for slow in (0.4, 0.1):
        scene.speed[1] = slow
        scene.steer()
        assert scene.direction[rows[0]].tolist() == [1.0, 0.0, 0.0]
    # at 0.05 m/s A would come to 0.65 m: it turns right to (0.93675, 0.35) as above
    scene.speed[1] = 0.05
    scene.steer()
    assert scene.direction[rows[0]].tolist() == pytest.approx([0.93675, 0.35, 0.0], abs=1e-5)
