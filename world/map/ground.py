"""Ground planes under bodies, from one batch map query per tick.

Each tick asks the map for the surface under every body once (`map.ground`, see
world.map.map.Map.ground: the highest surface at most 1 m above the query point),
then treats the ground near each body as the plane through that sample with
that normal, for every substep of the tick. A body far from any road has no
ground (`found` False) and falls freely.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from world.kernels.compiled import njit

__all__ = ["GroundPlanes", "ground_height", "planes_through", "sample_ground"]


class GroundPlanes(NamedTuple):
    """For each body: the sample point (x, y), its height, slope dz/dx and dz/dy, found.

    A NamedTuple of arrays, so the compiled physics substeps take it as it is.
    """

    ref: np.ndarray  # (N, 2)
    z: np.ndarray
    grad: np.ndarray  # (N, 2)
    found: np.ndarray


@njit(inline="always")  # (a compiled call taking arrays costs their reference counts)
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
    return planes_through(
        np.ascontiguousarray(points, dtype=np.float64),
        np.ascontiguousarray(sample.z, dtype=np.float64),
        np.ascontiguousarray(sample.normal, dtype=np.float64),
        np.ascontiguousarray(sample.found, dtype=np.bool_),
    )


@njit(cache=True)
def planes_through(
    points: np.ndarray, z: np.ndarray, normal: np.ndarray, found: np.ndarray
) -> GroundPlanes:
    """The planes through the surface samples (height, unit normal, found) under `points`;
    a sample whose normal does not point up (z part <= 1e-6) is no ground."""
    n = len(points)
    ref, height, grad = np.empty((n, 2)), np.empty(n), np.empty((n, 2))
    on = np.empty(n, dtype=np.bool_)
    for b in range(n):
        nz = normal[b, 2]
        on[b] = found[b] and nz > 1e-6
        ref[b, 0], ref[b, 1] = points[b, 0], points[b, 1]
        if on[b]:
            height[b] = z[b]
            grad[b, 0], grad[b, 1] = -normal[b, 0] / nz, -normal[b, 1] / nz
        else:
            height[b] = -np.inf
            grad[b, 0], grad[b, 1] = 0.0, 0.0
    return GroundPlanes(ref, height, grad, on)
