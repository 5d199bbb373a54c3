"""Collecting triangles into one Mesh: ribbons between sampled lines, fans, per-part labels.

The scene's producers add parts as arrays (a ribbon is K strips along N samples at once)
and take one Mesh at the end; vertices that no kept triangle uses are dropped part by part.
"""

from __future__ import annotations

import numpy as np

from world.scene.mesh import Mesh

__all__ = ["MeshParts", "fan_triangles", "norms", "ribbon_triangles"]


def norms(v: np.ndarray) -> np.ndarray:
    """Lengths of 3-vectors along the last axis, summed in a fixed order (no BLAS, no
    reduction whose order a CPU could choose)."""
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    return np.sqrt(x * x + y * y + z * z)


def ribbon_triangles(n: int, k: int) -> np.ndarray:
    """(n - 1, k, 2, 3) vertex indices of the two triangles of each quad between samples
    i and i + 1 of strip j, when the vertices are laid out (n, k, 2) (a strip's two sides)."""
    i = np.arange(n - 1)[:, None]
    j = np.arange(k)[None, :]
    a0 = (i * k + j) * 2  # sample i, side 0
    a1 = a0 + 1
    b0 = ((i + 1) * k + j) * 2
    b1 = b0 + 1
    first = np.stack([a0, a1, b1], axis=-1)
    second = np.stack([a0, b1, b0], axis=-1)
    return np.stack([first, second], axis=2)


def fan_triangles(count: int) -> np.ndarray:
    """(count - 2, 3) triangles of a convex polygon of `count` corners, fanned from corner 0."""
    k = np.arange(1, count - 1)
    return np.stack([np.zeros_like(k), k, k + 1], axis=-1)


class MeshParts:
    """Parts of a mesh in the order they are added; `mesh()` joins them."""

    def __init__(self) -> None:
        self._parts: list[Mesh] = []

    def __len__(self) -> int:
        return len(self._parts)

    def add(
        self,
        vertices: np.ndarray,
        triangles: np.ndarray,
        tag: int | np.ndarray,
        instance: int | np.ndarray,
        colour: tuple[int, int, int] | np.ndarray,
        *,
        compact: bool = False,
    ) -> None:
        """Adds triangles (T, 3) into `vertices` (V, 3) with a tag, instance id and colour
        each (one for all or one per triangle); `compact` drops the unused vertices."""
        triangles = np.asarray(triangles).reshape(-1, 3)
        if not len(triangles):
            return
        vertices = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        if compact:
            used, inverse = np.unique(triangles, return_inverse=True)
            vertices = vertices[used]
            triangles = inverse.reshape(-1, 3)
        t = len(triangles)
        self._parts.append(
            Mesh(
                np.ascontiguousarray(vertices),
                triangles.astype(np.int32),
                np.broadcast_to(np.asarray(tag, dtype=np.uint8), (t,)).copy(),
                np.broadcast_to(np.asarray(instance, dtype=np.uint32), (t,)).copy(),
                np.broadcast_to(np.asarray(colour, dtype=np.uint8), (t, 3)).copy(),
            )
        )

    def ribbons(
        self,
        side0: np.ndarray,
        side1: np.ndarray,
        tag: int | np.ndarray,
        instance: int | np.ndarray,
        colour: tuple[int, int, int] | np.ndarray,
        keep: np.ndarray | None = None,
    ) -> None:
        """K strips between the lines `side0` and `side1` (N, K, 3), two triangles per quad
        of samples i, i + 1; `keep` (N - 1, K) chooses the quads. The tag, instance and colour
        are one for all, or one per strip ((K,) and (K, 3))."""
        n, k = side0.shape[:2]
        if n < 2 or k == 0:
            return
        vertices = np.stack([side0, side1], axis=2).reshape(-1, 3)
        tri = ribbon_triangles(n, k)  # (n - 1, k, 2, 3)
        per_strip = np.broadcast_to(np.arange(k)[None, :, None], tri.shape[:3])
        if keep is None:
            keep = np.ones((n - 1, k), dtype=bool)
        mask = np.broadcast_to(keep[:, :, None], tri.shape[:3])
        strips = per_strip[mask]
        tags = np.broadcast_to(np.asarray(tag, dtype=np.uint8), (k,))[strips]
        instances = np.broadcast_to(np.asarray(instance, dtype=np.uint32), (k,))[strips]
        colours = np.broadcast_to(np.asarray(colour, dtype=np.uint8), (k, 3))[strips]
        self.add(vertices, tri[mask], tags, instances, colours, compact=True)

    def extend(self, mesh: Mesh) -> None:
        """Adds a whole mesh as one part."""
        if mesh.triangle_count:
            self._parts.append(mesh)

    def mesh(self) -> Mesh:
        return Mesh.concatenate(self._parts)
