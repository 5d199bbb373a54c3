"""The uniform grids of the tick (world.physics.grid) give the answers of the full scans.

Each check compares a grid-based search with the brute force over every pair, written here
in plain numpy: the broad phase's candidate pairs, and the points a query box reaches.
"""

from __future__ import annotations

import numpy as np

from world.physics.collisions import candidate_pairs
from world.physics.grid import box_grid, cell_span, point_grid


def _boxes(rng: np.random.Generator, n: int, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows of `_footprint_rows` (centre x, y, cos, sin, half extents, z range) and margins:
    half of them queued on one north-south street (one shared x range, as a sweep along x
    sees them), the rest scattered."""
    yaw = rng.uniform(-np.pi, np.pi, n)
    boxes = np.empty((n, 8))
    boxes[:, 0] = rng.uniform(0.0, spread, n)
    boxes[: n // 2, 0] = rng.uniform(100.0, 103.0, n // 2)
    boxes[:, 1] = rng.uniform(0.0, spread, n)
    boxes[:, 2], boxes[:, 3] = np.cos(yaw), np.sin(yaw)
    boxes[:, 4] = rng.uniform(0.2, 2.5, n)
    boxes[:, 5] = rng.uniform(0.2, 1.0, n)
    boxes[:, 6] = rng.uniform(0.0, 0.5, n)
    boxes[:, 7] = boxes[:, 6] + rng.uniform(0.5, 2.0, n)
    boxes[rng.integers(n, size=3), 6] += 10.0  # above the others: no z overlap
    return boxes, rng.uniform(0.0, 1.5, n)


def _all_pairs(boxes: np.ndarray, margin: np.ndarray) -> set[tuple[int, int]]:
    """Every pair whose grown axis-aligned bounds overlap (closed intervals), by brute force."""
    c, s = np.abs(boxes[:, 2]), np.abs(boxes[:, 3])
    half_x = boxes[:, 4] * c + boxes[:, 5] * s + margin
    half_y = boxes[:, 4] * s + boxes[:, 5] * c + margin
    lo = np.stack([boxes[:, 0] - half_x, boxes[:, 1] - half_y, boxes[:, 6] - margin], 1)
    hi = np.stack([boxes[:, 0] + half_x, boxes[:, 1] + half_y, boxes[:, 7] + margin], 1)
    meet = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), 2)
    i, j = np.nonzero(np.triu(meet, 1))
    return set(zip(i.tolist(), j.tolist(), strict=True))


def test_the_broad_phase_finds_every_overlapping_pair_once_in_order() -> None:
    rng = np.random.default_rng(4)
    for n, spread in ((2, 10.0), (60, 40.0), (400, 300.0), (900, 2000.0)):
        boxes, margin = _boxes(rng, n, spread)
        i, j = candidate_pairs(boxes, margin)
        found = list(zip(i.tolist(), j.tolist(), strict=True))
        assert found == sorted(_all_pairs(boxes, margin))
        assert len(found) > 0 or n == 2


def test_the_broad_phase_leaves_out_boxes_that_are_not_finite() -> None:
    rng = np.random.default_rng(5)
    boxes, margin = _boxes(rng, 50, 30.0)
    boxes[7, 0] = np.nan
    i, j = candidate_pairs(boxes, margin)
    assert 7 not in set(i.tolist()) | set(j.tolist())
    expected = {pair for pair in _all_pairs(boxes, margin) if 7 not in pair}
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == sorted(expected)


def _in_box(frame, first, items, x0, x1, y0, y1) -> list[int]:
    i0, i1 = cell_span(frame[0], frame[2], frame[3], x0, x1)
    j0, j1 = cell_span(frame[1], frame[2], frame[4], y0, y1)
    ny = int(frame[4])
    return sorted(
        int(items[q])
        for i in range(i0, i1 + 1)
        for j in range(j0, j1 + 1)
        for q in range(first[i * ny + j], first[i * ny + j + 1])
    )


def test_a_point_grid_query_holds_every_point_of_its_box_once() -> None:
    rng = np.random.default_rng(6)
    x, y = rng.uniform(-500.0, 800.0, 3000), rng.uniform(0.0, 100.0, 3000)
    x[11] = np.inf
    frame, first, items = point_grid(x, y, 2990, 8.0)  # the last ten points are not in it
    assert sorted(items.tolist()) == [k for k in range(2990) if k != 11]
    # cells are at least the minimum, and not many more than the points
    assert frame[2] >= 8.0 and frame[3] * frame[4] <= 4 * 2990 + 16
    for x0, y0, size in ((-600.0, -10.0, 50.0), (0.0, 40.0, 3.0), (790.0, 90.0, 30.0)):
        found = _in_box(frame, first, items, x0, x0 + size, y0, y0 + size)
        inside = np.flatnonzero(
            (x[:2990] >= x0) & (x[:2990] <= x0 + size) & (y[:2990] >= y0) & (y[:2990] <= y0 + size)
        )
        assert set(inside.tolist()) <= set(found)
        assert len(found) == len(set(found))
    assert _in_box(frame, first, items, 5000.0, 5100.0, 0.0, 10.0) == []


def test_a_box_grid_puts_each_box_in_every_cell_it_overlaps() -> None:
    lo = np.array([[0.0, 0.0], [30.0, 0.0], [0.0, 30.0], [31.0, 31.0]])
    hi = lo + np.array([[40.0, 5.0], [2.0, 2.0], [2.0, 2.0], [1.0, 1.0]])
    frame, first, items = box_grid(lo, hi, 16.0)
    # cells of 16 m from (0, 0): box 0 covers x 0..40 (cells 0..1, the grid's last column)
    assert frame[2] == 16.0 and (frame[3], frame[4]) == (2, 2)
    cells = {c: items[first[c] : first[c + 1]].tolist() for c in range(4)}
    assert cells == {0: [0], 1: [2], 2: [0, 1], 3: [3]}
