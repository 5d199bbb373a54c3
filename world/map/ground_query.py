"""The road-surface query of `Map.ground`, compiled: the highest lane surface over each point.

For every point the compiled loop (numba, `highest_into`) walks the segments
filed under the 3 x 3 cells of the ground grid's finest level around it (the
cells and their order those of `SegmentGrid.covering`), skips those whose box,
grown by what covering allows, does not hold the point, keeps the ones whose
lane covers the point in 2D (the point's projection on the segment, its
distance across the lane at most half the lane width; for a point none covers
so within reach, the joins: a segment end within half the lane width, which
fills the wedges on the outer side of a bend), measures each one's
surface height there (the centre line's height plus the lane's cross slope
times the distance across), and keeps the highest at most `reach` above the
point; among equal heights the first in that walk. The answer's normal is a
per-segment constant (lateral x forward, unit, pointing up).

Every quantity that depends on a segment only (its direction, squared length,
half width, the lateral's horizontal length, the normal) is computed once here
in numpy, with the numpy expressions the batch query used; the loop evaluates
the per-point expressions operation for operation in the same order, in IEEE
float64 (no fastmath), so the answers are the batch query's bit for bit.

The walk is cut to what can matter, with the same answers: each cell keeps two lists made
once, in the walk's order. The slabs' list holds each segment once (a segment filed under
several of the nine cells gives the same surface each time, and a later equal height never
wins) and only those whose slab's box meets the cell: the slab's own box (its length, 1e-3
of it beyond each end, and half the width across it, on each axis as the segment runs),
not the box grown by half the width every way that the joins need. A point on a lane of a
town so tests about 16 segments' boxes and 2 segments instead of 32 and 8 (most of the
query's time went in reading them: ~25 cache lines a point that the rest of the tick has
evicted). The joins' list, read only for a point no slab covers, is the whole walk. The loop's
inputs are one NamedTuple (`SurfaceArrays`), so the physics tick runs the query inside its
own compiled call (world.physics.tick).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from world import elementary as el
from world.kernels.compiled import from_numba, njit
from world.map.lane_index import SegmentGrid

__all__ = [
    "HELD_SLABS",
    "NO_SURFACES",
    "GroundMemory",
    "SurfaceArrays",
    "SurfaceIndex",
    "ground_memory",
    "highest_into",
    "highest_remembered",
]

(prefetch,) = from_numba("world.kernels.intrinsics", "prefetch")

# cell coordinates beyond this many cells from the table are not converted to integers:
# such a point is nowhere near a segment, so no lane covers it
_FAR_CELLS = 2.0**52


class SurfaceArrays(NamedTuple):
    """The compiled loop's inputs: the finest grid level, the filings' boxes and the
    per-segment constants. A NamedTuple, so compiled callers (world.physics.tick) take it as is."""

    reach: float
    cell: float
    origin_x: int
    origin_y: int
    shape_x: int
    shape_y: int
    near_starts: np.ndarray  # (cells + 1,): where each cell's neighbourhood list starts
    near_segment: np.ndarray  # the lists' segments
    near_box: np.ndarray  # (entries, 4): their boxes, x low, y low, x high, y high
    slab_starts: np.ndarray  # (cells + 1,): the same for the slabs' lists
    slab_segment: np.ndarray
    slab_box: np.ndarray  # (entries, 4): the boxes of the segments' slabs
    segments: np.ndarray  # (segments, 16): the constants below, one row per segment


# the columns of SurfaceArrays.segments (one row: the two cache lines a candidate needs):
# start a (3), forward b - a (3), the squared horizontal length (1 where 0) and its root,
# half the lane width, the lateral (3) and its horizontal length, the unit normal (3)
_A, _FORWARD, _DD_DIV, _DD_ROOT, _HALF_WIDTH, _LATERAL, _LAT_H, _NORMAL = 0, 3, 6, 7, 8, 9, 12, 13


# no surface anywhere: what the physics passes for a map that answers `ground` itself
NO_SURFACES = SurfaceArrays(
    1.0,
    1.0,
    0,
    0,
    0,
    0,
    np.zeros(1, dtype=np.int64),
    np.zeros(0, dtype=np.int64),
    np.zeros((0, 4)),
    np.zeros(1, dtype=np.int64),
    np.zeros(0, dtype=np.int64),
    np.zeros((0, 4)),
    np.zeros((0, 16)),
)


class SurfaceIndex:
    """The ground grid's finest level and per-segment constants, in the compiled loop's form
    (`arrays`)."""

    def __init__(self, grid: SegmentGrid, reach: float) -> None:
        sg = grid.segments
        level = grid.levels[0]
        origin = level.origin.astype(np.int64)
        shape = level.shape.astype(np.int64)
        forward = sg.b - sg.a
        d = forward[:, :2]
        dd = np.einsum("ij,ij->i", d, d)
        # a point the lane covers projects at most 1e-3 of the segment's length beyond its
        # ends and lies at most half the width across it, so it lies in the segment's box
        # grown by both; the margin on top dwarfs float64's rounding of the exact test, so
        # a point outside the box (two compares per axis) is one the exact test would refuse
        margin = 1e-6 * (1.0 + np.abs(sg.a[:, :2]).max(axis=1))
        grow = 0.5 * sg.width + 1e-3 * np.sqrt(dd) + margin
        # (the test refuses nothing near a segment of no horizontal length: no box for it)
        grow = np.where(dd > 0.0, grow, np.inf)
        lo = np.minimum(sg.a, sg.b)[:, :2] - grow[:, None]
        hi = np.maximum(sg.a, sg.b)[:, :2] + grow[:, None]
        # the slab alone (the rule tried first): within 1e-3 of the length beyond each end
        # along the segment and half the width across it, so on each axis the segment's
        # extent grown by those two as the segment runs (and the same margin); a segment
        # shorter than 1 mm keeps the box above (its projection's rounding is not small)
        length = np.sqrt(dd)
        along = np.where(length >= 1e-3, length, 1.0)
        slab = np.abs(d[:, ::-1]) * (0.5 * sg.width / along)[:, None]
        slab += 1e-3 * np.abs(d) + margin[:, None]
        slab = np.where((length >= 1e-3)[:, None], slab, grow[:, None])
        slab_box = np.hstack(
            [
                np.maximum(np.minimum(sg.a, sg.b)[:, :2] - slab, lo),
                np.minimum(np.maximum(sg.a, sg.b)[:, :2] + slab, hi),
            ]
        )
        lat = np.ascontiguousarray(sg.lateral, dtype=np.float64)
        normal = np.cross(lat, forward)
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        normal *= np.where(normal[:, 2] < 0.0, -1.0, 1.0)[:, None]
        near = _neighbourhoods(
            float(level.cell),
            origin,
            shape,
            np.ascontiguousarray(level.starts, dtype=np.int64),
            np.ascontiguousarray(level.counts, dtype=np.int64),
            np.ascontiguousarray(level.segment, dtype=np.int64),
            # one row per filing of a segment under a cell, in the cells' order
            np.ascontiguousarray(np.hstack([lo, hi])[level.segment]),
        )
        slab_starts, slab_segment = _slab_lists(
            float(level.cell), origin, shape, near[0], near[1], slab_box
        )
        self.arrays = SurfaceArrays(
            float(reach),
            float(level.cell),
            int(origin[0]),
            int(origin[1]),
            int(shape[0]),
            int(shape[1]),
            *(_line_aligned(array) for array in near),
            _line_aligned(slab_starts),
            _line_aligned(slab_segment),
            _line_aligned(slab_box[slab_segment]),
            _line_aligned(
                np.column_stack(
                    [
                        np.asarray(sg.a, dtype=np.float64),
                        forward,
                        np.where(dd > 0.0, dd, 1.0),
                        np.sqrt(np.maximum(dd, 1e-18)),
                        0.5 * sg.width,
                        lat,
                        el.hypot_v(lat[:, 0], lat[:, 1]),
                        normal,
                    ]
                ).astype(np.float64, copy=False)
            ),
        )

    def highest(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(z, normal, found) for (N, 3) CARLA-frame points: the highest covering surface
        at most `reach` above each point; NaN, (0, 0, 1), False where there is none."""
        pts = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
        return _highest(self.arrays, pts)


# bytes of a cache line: the tables start on one, so a segment's row (16 float64) is two
# lines and a slab's box (4) half of one
_LINE = 64


def _line_aligned(array: np.ndarray) -> np.ndarray:
    """A C-ordered copy of `array` whose data starts on a cache line (numpy's own start 16
    bytes past one, which spreads a segment's row over three lines)."""
    array = np.ascontiguousarray(array)
    buffer = np.empty(array.nbytes + _LINE, dtype=np.uint8)
    skip = -buffer.ctypes.data % _LINE
    aligned = buffer[skip : skip + array.nbytes].view(array.dtype).reshape(array.shape)
    aligned[...] = array
    return aligned


@njit(cache=True)
def _highest(surfaces: SurfaceArrays, pts: np.ndarray) -> tuple:
    n = len(pts)
    z, normal, found = np.empty(n), np.empty((n, 3)), np.empty(n, dtype=np.bool_)
    highest_into(surfaces, pts, z, normal, found)
    return z, normal, found


@njit(cache=True)
def _neighbourhoods(
    cell: float,
    origin: np.ndarray,
    shape: np.ndarray,
    starts: np.ndarray,
    counts: np.ndarray,
    segment: np.ndarray,
    box: np.ndarray,
) -> tuple:
    """For every cell a point can be filed under, the filings of the 3 x 3 cells around it,
    in the walk's order (cells by dx, then dy, then filing), whose box meets the cell: a
    point of the cell lies outside every other box, so walking these is walking all nine.

    A cell clamped to (index 1 or size - 2 on an axis) reaches to infinity on that side;
    every reach is grown by 1e-6 of its coordinate's size, far beyond the rounding of the
    division that files a point under a cell. Returns the lists' starts (cells + 1), their
    segments and their boxes."""
    sx, sy = shape[0], shape[1]
    near = np.zeros(sx * sy + 1, dtype=np.int64)
    entries = np.empty(0, dtype=np.int64)
    for fill in range(2):  # count, then fill
        total = 0
        for cx in range(1, sx - 1):
            lo_x, hi_x = _reach(cx, cell, origin[0], sx)
            for cy in range(1, sy - 1):
                lo_y, hi_y = _reach(cy, cell, origin[1], sy)
                flat = cx * sy + cy
                if fill:
                    near[flat] = total
                for dx in range(-1, 2):
                    for dy in range(-1, 2):
                        other = (cx + dx) * sy + (cy + dy)
                        for k in range(starts[other], starts[other] + counts[other]):
                            meets = box[k, 0] <= hi_x and box[k, 2] >= lo_x
                            if meets and box[k, 1] <= hi_y and box[k, 3] >= lo_y:
                                if fill:
                                    entries[total] = k
                                total += 1
        if not fill:
            entries = np.empty(total, dtype=np.int64)
    # an empty list for the cells no point is filed under: each starts where the next does
    near[sx * sy] = len(entries)
    for flat in range(sx * sy - 1, -1, -1):
        cx, cy = flat // sy, flat % sy
        if not (1 <= cx <= sx - 2 and 1 <= cy <= sy - 2):
            near[flat] = near[flat + 1]
    return near, segment[entries], box[entries]


@njit(cache=True)
def _slab_lists(
    cell: float,
    origin: np.ndarray,
    shape: np.ndarray,
    near_starts: np.ndarray,
    near_segment: np.ndarray,
    slab_box: np.ndarray,
) -> tuple:
    """For every cell, the segments of its neighbourhood list (`_neighbourhoods`), each at its
    first place in the walk, whose slab's box (`slab_box`, one row per segment) meets the
    cell. Returns the lists' starts (cells + 1) and their segments."""
    sx, sy = shape[0], shape[1]
    starts = np.zeros(sx * sy + 1, dtype=np.int64)
    kept = np.empty(len(near_segment), dtype=np.int64)
    seen = np.full(len(slab_box), -1, dtype=np.int64)  # the last cell that listed a segment
    total = 0
    for flat in range(sx * sy):
        starts[flat] = total
        cx, cy = flat // sy, flat % sy
        if not (1 <= cx <= sx - 2 and 1 <= cy <= sy - 2):
            continue
        lo_x, hi_x = _reach(cx, cell, origin[0], sx)
        lo_y, hi_y = _reach(cy, cell, origin[1], sy)
        for k in range(near_starts[flat], near_starts[flat + 1]):
            s = near_segment[k]
            if seen[s] == flat:
                continue
            seen[s] = flat
            meets = slab_box[s, 0] <= hi_x and slab_box[s, 2] >= lo_x
            if meets and slab_box[s, 1] <= hi_y and slab_box[s, 3] >= lo_y:
                kept[total] = s
                total += 1
    starts[sx * sy] = total
    return starts, kept[:total].copy()


@njit(cache=True)
def _reach(index: int, cell: float, origin: int, size: int) -> tuple:
    """The coordinates filed under cell `index` of an axis (`_cell_index`), grown."""
    lo = (origin + index) * cell if index > 1 else -np.inf
    hi = (origin + index + 1) * cell if index < size - 2 else np.inf
    grow = 1e-6 * (cell + max(abs(origin) * cell, abs(origin + size) * cell))
    return lo - grow, hi + grow


@njit(cache=True)
def _cell_index(coordinate: float, cell: float, origin: int, size: int) -> int:
    """The table index of the cell holding `coordinate`, clamped into [1, size - 2]; -1 for a
    coordinate that is not finite or lies absurdly far off the table."""
    c = np.floor(coordinate / cell)
    if not (abs(c) < _FAR_CELLS):
        return -1
    k = int(c) - origin
    return min(max(k, 1), size - 2)


@njit(cache=True, inline="always")
def _covering_surface(seg: np.ndarray, s: int, px: float, py: float, joins: bool) -> float:
    """The height of segment `s`'s lane surface under (px, py), NaN where the lane does not
    cover the point by the rule `joins` picks (SegmentGrid.covering's, operation for
    operation)."""
    ax, ay = seg[s, _A], seg[s, _A + 1]
    fx, fy = seg[s, _FORWARD], seg[s, _FORWARD + 1]
    u_raw = ((px - ax) * fx + (py - ay) * fy) / seg[s, _DD_DIV]
    on_segment = u_raw >= -1e-3 and u_raw <= 1.0 + 1e-3
    if on_segment == joins:
        return np.nan
    u = min(max(u_raw, 0.0), 1.0)
    cx_s = ax + u * fx
    cy_s = ay + u * fy
    half = seg[s, _HALF_WIDTH]
    if joins:
        ox, oy = px - cx_s, py - cy_s
        if not (ox * ox + oy * oy <= half * half):
            return np.nan
    elif not (abs(fx * (py - cy_s) - fy * (px - cx_s)) / seg[s, _DD_ROOT] <= half):
        return np.nan
    lx, ly, lz = seg[s, _LATERAL], seg[s, _LATERAL + 1], seg[s, _LATERAL + 2]
    h = seg[s, _LAT_H]
    side = ((px - cx_s) * lx + (py - cy_s) * ly) / h
    return (seg[s, _A + 2] + u * seg[s, _FORWARD + 2]) + side * lz / h


@njit(cache=True, inline="always")
def _best_listed(
    seg: np.ndarray,
    listed: np.ndarray,
    box: np.ndarray,
    start: int,
    stop: int,
    px: float,
    py: float,
    limit: float,
    joins: bool,
) -> tuple:
    """(segment, height) of the highest surface at or below `limit` covering (px, py) among
    the listed segments `listed[start:stop]` whose boxes (x0, y0, x1, y1) hold the point, or
    (-1, 0.0): the first of equal heights wins, as the list's order gives them."""
    best = -1
    best_z = 0.0
    for k in range(start, stop):
        if px < box[k, 0] or px > box[k, 2] or py < box[k, 1] or py > box[k, 3]:
            continue
        s = listed[k]
        surface = _covering_surface(seg, s, px, py, joins)
        if surface <= limit and (best < 0 or surface > best_z):
            best = s
            best_z = surface
    return best, best_z


@njit
def highest_into(
    surfaces: SurfaceArrays,
    pts: np.ndarray,
    z_out: np.ndarray,
    normal_out: np.ndarray,
    found_out: np.ndarray,
) -> None:
    """`SurfaceIndex.highest` for compiled callers: fills the (N,) z, (N, 3) normal and (N,)
    found of the (N, 3) points `pts`."""
    z_out[:] = np.nan
    normal_out[:] = 0.0
    normal_out[:, 2] = 1.0
    found_out[:] = False
    seg = surfaces.segments
    if len(seg) == 0:
        return
    reach, cell = surfaces.reach, surfaces.cell
    origin_x, origin_y, shape_x, shape_y = (
        surfaces.origin_x,
        surfaces.origin_y,
        surfaces.shape_x,
        surfaces.shape_y,
    )
    slab_starts, slab_segment, slab_box = (
        surfaces.slab_starts,
        surfaces.slab_segment,
        surfaces.slab_box,
    )
    near_starts, segment, box = surfaces.near_starts, surfaces.near_segment, surfaces.near_box
    for i in range(len(pts)):
        px, py, pz = pts[i, 0], pts[i, 1], pts[i, 2]
        cx = _cell_index(px, cell, origin_x, shape_x)
        cy = _cell_index(py, cell, origin_y, shape_y)
        if cx < 0 or cy < 0:
            continue
        limit = pz + reach
        flat = cx * shape_y + cy
        # the segments' slabs first (each once, the boxes of their slabs)
        best, best_z = _best_listed(
            seg,
            slab_segment,
            slab_box,
            slab_starts[flat],
            slab_starts[flat + 1],
            px,
            py,
            limit,
            False,
        )
        # only a point none of them covers tries the joins (the whole walk)
        if best < 0:
            best, best_z = _best_listed(
                seg, segment, box, near_starts[flat], near_starts[flat + 1], px, py, limit, True
            )
        if best >= 0:
            z_out[i] = best_z
            normal_out[i, 0] = seg[best, _NORMAL]
            normal_out[i, 1] = seg[best, _NORMAL + 1]
            normal_out[i, 2] = seg[best, _NORMAL + 2]
            found_out[i] = True


# highest_remembered's marks of a point (its cell's twice, plus one, otherwise): answered from
# its row's memory, or off the table (no lane covers it)
_ANSWERED, _OFF_TABLE = -1, -2

# at most this many slabs held by a point are kept with its answer (more: not kept)
HELD_SLABS = 16


class GroundMemory(NamedTuple):
    """What the tick keeps of each actor row's last query (world.physics.tick.FleetCache), for
    one map's surfaces: the answer of `highest_into` to the row's last point (its three
    float64 as int64, the height, normal and found, whether the row holds one yet), and
    the slabs of the last full scan of its cell's list (`highest_remembered`): the cell (-1:
    none kept), the rectangle within which every slab box of that list holds or misses a
    point as it held or missed that one (x low, y low, x high, y high closed, then the same
    open: a point lies in both), and the segments whose boxes held it, in the list's order
    (a count, then up to HELD_SLABS)."""

    bits: np.ndarray  # (rows, 3) int64
    z: np.ndarray
    normal: np.ndarray  # (rows, 3)
    found: np.ndarray
    known: np.ndarray
    cell: np.ndarray  # (rows,) int64
    region: np.ndarray  # (rows, 8)
    held: np.ndarray  # (rows, 1 + HELD_SLABS) int64


def ground_memory(rows: int) -> GroundMemory:
    """An empty memory for `rows` actor rows."""
    return GroundMemory(
        np.zeros((rows, 3), dtype=np.int64),
        np.zeros(rows),
        np.zeros((rows, 3)),
        np.zeros(rows, dtype=np.bool_),
        np.zeros(rows, dtype=np.bool_),
        np.full(rows, -1, dtype=np.int64),
        np.zeros((rows, 8)),
        np.zeros((rows, 1 + HELD_SLABS), dtype=np.int64),
    )


# of a point in its kept rectangle, the segment rows of at most this many kept slabs are
# asked for ahead (a point on a lane has one)
_AHEAD_HELD = 2


@njit
def highest_remembered(
    surfaces: SurfaceArrays,
    pts: np.ndarray,
    rows: np.ndarray,
    memory: GroundMemory,
    z_out: np.ndarray,
    normal_out: np.ndarray,
    found_out: np.ndarray,
) -> None:
    """`highest_into` for the (N, 3) C-ordered points `pts` of actor `rows` (each row once),
    answered from what each row's last query kept: a point with the bits of its row's last
    one gets that answer (the answer is a function of the point's bits and the surfaces
    alone); a point in the last scan's cell and rectangle tests only the slabs that held the
    last point (the same boxes hold it, so the scan would test the same segments in the same
    order: the same answer), and any other point scans its cell's list, keeping what proves
    the next.

    The tables those read lie anywhere in memory, out of the caches once the rest of the tick
    has run, and each point's reads depend on the one before (the list's start, its boxes,
    the segments they hold), so the points are taken in four passes: the first answers the
    points with their row's last bits and finds every other point's cell and whether it lies
    in its kept rectangle, asking the caches (world.kernels.intrinsics.prefetch, a hint that
    changes no bit) for its kept slabs' segment rows or its cell list's start; the second
    asks for the lists' boxes and segments, the third for the rows of the segments whose
    boxes hold the point; the last answers, the misses of all the points overlapped instead
    of met one after another."""
    seg = surfaces.segments
    row_width = seg.shape[1]
    bits = pts.view(np.int64)
    reach, cell = surfaces.reach, surfaces.cell
    origin_x, origin_y, shape_x, shape_y = (
        surfaces.origin_x,
        surfaces.origin_y,
        surfaces.shape_x,
        surfaces.shape_y,
    )
    slab_starts, slab_segment, slab_box = (
        surfaces.slab_starts,
        surfaces.slab_segment,
        surfaces.slab_box,
    )
    near_starts, segment, box = surfaces.near_starts, surfaces.near_segment, surfaces.near_box
    known, kept_bits, cells, region, held = (
        memory.known,
        memory.bits,
        memory.cell,
        memory.region,
        memory.held,
    )
    z_kept, normal_kept, found_kept = memory.z, memory.normal, memory.found
    n = len(pts)
    # each point's cell, twice, plus one when the point lies in its row's kept rectangle;
    # _ANSWERED for a point with its row's last bits, _OFF_TABLE for one no lane can cover
    where = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = rows[i]
        same = known[r]
        for c in range(3):
            same = same and kept_bits[r, c] == bits[i, c]
        if same:
            z_out[i] = z_kept[r]
            for c in range(3):
                normal_out[i, c] = normal_kept[r, c]
            found_out[i] = found_kept[r]
            where[i] = _ANSWERED
            continue
        px, py = pts[i, 0], pts[i, 1]
        cx = _cell_index(px, cell, origin_x, shape_x)
        cy = _cell_index(py, cell, origin_y, shape_y)
        if not (len(seg) and cx >= 0 and cy >= 0):
            where[i] = _OFF_TABLE
            continue
        flat = cx * shape_y + cy
        # in the last scan's cell and rectangle (within the boxes that held the point,
        # closed; short of the first side each box missed fails on, open)
        kept = cells[r] == flat
        kept = kept and region[r, 0] <= px <= region[r, 2] and region[r, 1] <= py <= region[r, 3]
        kept = kept and region[r, 4] < px < region[r, 6] and region[r, 5] < py < region[r, 7]
        if kept:
            where[i] = 2 * flat + 1
            for k in range(1, 1 + min(held[r, 0], _AHEAD_HELD)):
                prefetch(seg, held[r, k] * row_width)
                prefetch(seg, held[r, k] * row_width + row_width - 1)
        else:
            where[i] = 2 * flat
            prefetch(slab_starts, flat)
            prefetch(slab_starts, flat + 1)
    for i in range(n):
        if where[i] >= 0 and where[i] % 2 == 0:
            flat = where[i] // 2
            start, stop = slab_starts[flat], slab_starts[flat + 1]
            if start < stop:
                for k in range(start, stop, 2):
                    prefetch(slab_box, 4 * k)
                prefetch(slab_box, 4 * stop - 1)
                for k in range(start, stop, 8):
                    prefetch(slab_segment, k)
                prefetch(slab_segment, stop - 1)
    for i in range(n):
        if where[i] >= 0 and where[i] % 2 == 0:
            flat = where[i] // 2
            px, py = pts[i, 0], pts[i, 1]
            for k in range(slab_starts[flat], slab_starts[flat + 1]):
                x0, y0, x1, y1 = slab_box[k, 0], slab_box[k, 1], slab_box[k, 2], slab_box[k, 3]
                if x0 <= px <= x1 and y0 <= py <= y1:
                    prefetch(seg, slab_segment[k] * row_width)
                    prefetch(seg, slab_segment[k] * row_width + row_width - 1)
    for i in range(n):
        if where[i] == _ANSWERED:
            continue
        r = rows[i]
        px, py, pz = pts[i, 0], pts[i, 1], pts[i, 2]
        best = -1
        best_z = 0.0
        if where[i] != _OFF_TABLE:
            limit = pz + reach
            flat = where[i] // 2
            kept = where[i] % 2 == 1
            # the slabs of the cell's list whose boxes hold the point, each tested: those
            # kept from the last scan when the point lies in the cell and rectangle kept (the
            # same boxes hold it, in the same order), else the list's, and the rectangle and
            # the segments held kept anew
            start, stop = (
                (1, 1 + held[r, 0]) if kept else (slab_starts[flat], slab_starts[flat + 1])
            )
            lx, ly, hx, hy = -np.inf, -np.inf, np.inf, np.inf
            open_lx, open_ly, open_hx, open_hy = -np.inf, -np.inf, np.inf, np.inf
            count = 0
            for k in range(start, stop):
                if kept:
                    s = held[r, k]
                else:
                    x0, y0, x1, y1 = slab_box[k, 0], slab_box[k, 1], slab_box[k, 2], slab_box[k, 3]
                    if px < x0:
                        open_hx = min(open_hx, x0)
                        continue
                    if px > x1:
                        open_lx = max(open_lx, x1)
                        continue
                    if py < y0:
                        open_hy = min(open_hy, y0)
                        continue
                    if py > y1:
                        open_ly = max(open_ly, y1)
                        continue
                    lx, ly, hx, hy = max(lx, x0), max(ly, y0), min(hx, x1), min(hy, y1)
                    s = slab_segment[k]
                    if count < HELD_SLABS:
                        held[r, 1 + count] = s
                    count += 1
                surface = _covering_surface(seg, s, px, py, False)
                if surface <= limit and (best < 0 or surface > best_z):
                    best = s
                    best_z = surface
            if not kept:
                cells[r] = flat if count <= HELD_SLABS else -1
                held[r, 0] = count
                region[r, 0], region[r, 1], region[r, 2], region[r, 3] = lx, ly, hx, hy
                region[r, 4], region[r, 5] = open_lx, open_ly
                region[r, 6], region[r, 7] = open_hx, open_hy
            # only a point none of them covers tries the joins (the whole walk)
            if best < 0:
                best, best_z = _best_listed(
                    seg, segment, box, near_starts[flat], near_starts[flat + 1], px, py, limit, True
                )
        if best >= 0:
            z_out[i] = z_kept[r] = best_z
            for c in range(3):
                normal_out[i, c] = normal_kept[r, c] = seg[best, _NORMAL + c]
            found_out[i] = found_kept[r] = True
        else:
            z_out[i] = z_kept[r] = np.nan
            for c in range(3):
                normal_out[i, c] = normal_kept[r, c] = 1.0 if c == 2 else 0.0
            found_out[i] = found_kept[r] = False
        for c in range(3):
            kept_bits[r, c] = bits[i, c]
        known[r] = True
