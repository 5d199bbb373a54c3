"""Uniform grids over points and boxes in plan view: the neighbour structures of the tick.

The collision broad phase, the autopilot's obstacle and lane searches and the walkers' turns
ask "which bodies are near here?" for every body. Scanning every body for every question
costs n² a tick; a grid made once a tick answers each question from the few cells around
it, so the cost per body stays flat however many bodies there are. Each grid is made in
one counting sort (linear in the items and the cells). Its cells are square, as large as
`min_cell` at least and as large as the items' spread divided evenly among them
(sqrt(area / items)), so a grid never has many more cells than items: at a given density of
bodies a cell holds the same few whatever the size of the town.

A grid is a frame (x0, y0, cell, nx, ny) and, for cell (i, j) (i along x from x0, j along
y from y0), the items `items[first[i * ny + j] : first[i * ny + j + 1]]` in ascending order.
Items whose coordinates are not finite are in no cell: every exact test a caller makes on
them fails anyway (comparisons with NaN are false). A caller visits the cells a query box
overlaps (`cell_span` per axis) and makes its exact test on each item found there, so the
answers are those of the full scan; where a caller needs the scan's order, it sorts the
few items found.
"""

from __future__ import annotations

import numpy as np

from world.kernels.compiled import njit

__all__ = ["box_grid", "cell_span", "point_grid"]

EMPTY_FRAME = (0.0, 0.0, 1.0, 1, 1)


@njit(cache=True, inline="always")
def _frame(x0, y0, x1, y1, count, min_cell):
    """The cell side and the cell counts of a grid over the box (x0, y0)-(x1, y1) for
    `count` items: cells of at least min_cell and about one item each on average."""
    width = x1 - x0
    height = y1 - y0
    cell = min_cell
    spread = np.sqrt(width * height / max(count, 1))
    if spread > cell:
        cell = spread
    # thin spreads (a line of bodies) keep the cells within a few per item too
    while (width / cell + 1.0) * (height / cell + 1.0) > 4.0 * count + 16.0:
        cell *= 2.0
    nx = int(width / cell) + 1
    ny = int(height / cell) + 1
    return cell, nx, ny


@njit(cache=True, inline="always")
def cell_span(origin, cell, cells, lo, hi):
    """The first and last cell index (inclusive, clamped to the grid) along one axis that the
    interval [lo, hi] overlaps; last < first when it misses the grid. The axis is given by
    its frame's numbers: along x (frame[0], frame[2], frame[3]), along y (frame[1],
    frame[2], frame[4]). Scalars, not the frame: an array handed to a helper costs two
    atomic reference counts per call, even inlined."""
    count = int(cells)
    a = (lo - origin) / cell
    b = (hi - origin) / cell
    if not (b >= 0.0 and a < count):  # beyond the grid (or NaN)
        return 0, -1
    first = int(np.floor(a)) if a > 0.0 else 0
    last = int(np.floor(b)) if b < count else count - 1
    return first, last


@njit(cache=True)
def point_grid(x, y, count, min_cell):
    """A grid of the points (x[k], y[k]) for k < count: frame (5,), first (cells + 1),
    items (point indices, each finite point once, ascending within a cell)."""
    x0 = y0 = np.inf
    x1 = y1 = -np.inf
    finite = 0
    for k in range(count):
        if np.isfinite(x[k]) and np.isfinite(y[k]):
            finite += 1
            x0, x1 = min(x0, x[k]), max(x1, x[k])
            y0, y1 = min(y0, y[k]), max(y1, y[k])
    frame = np.empty(5)
    if finite == 0:
        frame[0], frame[1], frame[2], frame[3], frame[4] = EMPTY_FRAME
        return frame, np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cell, nx, ny = _frame(x0, y0, x1, y1, finite, min_cell)
    frame[0], frame[1], frame[2], frame[3], frame[4] = x0, y0, cell, nx, ny
    key = np.full(count, -1, dtype=np.int64)
    first = np.zeros(nx * ny + 1, dtype=np.int64)
    for k in range(count):
        if np.isfinite(x[k]) and np.isfinite(y[k]):
            i = min(int((x[k] - x0) / cell), nx - 1)
            j = min(int((y[k] - y0) / cell), ny - 1)
            key[k] = i * ny + j
            first[key[k] + 1] += 1
    for c in range(nx * ny):
        first[c + 1] += first[c]
    fill = first[:-1].copy()
    items = np.empty(finite, dtype=np.int64)
    for k in range(count):
        if key[k] >= 0:
            items[fill[key[k]]] = k
            fill[key[k]] += 1
    return frame, first, items


@njit(cache=True, inline="always")
def _finite_box(lo_x, lo_y, hi_x, hi_y):
    return np.isfinite(lo_x) and np.isfinite(lo_y) and np.isfinite(hi_x) and np.isfinite(hi_y)


@njit(cache=True)
def box_grid(lo, hi, min_cell):
    """A grid of the axis-aligned boxes lo[k] .. hi[k] ((N, 2+) arrays, x and y), each box
    in every cell it overlaps: frame (5,), first (cells + 1), items (box indices, ascending
    within a cell). The frame spans the boxes' lower corners."""
    n = len(lo)
    x0 = y0 = np.inf
    x1 = y1 = -np.inf
    finite = 0
    for k in range(n):
        if _finite_box(lo[k, 0], lo[k, 1], hi[k, 0], hi[k, 1]):
            finite += 1
            x0, x1 = min(x0, lo[k, 0]), max(x1, lo[k, 0])
            y0, y1 = min(y0, lo[k, 1]), max(y1, lo[k, 1])
    frame = np.empty(5)
    if finite == 0:
        frame[0], frame[1], frame[2], frame[3], frame[4] = EMPTY_FRAME
        return frame, np.zeros(2, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cell, nx, ny = _frame(x0, y0, x1, y1, finite, min_cell)
    frame[0], frame[1], frame[2], frame[3], frame[4] = x0, y0, cell, nx, ny
    span = np.zeros((n, 4), dtype=np.int64)  # i0, i1, j0, j1 of each box's cells
    span[:, 1] = span[:, 3] = -1  # none for a box that is not finite
    first = np.zeros(nx * ny + 1, dtype=np.int64)
    total = 0
    for k in range(n):
        if not _finite_box(lo[k, 0], lo[k, 1], hi[k, 0], hi[k, 1]):
            continue
        i0, i1 = cell_span(x0, cell, nx, lo[k, 0], hi[k, 0])
        j0, j1 = cell_span(y0, cell, ny, lo[k, 1], hi[k, 1])
        span[k, 0], span[k, 1], span[k, 2], span[k, 3] = i0, i1, j0, j1
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                first[i * ny + j + 1] += 1
                total += 1
    for c in range(nx * ny):
        first[c + 1] += first[c]
    fill = first[:-1].copy()
    items = np.empty(total, dtype=np.int64)
    for k in range(n):
        for i in range(span[k, 0], span[k, 1] + 1):
            for j in range(span[k, 2], span[k, 3] + 1):
                c = i * ny + j
                items[fill[c]] = k
                fill[c] += 1
    return frame, first, items
