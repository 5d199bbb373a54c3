"""Plan geometry the scene's tests share: the height of triangles over plan points."""

from __future__ import annotations

import numpy as np


def height_on(triangles: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Height of the triangles (T, 3, 3) over each plan point (n, 2) (the highest of those
    holding it, -inf where none), by barycentric interpolation."""
    out = np.full(len(points), -np.inf)
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    for start in range(0, len(points), 256):
        p = points[start : start + 256, None, :]
        v0, v1, v2 = (b - a)[None, :, :2], (c - a)[None, :, :2], p - a[None, :, :2]
        den = v0[..., 0] * v1[..., 1] - v1[..., 0] * v0[..., 1]
        ok = np.abs(den) > 1e-12
        den = np.where(ok, den, 1.0)
        u = (v2[..., 0] * v1[..., 1] - v1[..., 0] * v2[..., 1]) / den
        v = (v0[..., 0] * v2[..., 1] - v2[..., 0] * v0[..., 1]) / den
        inside = ok & (u >= -1e-9) & (v >= -1e-9) & (u + v <= 1 + 1e-9)
        z = a[None, :, 2] + u * (b - a)[None, :, 2] + v * (c - a)[None, :, 2]
        out[start : start + 256] = np.where(inside, z, -np.inf).max(axis=1)
    return out
