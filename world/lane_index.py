"""A uniform-grid spatial index over short lane centre-line segments, queried in batches.

Lanes are cut into segments between centre samples (about 1 m apart). Each
segment is filed under every grid cell its bounding box overlaps, at several
cell sizes doubling from the finest. A query gathers the segments of the 3 x 3
cells around each point at the finest level; an answer is final once its
distance is at most the cell size (no segment outside the block can be closer),
otherwise the point moves on to the next coarser level. Past the last level a
tree of 3D boxes (segments in Z-order, 16 per box) is walked down, keeping only
boxes nearer than the nearest known point on a segment.
Distances are 3D, as CARLA's R-tree of lane segments measures them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LaneSegments", "SegmentGrid"]

_OFFSETS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)
_FANOUT = 16  # children per box of the far-point tree
_MAX_CELLS = 4_000_000  # cells of the finest level at most; coarser cells on huge maps


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
        self.origin = c0.min(axis=0) if len(c0) else np.zeros(2, dtype=np.int64)
        self.shape = (c1.max(axis=0) - self.origin + 1) if len(c1) else np.ones(2, np.int64)
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

    def cells(self, xy: np.ndarray) -> np.ndarray:
        return np.floor(xy[:, :2] / self.cell).astype(np.int64)

    def candidates(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query index, segment index) pairs for the 3 x 3 cells around each point, grouped
        by query index in ascending order."""
        c = self.cells(xy) - self.origin
        nb = (c[:, None, :] + _OFFSETS[None, :, :]).reshape(-1, 2)
        inside = (nb >= 0).all(axis=1) & (nb < self.shape).all(axis=1)
        flat = np.where(inside, nb[:, 0] * self.shape[1] + nb[:, 1], 0)
        counts = np.where(inside, self.counts[flat], 0)
        per_point = counts.reshape(-1, len(_OFFSETS)).sum(axis=1)
        owner = np.repeat(np.arange(len(xy)), per_point)
        shift = self.starts[flat] - (np.cumsum(counts) - counts)
        seg = self.segment[np.repeat(shift, counts) + np.arange(int(counts.sum()))]
        return owner, seg


class SegmentGrid:
    """Nearest-segment and covering-segment queries over a fixed set of lane segments."""

    def __init__(self, segments: LaneSegments, cell: float = 2.0, levels: int = 4) -> None:
        self.segments = segments
        lo = np.minimum(segments.a, segments.b)[:, :2]
        hi = np.maximum(segments.a, segments.b)[:, :2]
        if len(lo):
            area = float(np.prod(hi.max(axis=0) - lo.min(axis=0) + 1.0))
            cell = max(cell, float(np.sqrt(area / _MAX_CELLS)))
        self.levels = [_Level(lo, hi, cell * 2.0**k) for k in range(levels)]

        # Float32 copies, one array per coordinate, for the candidate sweep.
        a = segments.a.astype(np.float32)
        d = (segments.b - segments.a).astype(np.float32)
        dd = np.einsum("ij,ij->i", d, d)
        self._a = [np.ascontiguousarray(a[:, i]) for i in range(3)]
        self._d = [np.ascontiguousarray(d[:, i]) for i in range(3)]
        self._inv = (1.0 / np.where(dd > 0.0, dd, np.inf)).astype(np.float32)
        self._build_tree()

    def _build_tree(self) -> None:
        """A box tree over the segments for points beyond the grid levels: segments sorted
        along a Z-order curve of their midpoints, boxed in runs of _FANOUT, those boxes boxed
        in runs of _FANOUT again, up to a top of at most _FANOUT boxes."""
        sg = self.segments
        lo = np.minimum(sg.a, sg.b)
        hi = np.maximum(sg.a, sg.b)
        mid = 0.5 * (lo + hi)[:, :2]
        span = np.maximum(mid.max(axis=0) - mid.min(axis=0), 1e-9) if len(mid) else np.ones(2)
        q = ((mid - (mid.min(axis=0) if len(mid) else 0.0)) / span * 65535).astype(np.uint64)
        self._order = np.argsort(_interleave(q[:, 0]) | (_interleave(q[:, 1]) << 1), kind="stable")
        lo, hi, rep = lo[self._order], hi[self._order], sg.a[self._order]
        self._levels_lo, self._levels_hi, self._levels_rep = [], [], []
        while len(lo) > _FANOUT or not self._levels_lo:
            starts = np.arange(0, len(lo), _FANOUT)
            lo = np.minimum.reduceat(lo, starts) if len(lo) else lo
            hi = np.maximum.reduceat(hi, starts) if len(hi) else hi
            rep = rep[starts]
            self._levels_lo.append(lo)
            self._levels_hi.append(hi)
            self._levels_rep.append(rep)

    def _far(self, points: np.ndarray, todo: np.ndarray, best_seg, best_u, best_d) -> None:
        """Exact answers for points beyond the grid levels, down the box tree: a box farther
        than some box's first point (a point on a segment) cannot hold the answer."""
        for chunk in np.array_split(todo, max(1, len(todo) // 512)):
            p = points[chunk]
            top = len(self._levels_lo[-1])
            owner = np.repeat(np.arange(len(chunk)), top)
            node = np.tile(np.arange(top), len(chunk))
            for level in range(len(self._levels_lo) - 1, -1, -1):
                q = p[owner]
                gap = np.maximum(self._levels_lo[level][node] - q, 0.0)
                gap = np.maximum(gap, q - self._levels_hi[level][node])
                low = np.sqrt(np.einsum("ij,ij->i", gap, gap))
                rep = np.linalg.norm(self._levels_rep[level][node] - q, axis=1)
                starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
                bound = np.minimum(np.minimum.reduceat(rep, starts), best_d[chunk[owner[starts]]])
                sizes = np.diff(np.r_[starts, len(owner)])
                keep = low <= np.repeat(bound, sizes)
                owner, node = owner[keep], node[keep]
                count = len(self._levels_lo[level - 1]) if level else len(self._order)
                child = (node[:, None] * _FANOUT + np.arange(_FANOUT)[None, :]).ravel()
                owner = np.repeat(owner, _FANOUT)
                real = child < count
                owner, node = owner[real], child[real]
            seg = self._order[node]
            u, dist = self._sweep(p, owner, seg)
            self._keep_min(chunk, owner, seg, u, dist, best_seg, best_u, best_d)

    def _sweep(self, p: np.ndarray, owner: np.ndarray, seg: np.ndarray):
        """u in [0, 1] of the closest point on each candidate segment to its query point
        p[owner], and the 3D distance, in float32."""
        w = [p[:, i].astype(np.float32)[owner] - self._a[i][seg] for i in range(3)]
        d = [self._d[i][seg] for i in range(3)]
        u = (w[0] * d[0] + w[1] * d[1] + w[2] * d[2]) * self._inv[seg]
        np.clip(u, 0.0, 1.0, out=u)
        r2 = (w[0] - u * d[0]) ** 2 + (w[1] - u * d[1]) ** 2 + (w[2] - u * d[2]) ** 2
        return u, np.sqrt(r2)

    def _exact(self, p: np.ndarray, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The same projection in float64, for the chosen segments."""
        a = self.segments.a[seg]
        d = self.segments.b[seg] - a
        dd = np.einsum("ij,ij->i", d, d)
        u = np.einsum("ij,ij->i", p - a, d) / np.where(dd > 0.0, dd, 1.0)
        u = np.clip(u, 0.0, 1.0)
        return u, np.linalg.norm(p - (a + u[:, None] * d), axis=1)

    def nearest(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per point: nearest segment index (-1 if there are none), its u, and the distance."""
        points = np.asarray(points, dtype=float).reshape(-1, 3)
        n = len(points)
        best_seg = np.full(n, -1, dtype=np.int64)
        best_u = np.zeros(n)
        best_d = np.full(n, np.inf)
        if not len(self.segments):
            return best_seg, best_u, best_d
        todo = np.arange(n)
        for level in self.levels:
            if not len(todo):
                break
            owner, seg = level.candidates(points[todo])
            if len(seg):
                u, dist = self._sweep(points[todo], owner, seg)
                self._keep_min(todo, owner, seg, u, dist, best_seg, best_u, best_d)
            todo = todo[best_d[todo] > level.cell]
        if len(todo):
            self._far(points, todo, best_seg, best_u, best_d)
        found = best_seg >= 0
        best_u[found], best_d[found] = self._exact(points[found], best_seg[found])
        return best_seg, best_u, best_d

    @staticmethod
    def _keep_min(todo, owner, seg, u, dist, best_seg, best_u, best_d) -> None:
        """Fold candidates (grouped by ascending owner) into the best answers so far; ties go
        to the first candidate, so answers do not depend on anything but the inputs."""
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        low = np.minimum.reduceat(dist, starts)
        sizes = np.diff(np.r_[starts, len(owner)])
        at_min = np.flatnonzero(dist == np.repeat(low, sizes))
        first = at_min[np.r_[True, owner[at_min][1:] != owner[at_min][:-1]]]
        idx = todo[owner[first]]
        better = dist[first] < best_d[idx]
        idx, first = idx[better], first[better]
        best_seg[idx] = seg[first]
        best_u[idx] = u[first]
        best_d[idx] = dist[first]

    def covering(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(point index, segment index, u) for every segment whose lane covers the point in 2D.

        A lane covers a point when the point's projection falls on the segment and its
        horizontal distance across the lane is at most half the lane width there.
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
        across = np.abs(d[:, 0] * off[:, 1] - d[:, 1] * off[:, 0]) / np.sqrt(np.maximum(dd, 1e-18))
        inside = (u_raw >= -1e-3) & (u_raw <= 1.0 + 1e-3) & (across <= 0.5 * sg.width[seg])
        return owner[inside], seg[inside], u[inside]


def _interleave(v: np.ndarray) -> np.ndarray:
    """The bits of 16-bit values spread to the even bit positions (for Z-order keys)."""
    v = v & np.uint64(0xFFFF)
    for shift, mask in ((8, 0x00FF00FF), (4, 0x0F0F0F0F), (2, 0x33333333), (1, 0x55555555)):
        v = (v | (v << np.uint64(shift))) & np.uint64(mask)
    return v
