"""Ground planes under bodies, from one batch map query per tick.

Each tick asks the map for the surface under every body once (`map.ground`, see
world.map.Map.ground: the highest surface at most 1 m above the query point),
then treats the ground near each body as the plane through that sample with
that normal, for every substep of the tick. A body far from any road has no
ground (`found` False) and falls freely.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

__all__ = ["GroundPlanes", "ground_height", "sample_ground"]


class GroundPlanes(NamedTuple):
    """For each body: the sample point (x, y), its height, slope dz/dx and dz/dy, found.

    A NamedTuple of arrays, so the compiled physics substeps take it as it is.
    """

    ref: np.ndarray  # (N, 2)
    z: np.ndarray
    grad: np.ndarray  # (N, 2)
    found: np.ndarray


@njit
def ground_height(
    ref: np.ndarray, z: np.ndarray, grad: np.ndarray, b: int, x: float, y: float
) -> float:
    """Height of body b's ground plane (GroundPlanes' columns) at (x, y); -inf for none."""
    return z[b] + (grad[b, 0] * (x - ref[b, 0]) + grad[b, 1] * (y - ref[b, 1]))


def sample_ground(ground_map: object, points: np.ndarray) -> GroundPlanes:
    """The ground planes under `points` (N, 3), CARLA frame."""
    if len(points) == 0:
        return GroundPlanes(
            np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0, dtype=bool)
        )
    sample = ground_map.ground(points)
    normal = np.asarray(sample.normal, dtype=np.float64)
    found = np.asarray(sample.found, dtype=bool) & (normal[:, 2] > 1e-6)
    nz = np.where(found, normal[:, 2], 1.0)
    grad = np.where(found[:, None], -normal[:, :2] / nz[:, None], 0.0)
    z = np.where(found, np.asarray(sample.z, dtype=np.float64), -np.inf)
    return GroundPlanes(points[:, :2].copy(), z, grad, found)
