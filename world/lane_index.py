"""A uniform-grid spatial index over short lane centre-line segments, queried in batches.

Each lane is cut into segments of at most `step` metres between centre samples.
A segment is filed under the grid cell of its midpoint, at several cell sizes
(coarse levels for points far from any road). A query gathers the segments of
the 3 x 3 cells around each point at the finest level; an answer is final once
the best distance cannot be beaten by a segment outside that block, otherwise
the point moves on to the next coarser level, and past the last to every
segment. Distances are 3D, as CARLA's R-tree of lane segments measures them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["LaneSegments", "SegmentGrid"]

_OFFSETS = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], dtype=np.int64)
_KEY_SHIFT = np.int64(1 << 32)


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
    """Segments sorted by the key of their midpoint's cell, for one cell size."""

    def __init__(self, mid: np.ndarray, cell: float) -> None:
        self.cell = cell
        keys = self.keys_of(mid)
        self.order = np.argsort(keys, kind="stable")
        self.keys, self.starts, self.counts = np.unique(
            keys[self.order], return_index=True, return_counts=True
        )

    def cells(self, xy: np.ndarray) -> np.ndarray:
        return np.floor(xy / self.cell).astype(np.int64)

    def keys_of(self, xy: np.ndarray) -> np.ndarray:
        c = self.cells(xy[:, :2])
        return c[:, 0] * _KEY_SHIFT + c[:, 1]

    def candidates(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query index, segment index) pairs for the 3 x 3 cells around each point."""
        c = self.cells(xy[:, :2])
        nb = (c[:, None, :] + _OFFSETS[None, :, :]).reshape(-1, 2)
        keys = nb[:, 0] * _KEY_SHIFT + nb[:, 1]
        pos = np.clip(np.searchsorted(self.keys, keys), 0, max(len(self.keys) - 1, 0))
        hit = self.keys[pos] == keys if len(self.keys) else np.zeros(len(keys), dtype=bool)
        counts = np.where(hit, self.counts[pos], 0)
        starts = np.where(hit, self.starts[pos], 0)
        total = int(counts.sum())
        owner = np.repeat(np.arange(len(keys)) // len(_OFFSETS), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        seg = self.order[np.repeat(starts, counts) + (np.arange(total) - first)]
        return owner, seg


class SegmentGrid:
    """Nearest-segment and covering-segment queries over a fixed set of lane segments."""

    def __init__(self, segments: LaneSegments, cell: float = 4.0, levels: int = 4) -> None:
        self.segments = segments
        self.half = (
            float(np.max(np.linalg.norm(segments.b - segments.a, axis=1)) / 2.0)
            if len(segments)
            else 0.0
        )
        mid = 0.5 * (segments.a + segments.b)
        self.levels = [_Level(mid, cell * 4.0**k) for k in range(levels)]

    def _project(self, p: np.ndarray, seg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Parameter u in [0, 1] of the closest point on each segment, and the 3D distance."""
        a = self.segments.a[seg]
        d = self.segments.b[seg] - a
        dd = np.einsum("ij,ij->i", d, d)
        u = np.einsum("ij,ij->i", p - a, d) / np.where(dd > 0.0, dd, 1.0)
        u = np.clip(u, 0.0, 1.0)
        dist = np.linalg.norm(p - (a + u[:, None] * d), axis=1)
        return u, dist

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
                u, dist = self._project(points[todo][owner], seg)
                self._keep_min(todo, owner, seg, u, dist, best_seg, best_u, best_d)
            todo = todo[best_d[todo] > level.cell - self.half]
        for i in todo:  # beyond every level: all segments
            everything = np.arange(len(self.segments))
            u, dist = self._project(np.broadcast_to(points[i], (len(everything), 3)), everything)
            k = int(np.argmin(dist))
            best_seg[i], best_u[i], best_d[i] = k, u[k], dist[k]
        return best_seg, best_u, best_d

    @staticmethod
    def _keep_min(todo, owner, seg, u, dist, best_seg, best_u, best_d) -> None:
        order = np.lexsort((seg, dist, owner))
        owner, seg, u, dist = owner[order], seg[order], u[order], dist[order]
        first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        idx = todo[owner[first]]
        better = dist[first] < best_d[idx]
        idx = idx[better]
        best_seg[idx] = seg[first][better]
        best_u[idx] = u[first][better]
        best_d[idx] = dist[first][better]

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
