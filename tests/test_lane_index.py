"""The grid + box-tree index finds the same nearest lane segment as a scan of all of them."""

from __future__ import annotations

import numpy as np
import pytest

from world import LaneType, Map


@pytest.mark.parametrize("town", ["Town01", "Town10HD"])
def test_nearest_segment_equals_brute_force(shared, town):
    m = Map.from_file(shared / "maps" / "carla" / f"{town}.xodr")
    grid = m._grid(int(LaneType.Driving))
    rng = np.random.default_rng(11)
    h = m.opendrive.header
    far = np.column_stack(
        [
            rng.uniform(h.west - 100, h.east + 100, 300),
            rng.uniform(-h.north - 100, -h.south + 100, 300),
            rng.uniform(-10, 20, 300),
        ]
    )
    on = grid.segments.a[rng.integers(0, len(grid.segments), 300)] + rng.normal(0, 2.0, (300, 3))
    pts = np.vstack([far, on])
    _, _, dist = grid.nearest(pts)
    a, d = grid.segments.a, grid.segments.b - grid.segments.a
    dd = np.einsum("ij,ij->i", d, d)
    for p, got in zip(pts, dist, strict=True):
        u = np.clip(((p - a) * d).sum(axis=1) / dd, 0.0, 1.0)
        want = np.linalg.norm(p - (a + u[:, None] * d), axis=1).min()
        # the sweep runs in float32: ties between neighbours are decided to ~1e-5 m
        assert got == pytest.approx(want, abs=1e-4)
