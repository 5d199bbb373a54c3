"""The compiled ground query (world.map.ground_query, behind `Map.ground`) gives exactly what the
batch numpy query it replaced gives (tests/ground_reference.py): the same z, normal and
found, bit for bit, on seeded points around the roads of the medium town and of Town04
(whose overpasses stack two surfaces), on points far off or not finite, and on the points
the physics asks about while bodies drive for many ticks, under an overpass too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ground_reference import reference_ground

from world import Map, VehicleControl, WalkerControl, World, WorldSettings
from world.geometry import Location, Transform, Vector3D
from world.map.carried_ground import NO_CARRIED_GROUND
from world.map.ground_query import (
    SurfaceIndex,
    ground_memory,
    highest_into,
    highest_remembered,
)
from world.map.lane_index import LaneSegments, SegmentGrid
from world.map.map import GroundSample
from world.traffic.scene import populate_traffic

MEDIUM_TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
# road 5: 60 m along +x with a superelevation of 0.1 rad (tests/test_map_api.py)
BANKED = Path(__file__).resolve().parent / "maps" / "banked.xodr"
# Town04's road 39 (z = 11) passes over road 47 (z = 0) here (tests/test_map_topology.py)
OVERPASS = (15.607, 37.975)


@pytest.fixture(scope="module")
def town04(shared) -> Map:
    return Map.from_file(shared / "maps" / "carla" / "Town04.xodr")


@pytest.fixture(scope="module")
def medium() -> Map:
    return Map.from_file(MEDIUM_TOWN)


def _bits(x: np.ndarray) -> bytes:
    return np.ascontiguousarray(x).tobytes()


def assert_same(m: Map, points: np.ndarray, ground=None) -> tuple[np.ndarray, ...]:
    """Map.ground (or `ground`) and the reference agree bit for bit on `points`; the
    reference's answer."""
    with np.errstate(invalid="ignore"):  # the reference casts NaN cells to integers
        want = reference_ground(m._ground(), points)
    got = (ground or m.ground)(points)
    for name, w, g in zip(
        ("z", "normal", "found"), want, (got.z, got.normal, got.found), strict=True
    ):
        assert g.dtype == w.dtype and g.shape == w.shape, name
        if _bits(g) != _bits(w):
            bad = np.flatnonzero(
                ~np.all((g == w) | (np.isnan(g) & np.isnan(w)), axis=-1)
                if g.ndim > 1
                else ~((g == w) | (np.isnan(g) & np.isnan(w)))
            )
            raise AssertionError(f"{name} differs at {points[bad[:5]]}: {w[bad[:5]]} {g[bad[:5]]}")
    return want


def seeded_points(m: Map, seed: int, near: int, spread: int) -> np.ndarray:
    """`near` points around lane centre lines (up to a few m across, +-2 m in z) and `spread`
    uniform over the roads' box (20 m beyond it, 5 m below to 15 m above)."""
    sg = m._ground().segments
    rng = np.random.default_rng(seed)
    k = rng.integers(0, len(sg), near)
    on = sg.a[k] + rng.random(near)[:, None] * (sg.b[k] - sg.a[k])
    around = on + rng.normal(0.0, [1.5, 1.5, 0.7], (near, 3))
    lo = np.minimum(sg.a, sg.b).min(axis=0) - np.array([20.0, 20.0, 5.0])
    hi = np.maximum(sg.a, sg.b).max(axis=0) + np.array([20.0, 20.0, 15.0])
    return np.vstack([around, rng.uniform(lo, hi, (spread, 3))])


def test_seeded_points_on_the_medium_town(medium):
    z, _, found = assert_same(medium, seeded_points(medium, 21, 4000, 1000))
    assert 0.5 < found.mean() < 0.95  # both answers are exercised
    assert np.isnan(z[~found]).all()


def test_seeded_points_on_town04(town04):
    pts = seeded_points(town04, 22, 4000, 2000)
    # and a column of heights under and over the overpass
    column = np.column_stack([np.full(60, OVERPASS[0]), np.full(60, OVERPASS[1])])
    pts = np.vstack([pts, np.column_stack([column, np.linspace(-3.0, 14.0, 60)])])
    z, _, found = assert_same(town04, pts)
    assert found.sum() > 3000
    under = z[-60:][found[-60:]]
    # z = 0 below the overpass's reach, z = 11 from 1 m below its deck up
    assert np.isclose(under, 0.0, atol=1e-6).any() and np.isclose(under, 11.0, atol=1e-6).any()


def test_seeded_points_on_a_banked_road():
    """The towns have no superelevation; this road's lanes slope across by 0.1 rad."""
    banked = Map.from_file(BANKED)
    _, normal, found = assert_same(banked, seeded_points(banked, 23, 3000, 500))
    assert found.sum() > 1500
    # a cross slope of 0.1 rad tilts the normal by as much from the vertical
    assert np.allclose(np.arccos(normal[found, 2]), 0.1, atol=1e-9)


def test_random_segments_sloped_stacked_and_of_no_length():
    """Seeded segments with slopes and cross slopes at three heights, some of no horizontal
    length (covering, as the batch query tests it, refuses no point near those)."""
    rng = np.random.default_rng(24)
    n = 3000
    a = np.column_stack([rng.uniform(0.0, 120.0, (n, 2)), rng.choice([0.0, 4.0, 4.5], n)])
    b = a + np.column_stack([rng.normal(0.0, 1.0, (n, 2)), rng.normal(0.0, 0.1, n)])
    b[::97, :2] = a[::97, :2]
    lateral = np.column_stack([rng.normal(0.0, 1.0, (n, 2)), rng.normal(0.0, 0.1, n)])
    lateral /= np.linalg.norm(lateral, axis=1, keepdims=True)
    zero = np.zeros(n)
    segments = LaneSegments(
        a, b, np.arange(n), zero, zero, rng.uniform(2.0, 4.0, n), lateral, zero, zero
    )
    grid = SegmentGrid(segments, cell=4.0, levels=1)
    pts = np.column_stack([rng.uniform(-10.0, 130.0, (20000, 2)), rng.uniform(-1.0, 6.0, 20000)])
    want = reference_ground(grid, pts)
    got = SurfaceIndex(grid, 1.0).highest(pts)
    for w, g in zip(want, got, strict=True):
        assert _bits(w) == _bits(g)
    assert 0.2 < want[2].mean() < 0.9


def test_points_on_cell_edges_and_beyond_the_table(medium):
    """Each cell walks only the filings whose box meets it: points on the cells' edges (and an
    ulp either side), where a point's cell is a division's rounding away, and points beyond
    the table on every side (filed under its outermost cells) still get the full walk's
    answers."""
    index = medium.surface_index().arrays
    sg = medium._ground().segments
    rng = np.random.default_rng(25)
    k = rng.integers(0, len(sg), 3000)
    on = sg.a[k] + rng.random(3000)[:, None] * (sg.b[k] - sg.a[k])
    edge = np.round(on[:, :2] / index.cell) * index.cell
    pts = []
    for axis in (0, 1):
        for step in (-1.0, 0.0, 1.0):
            p = on.copy()
            p[:, axis] = np.nextafter(edge[:, axis], edge[:, axis] + step)
            pts.append(p)
    lo = np.array([index.origin_x, index.origin_y]) * index.cell
    hi = lo + np.array([index.shape_x, index.shape_y]) * index.cell
    far = on[:200].copy()
    far[:50, 0], far[50:100, 0] = lo[0] - 30.0, hi[0] + 30.0
    far[100:150, 1], far[150:, 1] = lo[1] - 30.0, hi[1] + 30.0
    _, _, found = assert_same(medium, np.vstack([*pts, far]))
    assert found[:-200].mean() > 0.5 and not found[-200:].any()


def test_points_off_every_road_or_not_finite(town04):
    pts = np.array(
        [
            [np.nan, 0.0, 0.0],
            [OVERPASS[0], np.nan, 0.0],
            [OVERPASS[0], OVERPASS[1], np.nan],
            [np.inf, OVERPASS[1], 0.0],
            [-np.inf, -np.inf, 0.0],
            [OVERPASS[0], OVERPASS[1], np.inf],
            [OVERPASS[0], OVERPASS[1], -np.inf],
            [1e300, OVERPASS[1], 0.0],
            [OVERPASS[0], -1e300, 0.0],
            [1e7, 1e7, 0.0],
            [OVERPASS[0], OVERPASS[1], 0.3],
        ]
    )
    z, normal, found = assert_same(town04, pts)
    # +inf in z takes the highest deck; only the last point (on road 47) and it are found
    assert found.tolist() == [False] * 5 + [True] + [False] * 4 + [True]
    assert z[-1] == pytest.approx(0.0, abs=1e-6)
    assert (normal[~found] == [0.0, 0.0, 1.0]).all()
    assert len(town04.ground(np.zeros((0, 3))).z) == 0


class _Checked:
    """Stands in for a map's ground query so that every query the physics makes is checked
    against the reference; counts the points checked and found. While it is installed the
    map offers no `surface_index`, so the physics asks `ground` as it asks any other map."""

    def __init__(self, m: Map) -> None:
        self.map = m
        index = m.surface_index()
        self.fast = lambda points: GroundSample(*index.highest(points))
        self.points: list[np.ndarray] = []
        self.found = 0

    def __call__(self, points: np.ndarray):
        _, _, found = assert_same(self.map, points, self.fast)
        self.points.append(np.array(points))
        self.found += int(found.sum())
        return self.fast(points)

    def __enter__(self) -> _Checked:
        self.map.ground = self
        self.map.surface_index = None
        self.map.carried_ground = _no_carried_ground
        return self

    def __exit__(self, *exc) -> None:
        del self.map.ground, self.map.surface_index, self.map.carried_ground


def _no_carried_ground():
    return NO_CARRIED_GROUND


class _LanesOnly:
    """The physics' own compiled query without the ground outside the lanes
    (world.map.carried_ground), as the reference answers."""

    def __init__(self, m: Map) -> None:
        self.map = m

    def __enter__(self) -> None:
        self.map.carried_ground = _no_carried_ground

    def __exit__(self, *exc) -> None:
        del self.map.carried_ground


def _states(world: World, ticks: int) -> list[bytes]:
    """The bodies' pose and motion after each of `ticks` ticks."""
    out = []
    for _ in range(ticks):
        world.tick()
        a = world._actors.arrays()
        out.append(b"".join(a[name].tobytes() for name in ("pos", "rot", "vel", "angvel")))
    return out


def _traffic(m: Map) -> World:
    world = World(m)
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    populate_traffic(world, 30, 15, seed=5)
    return world


def test_autopilot_traffic_on_the_medium_town(medium):
    """Every query is the reference's, and the query the physics runs inside its compiled
    tick moves the bodies exactly as the map's `ground` answers do."""
    with _Checked(medium) as checked:
        asked = _states(_traffic(medium), 200)
    points = np.vstack(checked.points)
    assert len(points) == 200 * 45
    assert checked.found > 0.9 * len(points)
    with _LanesOnly(medium):
        assert _states(_traffic(medium), 200) == asked


def _overpass_traffic(town04: Map) -> tuple[World, int]:
    """Cars at throttle 0.5 and walkers around the overpass, on both levels; the world and
    how many bodies it holds."""
    world = World(town04, static_actor_providers=[])
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    library = world.get_blueprint_library()
    car = library.find("vehicle.lincoln.mkz_2017")
    below = town04.get_waypoint(Location(OVERPASS[0], OVERPASS[1], 0.3))
    above = town04.get_waypoint(Location(OVERPASS[0], OVERPASS[1], 11.3))
    starts = [w for wp in (below, above) for w in (*wp.previous(25.0), *wp.next(25.0))]
    starts += [w for wp in starts for w in (wp.get_left_lane(), wp.get_right_lane()) if w]
    cars = []
    for wp in starts:
        spot = wp.transform
        spot.location.z += 0.3
        actor = world.try_spawn_actor(car, spot)
        if actor is not None:
            actor.apply_control(VehicleControl(throttle=0.5))
            cars.append(actor)
    people = []
    for k, dz in enumerate((0.0, 11.0) * 3):
        here = Location(OVERPASS[0] + 4.0 * k - 10.0, OVERPASS[1] + 1.0, dz + 1.0)
        walker = world.try_spawn_actor(library.find("walker.pedestrian.0001"), Transform(here))
        if walker is not None:
            walker.apply_control(WalkerControl(Vector3D(0.6, 0.8, 0.0), 1.4))
            people.append(walker)
    assert len(cars) >= 6 and len(people) >= 4
    return world, len(cars) + len(people)


def test_bodies_driving_under_and_over_a_town04_overpass(town04):
    """As on the medium town: every query is the reference's, and the physics' own compiled
    query moves the bodies exactly as those answers do."""
    world, bodies = _overpass_traffic(town04)
    with _Checked(town04) as checked:
        asked = _states(world, 150)
    points = np.vstack(checked.points)
    # one query a tick for each live body; a walker that falls off the overpass's edge
    # below the kill height is destroyed and asked no more
    assert 0.9 * 150 * bodies <= len(points) <= 150 * bodies
    # some of the queried points lay under a deck: a point 12 m higher finds a surface 5 m up
    high = town04.ground(points + np.array([0.0, 0.0, 12.0]))
    low = town04.ground(points)
    assert (high.found & low.found & (high.z > low.z + 5.0)).sum() > 100
    assert checked.found > 0.8 * len(points)
    with _LanesOnly(town04):
        assert _states(_overpass_traffic(town04)[0], 150) == asked


def test_a_bend_leaves_no_crack_in_its_lane(medium):
    """A lane's centre line is a polyline; on the outer side of a bend each joint leaves a
    wedge beyond both segments' ends. A point within half the lane's width of the centre
    line lies in the lane, so the ground must be found there: the joins cover the wedges.
    (Before them, 763 of the 43,291 lane points of this corner of the town, where a car
    turning at (10, -396.7) met one and was thrown into the air, had no ground.)"""
    xs, ys = np.meshgrid(np.arange(0.0, 16.0, 0.05), np.arange(-402.0, -388.0, 0.05))
    pts = np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, 1.647)])
    in_lane = medium.project_batch(pts).inside
    assert in_lane.sum() > 40000
    _, _, found = assert_same(medium, pts[in_lane])
    assert found.all()
    # where the car met the crack: the height of its lane's centre there, as the OpenDRIVE
    # evaluation of the lane (the waypoint's pose, not the ground index) gives it; the
    # town's lanes have no cross slope
    centre = medium.get_waypoint(Location(10.0, -396.7, 0.0)).transform.location
    query = np.array([[10.0, -396.7, centre.z]])
    z, _, found = SurfaceIndex(medium._ground(), 1.0).highest(query)
    assert found[0] and z[0] == pytest.approx(centre.z, abs=1e-3)


def test_remembered_answers_are_the_query_answers(medium):
    """highest_remembered answers every point as highest_into does, tick after tick, asking
    again only for the points whose bits changed: a row whose point kept its bits gets the
    remembered answer (here a planted one, to see it used), a moved point or one whose zero
    changed sign (other bits, perhaps another signed zero in the answer) is asked again."""
    arrays = medium.surface_index().arrays
    first = np.ascontiguousarray(seeded_points(medium, 24, 300, 100))
    first[1:3, 0] = 0.0
    rows = np.arange(len(first), dtype=np.int64)[::-1].copy()  # any rows, any order
    memory = ground_memory(len(first))

    def remembered(points):
        z, normal, found = (
            np.empty(len(points)),
            np.empty((len(points), 3)),
            np.empty(len(points), dtype=np.bool_),
        )
        highest_remembered(arrays, points, rows, memory, z, normal, found)
        return z, normal, found

    def direct(points):
        z, normal, found = (
            np.empty(len(points)),
            np.empty((len(points), 3)),
            np.empty(len(points), dtype=np.bool_),
        )
        highest_into(arrays, points, z, normal, found)
        return z, normal, found

    for got, want in zip(remembered(first), direct(first), strict=True):
        assert _bits(got) == _bits(want)
    assert memory.known.all()
    second = first.copy()
    second[::3, :2] += 0.5
    second[1, 0] = -0.0
    kept = rows[1]  # point 1 moved (sign of zero), point 2 kept its bits
    planted = rows[2]
    memory.z[planted] = 1234.5
    z, normal, found = remembered(second)
    want = direct(second)
    assert z[2] == 1234.5
    z[2] = want[0][2]
    for got, w in zip((z, normal, found), want, strict=True):
        assert _bits(got) == _bits(w)
    assert memory.z[kept] == want[0][1] or np.isnan(want[0][1])


def test_kept_slabs_give_the_scan_answers(medium):
    """A point that moved within the rectangle its row's last scan kept (the same cell, every
    slab box of the cell's list holding or missing it as before) is answered from the slabs
    that held the last point alone: bodies walked by small seeded steps for 40 ticks get
    highest_into's answers bit for bit, most of their queries on that path; and the path is
    taken (a row whose kept slabs are planted empty finds no slab, so it answers from the
    joins or not at all, unlike the scan, for most of them)."""
    arrays = medium.surface_index().arrays
    rng = np.random.default_rng(11)
    points = np.ascontiguousarray(seeded_points(medium, 31, 300, 20))
    rows = np.arange(len(points), dtype=np.int64)
    memory = ground_memory(len(points))
    n = len(points)

    def answers(fn, *args):
        z, normal, found = np.empty(n), np.empty((n, 3)), np.empty(n, dtype=np.bool_)
        fn(arrays, points, *args, z, normal, found)
        return z, normal, found

    def inside_kept() -> np.ndarray:
        cx = np.clip(np.floor(points[:, 0] / arrays.cell) - arrays.origin_x, 1, arrays.shape_x - 2)
        cy = np.clip(np.floor(points[:, 1] / arrays.cell) - arrays.origin_y, 1, arrays.shape_y - 2)
        flat = (cx * arrays.shape_y + cy).astype(np.int64)
        box, x, y = memory.region, points[:, 0], points[:, 1]
        closed = (box[:, 0] <= x) & (x <= box[:, 2]) & (box[:, 1] <= y) & (y <= box[:, 3])
        strict = (box[:, 4] < x) & (x < box[:, 6]) & (box[:, 5] < y) & (y < box[:, 7])
        return (memory.cell == flat) & closed & strict

    kept = 0
    for _ in range(40):
        kept += int(inside_kept().sum())
        for got, want in zip(
            answers(highest_remembered, rows, memory), answers(highest_into), strict=True
        ):
            assert _bits(got) == _bits(want)
        points += rng.normal(0.0, [0.05, 0.05, 0.01], (n, 3))
    assert kept > 0.5 * 39 * n
    # plant an empty list of kept slabs on rows whose next point stays in their rectangle
    # and is on a slab: the scan finds it, the kept path (now) finds none (the joins, a
    # segment end within half the lane's width, answer some of them, a few at the same height)
    on_slab = inside_kept() & answers(highest_into)[2]
    assert on_slab.sum() > 100
    memory.held[on_slab, 0] = 0
    z, _, found = answers(highest_remembered, rows, memory)
    want_z, _, want_found = answers(highest_into)
    differs = (found != want_found) | (_bits_each(z) != _bits_each(want_z))
    assert differs[on_slab].mean() > 0.5


def _bits_each(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.int64)
