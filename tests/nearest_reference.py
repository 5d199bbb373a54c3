"""The numpy nearest-segment search `SegmentGrid.nearest` used before it was compiled: the
reference the compiled search (world.map.lane_index) must match bit for bit.

A bound, then a proof: the finest grid level, a guide grid's guess, the one coarser
level the bound picks, or a walk down a tree of lane runs; candidates measured in float32
first, the few within rounding of the nearest again in float64.
"""

from __future__ import annotations

import numpy as np

from world.map.lane_index import LaneSegments, _Level, lane_runs

_OFFSETS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)
_FANOUT = 8
_RUN = 16
_GUIDE_CELLS = 128
_GUIDE_MIN_CELL = 8.0
_ROUGH = 4e-6
_SMALL = 256
_SLACK = 1e-9
_LEVELS = 3


def reference_nearest(
    segments: LaneSegments, finest_cell: float, points: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(segment, u, distance) per point, as the numpy search found them, with grid levels
    of `finest_cell` doubling three times (the index's levels before it was compiled)."""
    lo = np.minimum(segments.a, segments.b)[:, :2]
    hi = np.maximum(segments.a, segments.b)[:, :2]
    levels = [_Level(lo, hi, finest_cell * 2.0**k) for k in range(_LEVELS)]
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    return _NearestSearch(segments, levels).nearest(pts)


class _NearestSearch:
    """The exact nearest-segment query: a bound, then a proof.

    Bound: what the finest grid level finds around a point, else a guess from a coarse
    guide grid that holds, per cell, a segment near the cell's centre (filled by jump
    flooding when built); either bounds the point's distance from above by some U.
    Proof: every segment within U of the point is looked at, in the 3 x 3 cells of the
    finest grid level whose cell exceeds U or, past the coarsest, down a tree of lane runs
    that drops whatever lies farther than the best distance known. Candidates are
    measured in float32 first; the few within rounding of the nearest are measured again
    in float64 by one formula, ties going to the lowest segment index.
    """

    def __init__(self, segments: LaneSegments, levels: list[_Level]) -> None:
        self.segments = segments
        self.levels = levels
        d = segments.b - segments.a
        self._a = [np.ascontiguousarray(segments.a[:, i]) for i in range(3)]
        self._d = [np.ascontiguousarray(d[:, i]) for i in range(3)]
        dd = self._d[0] * self._d[0] + self._d[1] * self._d[1] + self._d[2] * self._d[2]
        self._inv = 1.0 / np.where(dd > 0.0, dd, np.inf)
        lo, hi = np.minimum(segments.a, segments.b), np.maximum(segments.a, segments.b)
        self._centre = 0.5 * (lo.min(axis=0) + hi.max(axis=0))
        self._scale = float(np.abs(np.vstack([lo, hi]) - self._centre).max())
        a32 = (segments.a - self._centre).astype(np.float32)
        self._a32 = [np.ascontiguousarray(a32[:, i]) for i in range(3)]
        self._d32 = [x.astype(np.float32) for x in self._d]
        self._inv32 = self._inv.astype(np.float32)
        self._build_guide()
        self._build_tree()

    def _build_guide(self) -> None:
        """Per guide cell, a segment near its centre in 2D: each segment seeds the cell of
        its midpoint, then jump flooding passes (steps halving down to 1, then 1 again)
        let every cell take the nearest of the segments its 3 x 3 cells at that step hold.
        Only a guess: the answers do not depend on how good it is."""
        sg = self.segments
        lo = np.minimum(sg.a, sg.b)[:, :2]
        hi = np.maximum(sg.a, sg.b)[:, :2]
        extent = float((hi.max(axis=0) - lo.min(axis=0)).max())
        g = max(_GUIDE_MIN_CELL, extent / _GUIDE_CELLS)
        self._guide_cell = g
        self._guide_origin = np.floor(lo.min(axis=0) / g).astype(np.int64)
        shape = np.floor(hi.max(axis=0) / g).astype(np.int64) - self._guide_origin + 1
        self._guide_shape = shape
        mid = 0.5 * (sg.a + sg.b)[:, :2]
        c = np.floor(mid / g).astype(np.int64) - self._guide_origin
        flat, first = np.unique(c[:, 0] * shape[1] + c[:, 1], return_index=True)
        field = np.full(int(shape[0] * shape[1]), -1, dtype=np.int64)
        field[flat] = first
        field = field.reshape(shape)
        ix, iy = np.meshgrid(np.arange(shape[0]), np.arange(shape[1]), indexing="ij")
        centre = [(ix + self._guide_origin[0] + 0.5) * g, (iy + self._guide_origin[1] + 0.5) * g]
        steps = []
        step = 1 << max(0, int(shape.max() - 1).bit_length() - 1)
        while step >= 1:
            steps.append(step)
            step //= 2
        for step in [*steps, 1]:
            cand = np.full((len(_OFFSETS), *shape), -1, dtype=np.int64)
            for k, (dx, dy) in enumerate(_OFFSETS * step):
                if abs(dx) >= shape[0] or abs(dy) >= shape[1]:
                    continue
                src = field[max(dx, 0) : shape[0] + min(dx, 0), max(dy, 0) : shape[1] + min(dy, 0)]
                cand[
                    k, max(-dx, 0) : shape[0] - max(dx, 0), max(-dy, 0) : shape[1] - max(dy, 0)
                ] = src
            seg = np.where(cand >= 0, cand, 0)
            w = [centre[i][None] - self._a[i][seg] for i in range(2)]
            dd = self._d[0][seg] ** 2 + self._d[1][seg] ** 2
            u = np.clip(
                (w[0] * self._d[0][seg] + w[1] * self._d[1][seg]) / np.where(dd > 0, dd, 1.0),
                0.0,
                1.0,
            )
            r2 = (w[0] - u * self._d[0][seg]) ** 2 + (w[1] - u * self._d[1][seg]) ** 2
            r2 = np.where(cand >= 0, r2, np.inf)
            field = np.take_along_axis(cand, np.argmin(r2, axis=0)[None], axis=0)[0]
        self._guide = field.ravel()

    def _guess(self, points, todo, best_seg, best_u, best_d) -> None:
        """The nearest of the guide segments of the 3 x 3 guide cells around each point
        (points off the guide grid take its nearest cells)."""
        p = points[todo]
        c = np.floor(p[:, :2] / self._guide_cell).astype(np.int64) - self._guide_origin
        nb = c[:, None, :] + _OFFSETS[None, :, :]
        np.clip(nb, 0, self._guide_shape - 1, out=nb)
        seg = self._guide[(nb[..., 0] * self._guide_shape[1] + nb[..., 1]).ravel()]
        owner = np.repeat(np.arange(len(p)), len(_OFFSETS))
        self._fold(p, todo, owner, seg, best_seg, best_u, best_d)

    def _settle(self, points, todo, level: _Level, best_seg, best_u, best_d) -> np.ndarray:
        """Fold in the segments of the 3 x 3 cells of `level` around each point; the points
        not settled by them (best distance not below the cell size)."""
        if len(todo):
            owner, seg = level.candidates(points[todo])
            if len(seg):
                self._fold(points[todo], todo, owner, seg, best_seg, best_u, best_d)
        return todo[best_d[todo] >= level.cell * (1.0 - _SLACK)]

    def nearest(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(points)
        best_seg = np.full(n, -1, dtype=np.int64)
        best_u = np.zeros(n)
        best_d = np.full(n, np.inf)
        if not n:
            return best_seg, best_u, best_d
        # 3 x 3 cells of a level hold every segment within `cell` of the point: a best
        # distance below it is final. The finest level settles most points near roads.
        todo = self._settle(points, np.arange(n), self.levels[0], best_seg, best_u, best_d)
        # what the 3 x 3 cells held bounds a point's distance; the guide's guess bounds it
        # for the points they left without one below the coarsest cell
        far = todo[best_d[todo] >= self.levels[-1].cell * (1.0 - _SLACK)]
        if len(far):
            self._guess(points, far, best_seg, best_u, best_d)
        for level in self.levels[1:]:
            if not len(todo):
                break
            inside = best_d[todo] < level.cell * (1.0 - _SLACK)
            self._settle(points, todo[inside], level, best_seg, best_u, best_d)
            todo = todo[~inside]
        if len(todo):
            self._far(points, todo, best_seg, best_u, best_d)
        return best_seg, best_u, best_d

    def _build_tree(self) -> None:
        """A tree for points beyond the grid levels. Its leaves are runs of up to _RUN
        consecutive segments of one lane, each held as its chord (first to last vertex) and
        its reach, the farthest a vertex strays from the chord: every point of the run lies
        within the reach of the chord and every point of the chord within the reach of the
        run, so the distance to the chord bounds the distance to the run from both sides.
        Runs sorted along a Z-order curve of their box centres are boxed _FANOUT at a time,
        those boxes again, up to a top of at most _FANOUT boxes."""
        sg = self.segments
        start, count, p0, p1, reach = lane_runs(sg, _RUN)
        lo = np.minimum.reduceat(np.minimum(sg.a, sg.b), start)
        hi = np.maximum.reduceat(np.maximum(sg.a, sg.b), start)
        mid = 0.5 * (lo + hi)[:, :2]
        span = np.maximum(mid.max(axis=0) - mid.min(axis=0), 1e-9)
        q = ((mid - mid.min(axis=0)) / span * 65535).astype(np.uint64)
        order = np.argsort(_interleave(q[:, 0]) | (_interleave(q[:, 1]) << 1), kind="stable")
        self._run_start, self._run_count = start[order], count[order]
        c = self._centre
        self._run_p0 = (p0[order] - c).astype(np.float32)
        self._run_d = (p1[order] - p0[order]).astype(np.float32)
        dd = np.einsum("ij,ij->i", self._run_d, self._run_d)
        self._run_inv = np.where(dd > 0.0, 1.0 / np.where(dd > 0.0, dd, 1.0), 0.0).astype(
            np.float32
        )
        self._run_reach = reach[order].astype(np.float32)
        lo, hi = lo[order] - c, hi[order] - c
        self._boxes = []
        while True:
            # float32 boxes rounded outwards, so they still hold what they box
            down = np.nextafter(lo.astype(np.float32), np.float32(-np.inf))
            up = np.nextafter(hi.astype(np.float32), np.float32(np.inf))
            self._boxes.append(np.hstack([down, up]))
            if len(lo) <= _FANOUT:
                break
            starts = np.arange(0, len(lo), _FANOUT)
            lo = np.minimum.reduceat(lo, starts)
            hi = np.maximum.reduceat(hi, starts)

    def _far(self, points: np.ndarray, todo: np.ndarray, best_seg, best_u, best_d) -> None:
        """Exact answers for points beyond the grid levels, down the tree: a box or run whose
        least possible distance exceeds the best known (the guess so far, or a run's chord
        distance plus reach) cannot hold the answer. Boxes and runs are measured in float32
        in map-centred coordinates, with the bound widened by the rounding margin."""
        for chunk in np.array_split(todo, max(1, len(todo) // 512)):
            p = points[chunk]
            q32 = (p - self._centre).astype(np.float32)
            margin = _ROUGH * (self._scale + np.abs(p - self._centre).max(axis=1))
            limit = best_d[chunk] + margin
            top = len(self._boxes[-1])
            owner = np.repeat(np.arange(len(chunk)), top)
            node = np.tile(np.arange(top), len(chunk))
            for level in range(len(self._boxes) - 1, 0, -1):
                box = self._boxes[level][node]
                q = q32[owner]
                gap = np.maximum(np.maximum(box[:, :3] - q, q - box[:, 3:]), 0.0)
                keep = np.einsum("ij,ij->i", gap, gap) <= (limit * limit)[owner]
                child = (node[keep, None] * _FANOUT + np.arange(_FANOUT)[None, :]).ravel()
                owner = np.repeat(owner[keep], _FANOUT)
                real = child < len(self._boxes[level - 1])
                owner, node = owner[real], child[real]
            q = q32[owner]
            box = self._boxes[0][node]
            gap = np.maximum(np.maximum(box[:, :3] - q, q - box[:, 3:]), 0.0)
            w = q - self._run_p0[node]
            d = self._run_d[node]
            u = np.clip(np.einsum("ij,ij->i", w, d) * self._run_inv[node], 0.0, 1.0)
            r = w - u[:, None] * d
            chord = np.sqrt(np.einsum("ij,ij->i", r, r))
            reach = self._run_reach[node]
            starts = _starts(owner)
            high = np.minimum.reduceat(chord + reach, starts) + 2.0 * margin[owner[starts]]
            limit[owner[starts]] = np.minimum(limit[owner[starts]], high)
            low = np.maximum(np.sqrt(np.einsum("ij,ij->i", gap, gap)), chord - reach)
            keep = low <= limit[owner]
            owner, node = owner[keep], node[keep]
            count = self._run_count[node]
            first = np.repeat(self._run_start[node] - (np.cumsum(count) - count), count)
            seg = first + np.arange(int(count.sum()))
            self._fold(p, chunk, np.repeat(owner, count), seg, best_seg, best_u, best_d)

    def _fold(self, p, todo, owner, seg, best_seg, best_u, best_d) -> None:
        """Fold candidate segments seg for points p[owner] (= points[todo[owner]], owner
        ascending) into the best answers. A float32 sweep in map-centred coordinates drops
        the candidates clearly farther than the nearest; the rest are measured in float64.
        Small sets go straight to float64."""
        if len(seg) > _SMALL:
            owner, seg = self._rough_cut(p, todo, owner, seg, best_d)
        if len(seg):
            u, dist = self._sweep(p, owner, seg)
            self._keep_min(todo, owner, seg, u, dist, best_seg, best_u, best_d)

    def _rough_cut(self, p, todo, owner, seg, best_d) -> tuple[np.ndarray, np.ndarray]:
        """The candidates a float32 sweep cannot tell from the nearest (or the best known)."""
        q = (p - self._centre).astype(np.float32)
        w = [q[owner, i] - self._a32[i][seg] for i in range(3)]
        d = [self._d32[i][seg] for i in range(3)]
        u = (w[0] * d[0] + w[1] * d[1] + w[2] * d[2]) * self._inv32[seg]
        np.clip(u, 0.0, 1.0, out=u)
        r = [w[i] - u * d[i] for i in range(3)]
        rough = np.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
        starts = _starts(owner)
        who = owner[starts]
        # float32 rounding moves a distance by far less than this margin
        margin = _ROUGH * (self._scale + float(np.abs(p - self._centre).max()))
        limit = np.full(len(p), np.inf, dtype=np.float32)
        limit[who] = np.minimum(np.minimum.reduceat(rough, starts), best_d[todo[who]]) + margin
        close = np.flatnonzero(rough <= limit[owner])
        return owner[close], seg[close]

    def _sweep(self, p: np.ndarray, owner: np.ndarray, seg: np.ndarray):
        """u in [0, 1] of the closest point on each candidate segment to its query point
        p[owner], and the 3D distance."""
        w = [p[owner, i] - self._a[i][seg] for i in range(3)]
        d = [self._d[i][seg] for i in range(3)]
        u = (w[0] * d[0] + w[1] * d[1] + w[2] * d[2]) * self._inv[seg]
        np.clip(u, 0.0, 1.0, out=u)
        r = [w[i] - u * d[i] for i in range(3)]
        return u, np.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])

    @staticmethod
    def _keep_min(todo, owner, seg, u, dist, best_seg, best_u, best_d) -> None:
        """Fold candidates (grouped by ascending owner) into the best answers so far: the
        least distance, and among equal distances the lowest segment index."""
        starts = _starts(owner)
        low = np.minimum.reduceat(dist, starts)
        sizes = _sizes(starts, len(owner))
        at = np.flatnonzero(dist == np.repeat(low, sizes))
        if len(at) > len(starts):  # some point has several nearest candidates
            group = _starts(owner[at])
            least = np.minimum.reduceat(seg[at], group)
            at = at[seg[at] == np.repeat(least, _sizes(group, len(at)))]
            at = at[_starts(owner[at])]
        first = at
        idx = todo[owner[first]]
        d, s = dist[first], seg[first]
        better = (d < best_d[idx]) | ((d == best_d[idx]) & (s < best_seg[idx]))
        idx, first = idx[better], first[better]
        best_seg[idx] = seg[first]
        best_u[idx] = u[first]
        best_d[idx] = dist[first]


def _interleave(v: np.ndarray) -> np.ndarray:
    """The bits of 16-bit values spread to the even bit positions (for Z-order keys)."""
    v = v & np.uint64(0xFFFF)
    for shift, mask in ((8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v


def _starts(owner: np.ndarray) -> np.ndarray:
    """Where each run of equal values begins in a grouped array."""
    if not len(owner):
        return np.zeros(0, dtype=np.int64)
    return np.concatenate(([0], np.flatnonzero(owner[1:] != owner[:-1]) + 1))


def _sizes(starts: np.ndarray, total: int) -> np.ndarray:
    """Lengths of the runs beginning at `starts`, in an array of `total` items."""
    return np.diff(starts, append=total)
