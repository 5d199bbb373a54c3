"""A brute-force stand-in for world/render while it is being written (deleted once it lands).

Every ray is tested against every triangle (Möller–Trumbore), so it is only for the tiny
meshes of the tests. It answers the renderer's two questions with the renderer's
conventions: a pinhole camera's nearest triangle and planar depth per pixel (pixel (i, j)
sees the ray through (i + 0.5, j + 0.5); u = f·y/x + W/2, v = −f·z/x + H/2 in the camera's
frame, f = W / (2 tan(fov / 2))), and ray casts (nearest distance and triangle per ray).
"""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.scene.mesh import Mesh

__all__ = ["StandinScene"]


class StandinScene:
    """One frame's scene: the triangles and their tag, instance, colour and normal."""

    def __init__(self, mesh: Mesh) -> None:
        v = mesh.vertices[mesh.triangles]
        self._v0 = v[:, 0]
        self._e1 = v[:, 1] - v[:, 0]
        self._e2 = v[:, 2] - v[:, 0]
        normal = np.cross(self._e1, self._e2)
        length = np.sqrt((normal * normal).sum(1, keepdims=True))
        self._normal = normal / np.where(length > 0.0, length, 1.0)
        self._tag, self._instance, self._colour = mesh.tag, mesh.instance, mesh.colour

    def _lookup(self, column: np.ndarray, numbers: np.ndarray) -> np.ndarray:
        numbers = np.asarray(numbers)
        if not len(column):
            return np.zeros((*numbers.shape, *column.shape[1:]), column.dtype)
        out = column[np.clip(numbers, 0, len(column) - 1)]
        out[numbers < 0] = 0
        return out

    def columns(self) -> tuple:
        none = np.zeros((0, 3), np.uint8)
        normal = np.ascontiguousarray(self._normal, np.float32)
        return (self._colour, normal, self._tag, none, np.zeros((0, 3), np.float32),
                np.zeros(0, np.uint8), len(self._tag))  # fmt: skip

    def tag(self, numbers: np.ndarray) -> np.ndarray:
        return self._lookup(self._tag, numbers)

    def instance(self, numbers: np.ndarray) -> np.ndarray:
        return self._lookup(self._instance, numbers)

    def colour(self, numbers: np.ndarray) -> np.ndarray:
        return self._lookup(self._colour, numbers)

    def normal(self, numbers: np.ndarray) -> np.ndarray:
        return self._lookup(self._normal, numbers)

    @property
    def triangle_count(self) -> int:
        return len(self._v0)

    def cast(
        self, origin: np.ndarray, directions: np.ndarray, max_range: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """(distance, triangle) of each ray's nearest hit within `max_range`; inf and -1 when
        none."""
        n = len(directions)
        best = np.full(n, np.inf)
        tri = np.full(n, -1, np.int32)
        for k in range(self.triangle_count):
            p = np.cross(directions, self._e2[k])
            det = p @ self._e1[k]
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = 1.0 / det
                s = origin - self._v0[k]
                u = (p @ s) * inv
                q = np.cross(s, self._e1[k])
                w = (directions @ q) * inv
                t = (q @ self._e2[k]) * inv
                tol = 1e-9  # a ray on a shared edge belongs to both triangles, never to neither
                hit = (np.abs(det) > 1e-12) & (u >= -tol) & (w >= -tol) & (u + w <= 1 + tol)
            hit &= t > 1e-9
            hit &= (t <= max_range) & (t < best)
            best[hit] = t[hit]
            tri[hit] = k
        return best, tri

    def camera(
        self, origin: np.ndarray, axes: np.ndarray, width: int, height: int, fov: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """(triangle, planar depth) per pixel, (H, W) each; -1 and inf where nothing is hit.
        `axes` has the camera's forward, right and up vectors as columns."""
        f = width / (2.0 * el.tan(np.radians(fov) / 2.0))
        cols = (np.arange(width) + 0.5 - width / 2.0) / f
        rows = -(np.arange(height) + 0.5 - height / 2.0) / f
        local = np.stack(
            [np.ones((height, width)), np.broadcast_to(cols, (height, width)),
             np.broadcast_to(rows[:, None], (height, width))], -1,
        ).reshape(-1, 3)  # fmt: skip
        directions = local @ axes.T
        length = np.sqrt((directions * directions).sum(1))
        distance, tri = self.cast(origin, directions / length[:, None], np.inf)
        depth = distance / length  # along the axis: the forward component of a unit ray is 1/len
        return tri.reshape(height, width), depth.reshape(height, width)
