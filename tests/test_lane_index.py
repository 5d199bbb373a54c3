"""The lane index finds exactly the lane and s a scan of every centre-line segment finds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from nearest_reference import reference_nearest

from world import LaneType, Map
from world.map.lane_index import LaneSegments, SegmentGrid

MEDIUM_TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"


def scan(segments, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest segment (lowest index among equals) and its u, for every point, by measuring
    all segments. The arithmetic is written out in the same order as the index's, so two
    segments that meet at a lane end and are equally near tie the same way here."""
    a, b = segments.a, segments.b
    d = [b[:, i] - a[:, i] for i in range(3)]
    dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    inv = 1.0 / np.where(dd > 0.0, dd, np.inf)
    seg = np.empty(len(points), dtype=np.int64)
    u_out = np.empty(len(points))
    for lo in range(0, len(points), 100):
        p = points[lo : lo + 100]
        w = [p[:, None, i] - a[None, :, i] for i in range(3)]
        u = (w[0] * d[0] + w[1] * d[1] + w[2] * d[2]) * inv
        np.clip(u, 0.0, 1.0, out=u)
        r = [w[i] - u * d[i] for i in range(3)]
        dist = np.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
        best = np.argmin(dist, axis=1)  # the first of equal minima
        seg[lo : lo + 100] = best
        u_out[lo : lo + 100] = u[np.arange(len(p)), best]
    return seg, u_out


def query_points(m: Map, segments, rng: np.random.Generator, n: int) -> np.ndarray:
    """n points uniform over the map's bounds (50 m beyond, z from -5 to 15 m) and n near
    lane centres (moved up to 3 m in x and y, 1 m in z)."""
    lo = np.minimum(segments.a, segments.b).min(axis=0) - 50.0
    hi = np.maximum(segments.a, segments.b).max(axis=0) + 50.0
    wide = np.column_stack(
        [rng.uniform(lo[0], hi[0], n), rng.uniform(lo[1], hi[1], n), rng.uniform(-5, 15, n)]
    )
    near = segments.a[rng.integers(0, len(segments), n)]
    near = near + rng.uniform(-1.0, 1.0, (n, 3)) * np.array([3.0, 3.0, 1.0])
    return np.vstack([wide, near])


def check_against_scan(m: Map, points: np.ndarray) -> None:
    grid = m._grid(int(LaneType.Driving))
    want_seg, want_u = scan(grid.segments, points)
    sg = grid.segments
    want_node = sg.node[want_seg]
    want_s = sg.s_a[want_seg] + want_u * (sg.s_b[want_seg] - sg.s_a[want_seg])
    got = m.project_batch(points, LaneType.Driving)
    assert np.array_equal(got.node, want_node)
    assert np.abs(got.s - want_s).max() <= 1e-9
    # one at a time, as get_waypoint asks
    for i in range(0, len(points), 97):
        one = m.project_batch(points[i : i + 1], LaneType.Driving)
        assert one.node[0] == want_node[i] and abs(one.s[0] - want_s[i]) <= 1e-9


def test_town04_matches_a_full_scan(shared):
    m = Map.from_file(shared / "maps" / "carla" / "Town04.xodr")
    grid = m._grid(int(LaneType.Driving))
    check_against_scan(m, query_points(m, grid.segments, np.random.default_rng(11), 1500))


def test_generated_town_matches_a_full_scan():
    m = Map.from_file(MEDIUM_TOWN)
    grid = m._grid(int(LaneType.Driving))
    check_against_scan(m, query_points(m, grid.segments, np.random.default_rng(12), 1500))


@pytest.mark.parametrize("town", ["Town01", "Town10HD"])
def test_far_and_high_points_match_a_full_scan(shared, town):
    # far outside the map and well above or below the roads, where the guess is poor
    m = Map.from_file(shared / "maps" / "carla" / f"{town}.xodr")
    rng = np.random.default_rng(13)
    h = m.opendrive.header
    pts = np.column_stack(
        [
            rng.uniform(h.west - 400, h.east + 400, 400),
            rng.uniform(-h.north - 400, -h.south + 400, 400),
            rng.uniform(-60, 80, 400),
        ]
    )
    check_against_scan(m, pts)


def test_empty_lane_type_finds_nothing():
    m = Map.from_file(MEDIUM_TOWN)
    got = m.project_batch(np.zeros((3, 3)), LaneType.Bidirectional)
    assert (got.node == -1).all()


@pytest.mark.parametrize("town", ["Town01", "Town04"])
def test_compiled_search_matches_the_numpy_search(shared, town):
    # the numpy search the compiled one replaced (tests/nearest_reference.py) on seeded
    # points uniform over the header's bounds (and 10 % beyond, z from -10 to 30 m) and
    # near lane centres: the same segment, u and distance, bit for bit
    m = Map.from_file(shared / "maps" / "carla" / f"{town}.xodr")
    grid = m._grid(int(LaneType.Driving))
    h = m.opendrive.header
    lo, hi = np.array([h.west, -h.north]), np.array([h.east, -h.south])
    rng = np.random.default_rng(21)
    wide = np.zeros((6000, 3))
    wide[:, :2] = lo + rng.uniform(-0.1, 1.1, (len(wide), 2)) * (hi - lo)
    wide[3000:, 2] = rng.uniform(-10.0, 30.0, 3000)
    near = grid.segments.a[rng.integers(0, len(grid.segments), 2000)]
    near = near + rng.uniform(-1.0, 1.0, near.shape) * np.array([5.0, 5.0, 1.0])
    points = np.vstack([wide, near])
    got = grid.nearest(points)
    want = reference_nearest(grid.segments, grid.levels[0].cell, points)
    for g, w in zip(got, want, strict=True):
        assert np.array_equal(g, w)
    # both ways to the answer are taken: settled by the finest cells, and far points
    assert (got[2] < grid.levels[0].cell).sum() > 1000
    assert (got[2] > 4.0 * grid.levels[-1].cell).sum() > 1000


@pytest.mark.parametrize("n", [1, 5, 9, 200])
def test_small_segment_sets_match_a_full_scan(n):
    # trees of one leaf (n <= 8 runs) up to a few levels; segment 0 has no length
    rng = np.random.default_rng(n)
    a = rng.uniform(-50.0, 50.0, (n, 3))
    b = a + rng.normal(0.0, 1.0, (n, 3))
    b[0] = a[0]
    zero = np.zeros(n)
    lateral = np.tile([0.0, 1.0, 0.0], (n, 1))
    segments = LaneSegments(a, b, np.arange(n), zero, zero + 1.0, zero + 3.0, lateral, zero, zero)
    points = rng.uniform(-300.0, 300.0, (2000, 3))
    seg, u, _ = SegmentGrid(segments).nearest(points)
    want_seg, want_u = scan(segments, points)
    assert np.array_equal(seg, want_seg) and np.array_equal(u, want_u)
