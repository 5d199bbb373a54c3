"""The autopilot's compiled kernels against the plain array forms they replace (numpy, with
world.elementary for angles and lengths), on the state of real traffic (40 vehicles and 20
walkers on the medium town after 200 ticks): route sampling, the curve speed cap with the
headings taken once per segment, the obstacle search and the lane search. Each comparison is
exact: the kernels promise the same bits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from world import Map, World, WorldSettings
from world import elementary as el
from world.traffic.autopilot.fleet import (
    APPROACH,
    BEHIND_REACH,
    COARSE_REACH,
    COARSE_STRIDE,
    COMFORT_DECEL,
    CROSSING_ANGLE,
    LATERAL_ACCEL,
    OTHER_CONSTANTS,
    PATH_MARGIN,
    PATH_STEP,
    PLAN_CONSTANTS,
    SAMPLE_DISTANCES,
)
from world.traffic.autopilot.kernels import (
    ActorColumns,
    LaneArrays,
    body_arrays,
    curve_speed_cap,
    locate_on_paths,
    obstacle_distances,
    other_vehicles,
    route_starts,
    sample_routes,
)
from world.traffic.autopilot.lane_paths import HEADING_PENALTY, JUNCTION_PENALTY
from world.traffic.scene import populate_traffic

TOWN_MEDIUM = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_medium.xodr"


@pytest.fixture(scope="module")
def traffic():
    world = World(Map.from_file(TOWN_MEDIUM))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    populate_traffic(world, 40, 20, 3)
    for _ in range(200):
        world.tick()
    fleet = world._traffic_managers[8000].fleet
    lp = fleet.paths
    start, _ = route_starts(fleet.route, fleet.arc, lp.length)
    d = np.ascontiguousarray(np.broadcast_to(SAMPLE_DISTANCES, (len(fleet), len(SAMPLE_DISTANCES))))
    pts, seg = sample_routes(
        lp.points, lp.cum, lp.base, lp.length, lp.first, lp.count, fleet.route, start, d,
        np.full(len(fleet), -1, dtype=np.int64), 0,
    )  # fmt: skip
    tangents = lp.segment_tangent[seg]
    return world, fleet, start, d, pts, tangents, seg


def test_route_samples_are_the_path_samples_of_each_slot(traffic):
    # the slot of a distance is the last path that begins at or before it; LanePaths.at (one
    # binary search per point) gives the same points and directions as the walking search
    _, fleet, start, d, pts, tangents, _ = traffic
    slot = (start[:, None, 1:] <= d[:, :, None]).sum(axis=2)
    rows = np.arange(len(fleet))[:, None]
    paths = fleet.route[rows, slot]
    want_pts, want_tan = fleet.paths.at(paths, d - start[rows, slot])
    assert np.array_equal(pts, want_pts)
    assert np.array_equal(tangents, want_tan)


def test_kept_samples_are_the_samples_of_their_route_and_arc(traffic):
    # the plan keeps a vehicle's samples while its route and arc stay bit for bit the same
    # (standing still): after 200 ticks, every vehicle's kept rows are its route sampled
    # afresh at the route and arc they were kept for
    _, fleet, _, d, _, _, _ = traffic
    lp = fleet.paths
    route, arc, points, seg = fleet._arguments[1].arrays[-7:-3]
    assert not np.isnan(arc).any()
    start, _ = route_starts(route, arc, lp.length)
    want_pts, want_seg = sample_routes(
        lp.points, lp.cum, lp.base, lp.length, lp.first, lp.count, route, start, d,
        np.full(len(fleet), -1, dtype=np.int64), 0,
    )  # fmt: skip
    assert np.array_equal(points.reshape(want_pts.shape), want_pts)
    assert np.array_equal(seg, want_seg)
    # most are the vehicles' current route and arc (a lane change moves a vehicle after)
    assert (route == fleet.route).all(axis=1).sum() > len(fleet) // 2
    # where a vehicle's kept location holds (its path, arc and position at the tick's start),
    # locating it afresh gives the arc, lateral distance and segment it has
    work, table = fleet._arguments
    path, near, xy = table.arrays[-3:]
    holds = (path == fleet.route[:, 0]) & (near == fleet.arc)
    holds &= (xy == work.pos[:, :2]).all(axis=1)
    assert holds.any()  # (some vehicles stand still after 200 ticks: the check has rows)
    segment = np.full(len(fleet), -1, dtype=np.int64)
    found, lateral = locate_on_paths(
        lp.points, lp.cum, lp.base, lp.first, lp.count, fleet.route[:, 0].copy(), fleet.arc,
        work.pos[:, :2].copy(), 6, segment,
    )  # fmt: skip
    assert np.array_equal(found[holds], fleet.arc[holds])
    assert np.array_equal(lateral[holds], work.lateral[holds])
    assert np.array_equal(segment[holds], work.segment[holds])


def _locate_numpy(lp, path, near, xy, window=6):
    """The array form of locate_on_paths: the segments from 3 before to `window` after the
    last point at or before the arc `near`, clipped to the path's, each point's projection
    on them, the first nearest (its root compared) and the arc there."""
    arcs, laterals = [], []
    for p, x0, point in zip(path, near, xy, strict=True):
        lo, hi = lp.first[p], lp.first[p] + lp.count[p] - 2
        centre = np.searchsorted(lp.cum, lp.base[p] + x0, side="right") - 1
        i = np.clip(centre + np.arange((-window) // 2, window + 1), lo, max(hi, lo))
        j = np.minimum(i + 1, hi + 1)
        a = lp.points[i, :2]
        ab, ap = lp.points[j, :2] - a, point - a
        den = (ab * ab).sum(axis=1)
        u = np.clip((ap * ab).sum(axis=1) / np.where(den > 0, den, 1.0), 0.0, 1.0)
        f = point - (a + u[:, None] * ab)
        dist = np.sqrt((f * f).sum(axis=1))
        k = int(np.argmin(dist))
        at, to = i[k], min(i[k] + 1, hi + 1)
        arcs.append(lp.cum[at] + u[k] * (lp.cum[to] - lp.cum[at]) - lp.base[p])
        laterals.append(dist[k])
    return np.array(arcs), np.array(laterals)


def test_searches_from_a_hint_find_the_binary_searchs_segments(traffic):
    # a hint only says where to start walking: seeded hints anywhere on the first path, on
    # other paths' points (out of range: the binary search) and -1 give the segments, points
    # and located arcs of no hint, exactly
    world, fleet, start, d, pts, _, seg = traffic
    lp = fleet.paths
    rng = np.random.default_rng(11)
    n = len(fleet)
    first, count = lp.first[fleet.route[:, 0]], lp.count[fleet.route[:, 0]]
    on_path = first + (rng.random(n) * count).astype(np.int64)
    anywhere = rng.integers(-1, len(lp.cum), n)
    xy = world._actors.pos[fleet.actor, :2].copy()
    want_arc, want_lateral = _locate_numpy(lp, fleet.route[:, 0], fleet.arc, xy)
    # the positions after the last tick's physics, searched around the arcs it located
    assert np.array_equal(lp.locate(fleet.route[:, 0].copy(), fleet.arc, xy)[0], want_arc)
    for hint in (on_path, anywhere, first, first + count - 1):
        got_pts, got_seg = sample_routes(
            lp.points, lp.cum, lp.base, lp.length, lp.first, lp.count, fleet.route, start, d,
            hint, 56,
        )  # fmt: skip
        assert np.array_equal(got_seg, seg)
        assert np.array_equal(got_pts, pts)
        segment = hint.copy()
        arc, lateral = locate_on_paths(
            lp.points, lp.cum, lp.base, lp.first, lp.count, fleet.route[:, 0].copy(), fleet.arc, xy,
            6, segment,
        )  # fmt: skip
        assert np.array_equal(arc, want_arc)
        assert np.array_equal(lateral, want_lateral)
        assert ((segment >= first) & (segment < first + count - 1)).all()


def test_curve_cap_from_segment_headings_is_numpys(traffic):
    # numpy form: the heading of each sampled direction, unwrapped along the path, curvature
    # over the 2 m step, cap sqrt(v_curve^2 + 2 a (d - half length)) at each sample
    _, fleet, _, d, _, tangents, seg = traffic
    front = fleet.world._actors.extent[fleet.actor, 0]
    target = np.linspace(4.0, 20.0, len(fleet))
    target[0] = 0.0  # a desired speed of 0 stays 0
    heading = el.atan2_v(tangents[..., 1], tangents[..., 0])
    assert np.array_equal(fleet.paths.segment_heading[seg], heading)
    curvature = np.abs(np.diff(np.unwrap(heading, axis=1), axis=1)) / PATH_STEP
    v_curve = np.sqrt(LATERAL_ACCEL / np.maximum(curvature, 1e-4))
    ahead = np.maximum(d[:, :-1] - front[:, None], 0.0)
    cap = np.sqrt(v_curve**2 + 2.0 * COMFORT_DECEL * ahead).min(axis=1)
    want = np.minimum(target, cap)
    got = curve_speed_cap(
        fleet.paths.segment_heading, seg, d, front, target, LATERAL_ACCEL, COMFORT_DECEL,
        PATH_STEP,
    )  # fmt: skip
    assert np.array_equal(got, want)
    assert (got < target).any()  # some vehicles are in curves


def _actor_columns(a) -> ActorColumns:
    return ActorColumns(
        a.alive, a.body, a.static_collider, a.kind, a.vrow, a.pos, a.rot, a.vel, a.extent, a.box_loc
    )


def _box_gaps(pts, tangents, origin, c, s, ext, grow):
    """numpy form of the gap of every sample (M,) to one body's grown box."""
    r = pts[:, :2] - origin
    lx = r[:, 0] * c + r[:, 1] * s
    ly = -r[:, 0] * s + r[:, 1] * c
    t0, t1 = tangents[:, 0], tangents[:, 1]
    hx = ext[0] + grow * np.abs(-t1 * c + t0 * s)
    hy = ext[1] + grow * np.abs(t1 * s + t0 * c)
    ox, oy = np.abs(lx) - hx, np.abs(ly) - hy
    inside = (ox <= 0.0) & (oy <= 0.0)
    return np.where(
        inside, np.maximum(ox, oy), el.hypot_v(np.maximum(ox, 0.0), np.maximum(oy, 0.0))
    )


def _obstacles_numpy(rows, pos, yaw, half_width, ignore, override, found, pts, tangents, d):
    """The all-pairs array form of the obstacle search: every pair (vehicle, body within reach,
    not behind, not ignored, not crossing while pushing on), the coarse test every 8 m, then
    the first sample inside the grown box, interpolated by the gaps on either side."""
    bodies, xy, box_x, ext = found.rows, found.xy, found.box_x, found.ext
    rad = np.radians(yaw)
    cos_yaw, sin_yaw = el.cos_v(rad), el.sin_v(rad)
    body_rad = np.radians(found.yaw)
    body_cos, body_sin = el.cos_v(body_rad), el.sin_v(body_rad)
    want = np.full(len(rows), np.inf)
    for v in range(len(rows)):
        delta = xy - pos[v, :2]
        reach = d[v, -1] + 6.0
        near = (
            (bodies != rows[v])
            & ((delta**2).sum(axis=1) < reach * reach)
            & (delta[:, 0] * cos_yaw[v] + delta[:, 1] * sin_yaw[v] > -BEHIND_REACH)
            & ~(ignore[v, 2] & found.is_vehicle)
            & ~(ignore[v, 3] & found.is_walker)
        )
        if override[v] > 0.0:
            turn = np.abs((found.yaw - yaw[v] + 180.0) % 360.0 - 180.0)
            near &= ~(found.is_vehicle & (turn > CROSSING_ANGLE))
        coarse = pts[v, ::COARSE_STRIDE, None, :2] - xy[None, :, :]
        near &= ((coarse**2).sum(axis=2) < COARSE_REACH**2).any(axis=0)
        for b in np.flatnonzero(near):
            origin = xy[b] + box_x[b] * np.array([body_cos[b], body_sin[b]])
            grow = half_width[v] + PATH_MARGIN
            gap = _box_gaps(pts[v], tangents[v], origin, body_cos[b], body_sin[b], ext[b], grow)
            hits = np.flatnonzero(gap <= 0.0)
            if not len(hits):
                continue
            s = hits[0]
            at = d[v, s]
            if s > 0:
                prev = gap[s - 1]
                frac = prev / (prev - gap[s]) if prev > gap[s] else 1.0
                at = d[v, s - 1] + frac * (at - d[v, s - 1])
            want[v] = min(want[v], at)
    return want


def test_obstacle_search_is_the_all_pairs_numpy_search(traffic):
    world, fleet, _, d, pts, tangents, seg = traffic
    a = world._actors
    rows = fleet.actor
    found = body_arrays(_actor_columns(a), a.n, 1, 2)
    pos = a.pos[rows]
    yaw = a.rot[rows, 1]
    rad = np.radians(yaw)
    cos_yaw, sin_yaw = el.cos_v(rad), el.sin_v(rad)
    half_width = a.extent[rows, 1]
    no_ignore = np.zeros((len(rows), 4), dtype=bool)
    no_override = np.zeros(len(rows))
    got = obstacle_distances(
        rows, pos, cos_yaw, sin_yaw, yaw, half_width, no_ignore, no_override, found, pts,
        fleet.paths.segment_tangent, seg, d, PLAN_CONSTANTS,
    )  # fmt: skip
    want = _obstacles_numpy(
        rows, pos, yaw, half_width, no_ignore, no_override, found, pts, tangents, d
    )
    assert np.array_equal(got, want)
    assert np.isfinite(got).sum() >= 3  # vehicles behind others (4 in this state)


def test_obstacle_search_in_a_crowd_is_the_all_pairs_search(traffic):
    # 40 vehicles' paths with 1,500 seeded bodies dropped about their samples (cars, trucks,
    # walkers and props at any heading, some exactly on a sample), a third of the vehicles
    # ignoring vehicles or walkers and a third pushing on: many bodies per path, so the
    # search's shortcuts (the nearest contact so far as a bound on the next bodies' samples,
    # the test of a sample without the root of its gap, the vehicles' own headings) all take
    # part; the all-pairs answers, exactly
    world, fleet, _, d, pts, tangents, seg = traffic
    a = world._actors
    n, extra = len(fleet), 1500
    rng = np.random.default_rng(17)
    on = rng.integers(0, n, extra), rng.integers(0, d.shape[1], extra)
    xy = pts[on[0], on[1], :2] + rng.normal(0.0, 2.5, (extra, 2)) * (rng.random((extra, 1)) > 0.1)
    kind = rng.choice(np.array([1, 2, 0], dtype=np.int8), extra, p=[0.7, 0.2, 0.1])
    size = np.where(rng.random(extra) < 0.2, 2.5, 1.0)[:, None]  # trucks among the cars
    ext = np.where((kind == 2)[:, None], [0.3, 0.3, 0.9], [2.3, 1.0, 0.8] * size)
    total = n + extra
    yaw = np.column_stack([np.zeros(extra), rng.uniform(-180.0, 180.0, extra), np.zeros(extra)])
    box_loc = np.column_stack([rng.uniform(-1.0, 1.0, extra), np.zeros((extra, 2))])
    columns = ActorColumns(
        np.ones(total, dtype=bool),
        np.concatenate([np.ones(n, dtype=bool), kind != 0]),
        np.concatenate([np.zeros(n, dtype=bool), kind == 0]),
        np.concatenate([np.ones(n, dtype=np.int8), kind]),
        np.concatenate([np.arange(n), np.full(extra, -1)]).astype(np.int32),
        np.vstack([a.pos[fleet.actor], np.column_stack([xy, np.zeros(extra)])]),
        np.vstack([a.rot[fleet.actor], yaw]),
        np.zeros((total, 3)),
        np.vstack([a.extent[fleet.actor], ext]),
        np.vstack([a.box_loc[fleet.actor], box_loc]),
    )
    found = body_arrays(columns, total, 1, 2)
    rows = np.arange(n)
    pos, yaw = columns.pos[:n], columns.rot[:n, 1]
    sin_yaw, cos_yaw = np.array([el.sin_cos(np.radians(y)) for y in yaw]).T
    half_width = columns.extent[:n, 1]
    ignore = np.zeros((n, 4), dtype=bool)
    ignore[:, 2:] = rng.random((n, 2)) < 0.15
    override = np.where(rng.random(n) < 0.3, 2.0, 0.0)
    got = obstacle_distances(
        rows, pos, cos_yaw, sin_yaw, yaw, half_width, ignore, override, found, pts,
        fleet.paths.segment_tangent, seg, d, PLAN_CONSTANTS,
    )  # fmt: skip
    want = _obstacles_numpy(rows, pos, yaw, half_width, ignore, override, found, pts, tangents, d)
    assert np.array_equal(got, want)
    assert np.isfinite(got).sum() >= 30 and (got == 0.0).sum() >= 3  # some blocked at once


def _nearest_numpy(lp, pos: np.ndarray, yaw: float) -> tuple[int, float]:
    """The array form of the lane search that LanePaths.nearest replaced (the relocalisation)."""
    gap = el.hypot_v(*(lp.points[:, :2] - pos[None, :2]).T)
    gap += np.where(lp.point_junction, JUNCTION_PENALTY, 0.0)
    turn = np.abs((lp.point_heading - yaw + 180.0) % 360.0 - 180.0)
    gap += np.where(turn > 60.0, HEADING_PENALTY, 0.0)
    best = int(np.argmin(gap))
    p = int(np.searchsorted(lp.first, best, side="right") - 1)
    estimate = float(lp.cum[best] - lp.base[p])
    arc, _ = lp.locate(np.array([p]), np.array([estimate]), pos[None, :2])
    return p, float(arc[0])


def test_nearest_lanes_equal_the_array_search(traffic):
    # every vehicle of the scene and each turned half round (the heading penalty then picks
    # the opposite lane), poses off the road, 184 seeded poses anywhere in the map's box and
    # 16 far off it (2 km and 40 km beyond each side and corner): the same paths and the same
    # arcs as the full scan, exactly
    world, fleet, *_ = traffic
    a = world._actors
    rows = fleet.actor
    points = fleet.paths.points[:, :2]
    rng = np.random.default_rng(5)
    inside = rng.uniform(points.min(axis=0), points.max(axis=0), size=(184, 2))
    sides = np.array([[i, j] for i in (-1, 0, 1) for j in (-1, 0, 1) if i or j], dtype=float)
    middle = (points.min(axis=0) + points.max(axis=0)) / 2.0
    far = np.vstack([middle + sides * 2000.0, middle + sides * 40000.0])
    far[::3] += rng.uniform(-50.0, 50.0, size=(len(far[::3]), 2))
    anywhere = np.vstack([inside, far])
    xy = np.vstack([a.pos[rows, :2], a.pos[rows, :2], a.pos[rows, :2] + [7.0, -5.0], anywhere])
    yaw = np.concatenate(
        [a.rot[rows, 1], a.rot[rows, 1] + 180.0, a.rot[rows, 1] - 95.0, rng.uniform(-180, 180, 200)]
    )
    path, arc, lateral = fleet.paths.nearest(xy, yaw)
    expected = [
        _nearest_numpy(fleet.paths, np.append(p, 0.0), y) for p, y in zip(xy, yaw, strict=True)
    ]
    assert path.tolist() == [p for p, _ in expected]
    assert arc.tolist() == [s for _, s in expected]
    assert (lateral >= 0.0).all() and len(set(path.tolist())) > 20


def test_other_vehicles_lists_only_vehicles_outside_the_fleet(traffic):
    # the fleet's own rows are no yield partners: with every vehicle in `rows` there is none,
    # with one left out exactly that one is listed (on its lane: inside a junction there, or
    # approaching one from its lane or further back), free only when moving (0.5 m/s or more)
    world, fleet, *_ = traffic
    a, lp = world._actors, fleet.paths
    args = (_actor_columns(a), a.n, LaneArrays(*lp.arrays()), OTHER_CONSTANTS)
    inside, *_ = other_vehicles(fleet.actor, *args)
    assert len(inside) == 0
    for i in range(len(fleet)):
        inside, entry_from, d_entry, free, *_ = other_vehicles(np.delete(fleet.actor, i), *args)
        assert len(inside) == 1
        row = int(fleet.actor[i])
        assert free[0] == (el.hypot_v(*a.vel[row, :2]) >= 0.5)
        path = int(fleet.route[i, 0])
        well_inside = 3.0 < fleet.arc[i] < lp.length[path] - 3.0  # junction paths meet lanes
        if lp.junction[path] >= 0 and well_inside:
            assert inside[0] >= 0 and lp.junction[inside[0]] == lp.junction[path]
        elif lp.junction[path] < 0 and entry_from[0] >= 0:
            assert inside[0] < 0 and 0.0 < d_entry[0] <= lp.length[entry_from[0]] + APPROACH
