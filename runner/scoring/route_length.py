"""A route's length as the leaderboard measures it: carla.Location arithmetic in float32."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def route_xyz(points: Sequence) -> list[list[float]]:
    """[x, y, z] per point, from coordinates, Locations or Transforms."""
    out = []
    for p in points:
        p = getattr(p, "location", p)
        out.append([p.x, p.y, p.z] if hasattr(p, "x") else list(p)[:3])
    return out


def route_length(points: Sequence) -> float:
    """Sum of the segment lengths of the dense route (coordinates, Locations or
    Transforms), in metres.

    Each segment is carla's `(b - a).length()`: the difference in float32, then
    `x*x + y*y + z*z` in float32 left to right, then a float32 square root (IEEE, correctly
    rounded, so the same on every CPU). The segments are widened to double and summed in
    point order, one addition at a time (no pairwise or compensated summation).
    """
    if len(points) < 2:
        return 0.0
    xyz = np.asarray(route_xyz(points), dtype=np.float32)
    d = xyz[1:] - xyz[:-1]
    squared = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    squared = squared + d[:, 2] * d[:, 2]
    total = 0.0
    for segment in np.sqrt(squared).tolist():
        total += segment
    return total
