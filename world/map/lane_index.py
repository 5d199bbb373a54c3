"""A uniform-grid spatial index over short lane centre-line segments, queried in batches.

Lanes are cut into segments between centre samples (about 1 m apart). Each
segment is filed under every grid cell its bounding box overlaps: the 3 x 3 cells
around a point then hold every segment within one cell size of it, so a nearest
distance below the cell size is final. That settles most points near roads. Any
other point walks a tree of boxes over runs of consecutive segments of a lane
(packed sort-tile-recursive), nearest node first, until no node left can be
nearer than the best segment found. The search is compiled (numba, no fastmath)
and measures each segment it reaches in float64 by one formula, so the answer is
exactly the segment a scan of all of them would pick, ties going to the lowest
segment index.
Distances are 3D, as CARLA's R-tree of lane segments measures them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from world.kernels.array_table import ArrayTable, column, matrix
from world.kernels.compiled import njit

__all__ = ["LaneSegments", "SegmentGrid"]

_OFFSETS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)
_FANOUT = 8  # children per box of the far-point tree
_RUN = 8  # segments per leaf run of the far-point tree, at most
_MAX_CELLS = 4_000_000  # cells of the finest level at most; coarser cells on huge maps
_SLACK = 1e-9  # relative margin on distance bounds, against rounding
# cell coordinates beyond this many cells from the table are not converted to integers:
# such a point is far from every segment and goes straight to the tree
_FAR_CELLS = 2.0**52


@dataclass(slots=True)
class LaneSegments:
    """Segments a -> b (CARLA frame) with the lane node, s and yaw (deg) at both ends, and
    the lane's width and +t unit vector at `a` (the ground query uses them)."""

    a: np.ndarray
    b: np.ndarray
    node: np.ndarray
    s_a: np.ndarray
    s_b: np.ndarray
    width: np.ndarray
    lateral: np.ndarray
    yaw_a: np.ndarray
    yaw_b: np.ndarray

    def subset(self, mask: np.ndarray) -> LaneSegments:
        return LaneSegments(*(getattr(self, f)[mask] for f in self.__slots__))

    def __len__(self) -> int:
        return len(self.node)


class _Level:
    """Segments filed under every cell their bounding box overlaps, for one cell size.

    Any segment passing within `cell` (2D) of a point then lies in one of the 3 x 3
    cells around it, so a best distance <= `cell` found there is final. Cells are a
    dense table over the segments' bounds (CSR: start and count per cell).
    """

    def __init__(self, lo: np.ndarray, hi: np.ndarray, cell: float) -> None:
        self.cell = cell
        c0 = self.cells(lo)
        c1 = self.cells(hi)
        # two empty cells around the bounds: a point off the table is clamped into that
        # border, where the 3 x 3 cells hold nothing or segments farther than `cell`
        self.origin = (c0.min(axis=0) if len(c0) else np.zeros(2, dtype=np.int64)) - 2
        self.shape = (c1.max(axis=0) - self.origin + 3) if len(c1) else np.full(2, 5, np.int64)
        span = c1 - c0 + 1
        count = span[:, 0] * span[:, 1]
        seg = np.repeat(np.arange(len(lo)), count)
        k = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        cx = c0[seg, 0] + k // span[seg, 1] - self.origin[0]
        cy = c0[seg, 1] + k % span[seg, 1] - self.origin[1]
        flat = cx * self.shape[1] + cy
        order = np.argsort(flat, kind="stable")
        self.segment = seg[order]
        size = int(self.shape[0] * self.shape[1])
        self.counts = np.bincount(flat, minlength=size).astype(np.int64)
        self.starts = np.cumsum(self.counts) - self.counts
        self._around = _OFFSETS[:, 0] * self.shape[1] + _OFFSETS[:, 1]

    def cells(self, xy: np.ndarray) -> np.ndarray:
        return np.floor(xy[:, :2] / self.cell).astype(np.int64)

    def candidates(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query index, segment index) pairs for the 3 x 3 cells around each point, grouped
        by query index in ascending order."""
        c = self.cells(xy) - self.origin
        np.clip(c, 1, self.shape - 2, out=c)
        flat = ((c[:, 0] * self.shape[1] + c[:, 1])[:, None] + self._around[None, :]).ravel()
        counts = self.counts[flat]
        per_point = counts.reshape(-1, len(_OFFSETS)).sum(axis=1)
        owner = np.repeat(np.arange(len(xy)), per_point)
        shift = self.starts[flat] - (np.cumsum(counts) - counts)
        seg = self.segment[np.repeat(shift, counts) + np.arange(int(counts.sum()))]
        return owner, seg


class SegmentGrid:
    """Nearest-segment and covering-segment queries over a fixed set of lane segments."""

    def __init__(self, segments: LaneSegments, cell: float = 2.0, levels: int = 2) -> None:
        self.segments = segments
        lo = np.minimum(segments.a, segments.b)[:, :2]
        hi = np.maximum(segments.a, segments.b)[:, :2]
        if len(lo):
            area = float(np.prod(hi.max(axis=0) - lo.min(axis=0) + 1.0))
            cell = max(cell, float(np.sqrt(area / _MAX_CELLS)))
        self.levels = [_Level(lo, hi, cell * 2.0**k) for k in range(levels)]
        self._search: NearestArrays | None = None
        self._one: tuple[ArrayTable, float, int, int] | None = None  # nearest_one's table

    def nearest(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per point: nearest segment index (-1 if there are none), its u, and the distance.

        Exact in float64: the answer is the segment a scan of all of them would pick, ties
        going to the lowest segment index. A point with a coordinate that is not finite
        gets -1, u 0 and an infinite distance.
        """
        points = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
        n = len(points)
        seg, u, dist = np.full(n, -1, dtype=np.int64), np.zeros(n), np.full(n, np.inf)
        if not len(self.segments):
            return seg, u, dist
        if self._search is None:
            self._search = _nearest_arrays(self.segments, self.levels)
        _nearest_into(self._search, points, seg, u, dist)
        return seg, u, dist

    def nearest_one(self, x: float, y: float, z: float) -> tuple:
        """`nearest` of the one point (x, y, z), as plain numbers, with the segment's numbers:
        (segment, u, distance, a (x, y, z), b (x, y, z), s_a, s_b, yaw_a, yaw_b, width, node),
        or (-1, 0.0, inf) alone. One compiled call taking one table of the search's arrays
        (world.kernels.array_table): a lookup a tick (get_waypoint, the criteria's lane) spares
        the unboxing of ~20 arrays and the arrays a batch needs."""
        if not len(self.segments):
            return -1, 0.0, math.inf
        if self._one is None:
            self._one = self._one_point_table()
        table, scale, leaves, roots = self._one
        return _nearest_one(table.table, scale, leaves, roots, float(x), float(y), float(z))

    def _one_point_table(self) -> tuple[ArrayTable, float, int, int]:
        """nearest_one's table (NearestArrays' arrays, the segments' rows of numbers and the
        tree walk's work space) and NearestArrays' three scalars."""
        if self._search is None:
            self._search = _nearest_arrays(self.segments, self.levels)
        arrays = self._search
        sg = self.segments
        columns = (sg.s_a, sg.s_b, sg.yaw_a, sg.yaw_b, sg.width, sg.node)
        # every value is exact in float64 (the node ids are small integers)
        rows = np.column_stack([sg.a, sg.b, *columns]).astype(np.float64)
        work = (np.empty(len(arrays.box), dtype=np.int64), np.empty(len(arrays.box)))
        groups = (tuple(getattr(arrays, name) for name in _TABLE_FIELDS), (rows, *work))
        table = ArrayTable(groups, _ONE_POINT_KINDS)
        return table, arrays.scale, arrays.leaves, arrays.roots

    def __getstate__(self) -> tuple:
        """Pickled (the map store) without nearest_one's table: its addresses are this
        process's."""
        return self.segments, self.levels, self._search

    def __setstate__(self, state: tuple) -> None:
        self.segments, self.levels, self._search = state
        self._one = None

    def covering(
        self, points: np.ndarray, joins: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(point index, segment index, u) for every segment whose lane covers the point in 2D.

        A lane covers a point when the point's projection falls on the segment and its
        horizontal distance across the lane is at most half the lane width there. With
        `joins`, the pairs of the other rule instead: the projection falls beyond an end of
        the segment and the point lies within half the width of that end (u is 0 or 1). The
        joins fill the wedges a bend leaves between two segments' slabs on its outer side,
        which belong to the lane but lie beyond both segments' ends.
        """
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        owner, seg = self.levels[0].candidates(points)
        sg = self.segments
        p = points[owner]
        a = sg.a[seg][:, :2]
        d = sg.b[seg][:, :2] - a
        dd = np.einsum("ij,ij->i", d, d)
        u_raw = np.einsum("ij,ij->i", p[:, :2] - a, d) / np.where(dd > 0.0, dd, 1.0)
        u = np.clip(u_raw, 0.0, 1.0)
        off = p[:, :2] - (a + u[:, None] * d)
        half = 0.5 * sg.width[seg]
        on_segment = (u_raw >= -1e-3) & (u_raw <= 1.0 + 1e-3)
        if joins:
            near_end = off[:, 0] * off[:, 0] + off[:, 1] * off[:, 1] <= half * half
            inside = ~on_segment & near_end
        else:
            across = np.abs(d[:, 0] * off[:, 1] - d[:, 1] * off[:, 0]) / np.sqrt(
                np.maximum(dd, 1e-18)
            )
            inside = on_segment & (across <= half)
        return owner[inside], seg[inside], u[inside]


class NearestArrays(NamedTuple):
    """The compiled search's inputs: the grid levels, finest first (their cell tables laid
    end to end), the segments and the far-point tree.

    Tree nodes are boxes (float64, over both ends of every segment below them). Nodes
    0 .. leaves - 1 are runs of consecutive segments of one lane (`first`, `count`: their
    segments), each also held as its chord (first to last vertex) and its reach, the
    farthest a vertex strays from the chord; every other node boxes the nodes `first` ..
    `first + count - 1`; the nodes from `roots` on are the top of the tree.
    """

    cell: np.ndarray  # (L,) per level
    origin: np.ndarray  # (L, 2)
    shape: np.ndarray  # (L, 2)
    table: np.ndarray  # (L,) where each level's cells begin in starts / counts
    starts: np.ndarray  # per cell: where its filings begin in `filed`
    counts: np.ndarray
    filed: np.ndarray  # segment indices, cell after cell
    a: np.ndarray  # (N, 3) segment starts
    d: np.ndarray  # (N, 3) b - a
    inv: np.ndarray  # 1 / |b - a|^2, 0 for a segment of no length
    scale: float  # the largest coordinate magnitude of any segment end
    box: np.ndarray  # (M, 6) x, y, z low, x, y, z high
    first: np.ndarray  # (M,)
    count: np.ndarray  # (M,)
    leaves: int
    roots: int
    chord_a: np.ndarray  # (leaves, 3)
    chord_d: np.ndarray  # (leaves, 3)
    chord_inv: np.ndarray  # (leaves,)
    reach: np.ndarray  # (leaves,)


def _nearest_arrays(sg: LaneSegments, levels: list[_Level]) -> NearestArrays:
    """The grid levels and segments in the compiled search's form, and the tree over them:
    runs of up to _RUN consecutive segments of one lane, tiled (`_tile_order`) and boxed
    _FANOUT at a time, those boxes tiled and boxed again, up to a top of at most _FANOUT
    boxes."""
    d = sg.b - sg.a
    sizes = [int(lv.shape[0] * lv.shape[1]) for lv in levels]
    filings = np.cumsum([0, *(len(lv.segment) for lv in levels)])
    start, count, p0, p1, reach = lane_runs(sg, _RUN)
    lo = np.minimum.reduceat(np.minimum(sg.a, sg.b), start)
    hi = np.maximum.reduceat(np.maximum(sg.a, sg.b), start)
    order = _tile_order(lo, hi)
    lo, hi = lo[order], hi[order]
    boxes, firsts, counts = [np.hstack([lo, hi])], [start[order]], [count[order]]
    below = 0  # where the children of the level being built begin among all nodes
    while len(lo) > _FANOUT:
        group = np.arange(0, len(lo), _FANOUT)
        first, size = below + group, np.diff(np.r_[group, len(lo)])
        below += len(lo)
        lo, hi = np.minimum.reduceat(lo, group), np.maximum.reduceat(hi, group)
        tiles = _tile_order(lo, hi)
        lo, hi = lo[tiles], hi[tiles]
        boxes.append(np.hstack([lo, hi]))
        firsts.append(first[tiles])
        counts.append(size[tiles])
    chord = p1[order] - p0[order]
    return NearestArrays(
        np.array([lv.cell for lv in levels], dtype=np.float64),
        np.array([lv.origin for lv in levels], dtype=np.int64).reshape(-1, 2),
        np.array([lv.shape for lv in levels], dtype=np.int64).reshape(-1, 2),
        np.cumsum([0, *sizes[:-1]]).astype(np.int64),
        np.concatenate([lv.starts + filings[k] for k, lv in enumerate(levels)]),
        np.concatenate([lv.counts for lv in levels]).astype(np.int64),
        np.concatenate([lv.segment for lv in levels]).astype(np.int64),
        np.ascontiguousarray(sg.a, dtype=np.float64),
        np.ascontiguousarray(d),
        _inverse_squares(d),
        float(np.abs(np.vstack([sg.a, sg.b])).max()),
        np.ascontiguousarray(np.vstack(boxes)),
        np.concatenate(firsts).astype(np.int64),
        np.concatenate(counts).astype(np.int64),
        len(start),
        below,
        np.ascontiguousarray(p0[order]),
        np.ascontiguousarray(chord),
        _inverse_squares(chord),
        reach[order],
    )


def lane_runs(sg: LaneSegments, most: int) -> tuple[np.ndarray, ...]:
    """Runs of up to `most` consecutive segments of one lane, each joined to the next:
    (first segment, segment count, first vertex p0, last vertex p1, reach), the reach
    being the farthest a vertex strays from the chord p0 -> p1. Every point of a run lies
    within its reach of the chord and every point of the chord within its reach of the
    run, so the chord's distance bounds the run's from both sides."""
    n = len(sg)
    joined = np.zeros(n, dtype=bool)
    joined[1:] = (sg.node[1:] == sg.node[:-1]) & (sg.a[1:] == sg.b[:-1]).all(axis=1)
    chain_start = np.maximum.accumulate(np.where(joined, 0, np.arange(n)))
    start = np.flatnonzero((np.arange(n) - chain_start) % most == 0)
    count = np.diff(np.r_[start, n])
    p0, p1 = sg.a[start], sg.b[start + count - 1]
    run_of = np.repeat(np.arange(len(start)), count)
    reach = np.maximum.reduceat(_vertex_offsets(sg.a, p0[run_of], p1[run_of]), start)
    return start, count, p0, p1, reach


def _inverse_squares(d: np.ndarray) -> np.ndarray:
    """1 / |d|^2 per row, 0 for a zero row."""
    dd = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]
    return 1.0 / np.where(dd > 0.0, dd, np.inf)


def _vertex_offsets(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of each point p to the segment a -> b (rows in step)."""
    d = b - a
    u = np.clip(np.einsum("ij,ij->i", p - a, d) * _inverse_squares(d), 0.0, 1.0)
    return np.linalg.norm(p - (a + u[:, None] * d), axis=1)


@njit(cache=True)
def _cell(coordinate: float, cell: float, origin: int, size: int) -> int:
    """The table index of the cell holding `coordinate`, clamped into [1, size - 2] (a
    level's border of empty cells); -1 for a coordinate absurdly far off the table."""
    c = np.floor(coordinate / cell)
    if not (abs(c) < _FAR_CELLS):
        return -1
    return min(max(int(c) - origin, 1), size - 2)


@njit(cache=True)
def _to_segment(a, d, inv, s: int, px: float, py: float, pz: float) -> tuple:
    """(u, distance) of the point on segment s (a[s] + u d[s], u in [0, 1]) nearest to
    (px, py, pz), in float64."""
    w0, w1, w2 = px - a[s, 0], py - a[s, 1], pz - a[s, 2]
    u = (w0 * d[s, 0] + w1 * d[s, 1] + w2 * d[s, 2]) * inv[s]
    u = min(max(u, 0.0), 1.0)
    r0, r1, r2 = w0 - u * d[s, 0], w1 - u * d[s, 1], w2 - u * d[s, 2]
    return u, np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)


@njit(cache=True)
def _node_bounds(arrays: NearestArrays, k: int, px: float, py: float, pz: float) -> tuple:
    """(low, high): bounds on the distance from (px, py, pz) to the segments under tree node
    k, from its box and, for a run, its chord and reach (high is inf for other nodes)."""
    box = arrays.box
    gx = max(box[k, 0] - px, px - box[k, 3], 0.0)
    gy = max(box[k, 1] - py, py - box[k, 4], 0.0)
    gz = max(box[k, 2] - pz, pz - box[k, 5], 0.0)
    low = np.sqrt(gx * gx + gy * gy + gz * gz)
    if k >= arrays.leaves:
        return low, np.inf
    chord = _to_segment(arrays.chord_a, arrays.chord_d, arrays.chord_inv, k, px, py, pz)[1]
    return max(low, chord - arrays.reach[k]), chord + arrays.reach[k]


@njit(cache=True)
def _fold(arrays: NearestArrays, s: int, px, py, pz, best: int, best_u, best_d) -> tuple:
    """The nearer of segment s and the best so far (equal distances: the lower index)."""
    u, dist = _to_segment(arrays.a, arrays.d, arrays.inv, s, px, py, pz)
    if dist < best_d or (dist == best_d and s < best):
        return s, u, dist
    return best, best_u, best_d


@njit(cache=True)
def _grid_nearest(arrays: NearestArrays, px: float, py: float, pz: float) -> tuple:
    """(segment, u, distance, settled): the nearest of the segments filed in the 3 x 3 cells
    around the point at the first grid level whose cell exceeds that distance (settled),
    else the nearest the coarsest level holds (-1, 0, inf when it holds none)."""
    best, best_u, best_d = -1, 0.0, np.inf
    for lv in range(len(arrays.cell)):
        cell, sy = arrays.cell[lv], arrays.shape[lv, 1]
        cx = _cell(px, cell, arrays.origin[lv, 0], arrays.shape[lv, 0])
        cy = _cell(py, cell, arrays.origin[lv, 1], sy)
        if cx < 0 or cy < 0:
            break
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                flat = arrays.table[lv] + (cx + dx) * sy + (cy + dy)
                at = arrays.starts[flat]
                for k in range(at, at + arrays.counts[flat]):
                    best, best_u, best_d = _fold(
                        arrays, arrays.filed[k], px, py, pz, best, best_u, best_d
                    )
        if best_d < cell * (1.0 - _SLACK):
            return best, best_u, best_d, True
    return best, best_u, best_d, False


@njit(cache=True)
def _tree_nearest(arrays: NearestArrays, px, py, pz, best: int, best_u, best_d, nodes, lows):
    """The nearest segment, from the best so far, down the tree nearest node first (a heap
    on the nodes' low bounds): once the nearest node left has a low bound above the least
    high bound or best distance known, plus a margin far above float64 rounding, no node
    left can hold the answer. `nodes` and `lows` are the heap's arrays, a slot per node."""
    margin = _SLACK * (1.0 + arrays.scale + max(abs(px), abs(py), abs(pz)))
    high = np.inf
    size = 0
    for k in range(arrays.roots, len(arrays.box)):
        low, h = _node_bounds(arrays, k, px, py, pz)
        high = min(high, h)
        size = _heap_push(nodes, lows, size, k, low)
    while size > 0:
        node, low, size = _heap_pop(nodes, lows, size)
        if low > min(best_d, high) + margin:
            break
        first, count = arrays.first[node], arrays.count[node]
        if node < arrays.leaves:
            for s in range(first, first + count):
                best, best_u, best_d = _fold(arrays, s, px, py, pz, best, best_u, best_d)
            continue
        for k in range(first, first + count):
            low, h = _node_bounds(arrays, k, px, py, pz)
            high = min(high, h)
            if low <= min(best_d, high) + margin:
                size = _heap_push(nodes, lows, size, k, low)
    return best, best_u, best_d


@njit(cache=True)
def _heap_push(nodes: np.ndarray, lows: np.ndarray, size: int, node: int, low: float) -> int:
    """Add `node` with key `low` to the binary min-heap of `size` entries; the new size."""
    j = size
    while j > 0:
        parent = (j - 1) >> 1
        if lows[parent] <= low:
            break
        nodes[j], lows[j] = nodes[parent], lows[parent]
        j = parent
    nodes[j], lows[j] = node, low
    return size + 1


@njit(cache=True)
def _heap_pop(nodes: np.ndarray, lows: np.ndarray, size: int) -> tuple:
    """(node, low, new size): the entry of least key taken off the heap."""
    node, low = nodes[0], lows[0]
    size -= 1
    last, last_low = nodes[size], lows[size]
    j = 0
    while True:
        c = 2 * j + 1
        if c >= size:
            break
        if c + 1 < size and lows[c + 1] < lows[c]:
            c += 1
        if lows[c] >= last_low:
            break
        nodes[j], lows[j] = nodes[c], lows[c]
        j = c
    nodes[j], lows[j] = last, last_low
    return node, low, size


@njit(cache=True)
def _nearest_into(arrays: NearestArrays, pts: np.ndarray, seg_out, u_out, d_out) -> None:
    """`SegmentGrid.nearest` of (N, 3) points into seg_out, u_out and d_out."""
    nodes = np.empty(len(arrays.box), dtype=np.int64)  # a walk adds each node once at most
    lows = np.empty(len(arrays.box))
    for i in range(len(pts)):
        seg_out[i], u_out[i], d_out[i] = _point_nearest(
            arrays, pts[i, 0], pts[i, 1], pts[i, 2], nodes, lows
        )


# NearestArrays' arrays in nearest_one's table, in order (the scalars go beside it)
_TABLE_FIELDS = tuple(
    name for name in NearestArrays._fields if name not in ("scale", "leaves", "roots")
)
_F8, _F8_2, _I8, _I8_2 = (np.float64, 1), (np.float64, 2), (np.int64, 1), (np.int64, 2)
_ONE_POINT_KINDS = (
    (
        _F8, _I8_2, _I8_2, _I8, _I8, _I8, _I8, _F8_2, _F8_2, _F8, _F8_2, _I8, _I8, _F8_2,
        _F8_2, _F8, _F8,
    ),
    (_F8_2, _I8, _F8),  # the segments' rows of numbers; the walk's nodes and lows
)  # fmt: skip


@njit(cache=True)
def _nearest_one(table, scale, leaves, roots, px, py, pz) -> tuple:
    """_nearest_into's answer for one point, with its segment's row of numbers (see
    SegmentGrid.nearest_one), on the arrays of nearest_one's table."""
    f8, i8 = np.float64, np.int64
    arrays = NearestArrays(
        column(table, 0, f8),
        matrix(table, 1, i8),
        matrix(table, 2, i8),
        column(table, 3, i8),
        column(table, 4, i8),
        column(table, 5, i8),
        column(table, 6, i8),
        matrix(table, 7, f8),
        matrix(table, 8, f8),
        column(table, 9, f8),
        scale,
        matrix(table, 10, f8),
        column(table, 11, i8),
        column(table, 12, i8),
        leaves,
        roots,
        matrix(table, 13, f8),
        matrix(table, 14, f8),
        column(table, 15, f8),
        column(table, 16, f8),
    )
    rows, nodes, lows = matrix(table, 17, f8), column(table, 18, i8), column(table, 19, f8)
    k, u, dist = _point_nearest(arrays, px, py, pz, nodes, lows)
    if k < 0:
        return k, u, dist, (0.0,) * 12
    r = rows[k]
    row = (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11])
    return k, u, dist, row


@njit(cache=True, inline="always")
def _point_nearest(
    arrays: NearestArrays, px: float, py: float, pz: float, nodes, lows
) -> tuple[int, float, float]:
    """One point's nearest segment, its u and distance ((-1, 0, inf) for a point with a
    coordinate that is not finite): the grid levels settle the points near roads, the tree
    (walked in the work space `nodes`, `lows`) the others."""
    if not (np.isfinite(px) and np.isfinite(py) and np.isfinite(pz)):
        return -1, 0.0, np.inf
    best, best_u, best_d, settled = _grid_nearest(arrays, px, py, pz)
    if not settled:
        best, best_u, best_d = _tree_nearest(arrays, px, py, pz, best, best_u, best_d, nodes, lows)
    return best, best_u, best_d


def _tile_order(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """An order of boxes that puts near ones _FANOUT at a time (sort-tile-recursive packing):
    by the x of their centres into about sqrt(n / _FANOUT) vertical slices, each slice by y."""
    mid = 0.5 * (lo + hi)
    pages = -(-len(lo) // _FANOUT)
    per_slice = _FANOUT * max(1, int(np.ceil(np.sqrt(pages))))
    slice_of = np.empty(len(lo), dtype=np.int64)
    slice_of[np.argsort(mid[:, 0], kind="stable")] = np.arange(len(lo)) // per_slice
    return np.lexsort((mid[:, 1], slice_of))
