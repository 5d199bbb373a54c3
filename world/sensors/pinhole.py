"""The pinhole camera every camera sensor shares: focal length, pixel rays, projection.

CARLA's cameras are pinholes with a horizontal field of view `fov` over `width` pixels:
f = width / (2 tan(fov / 2)). In the camera's frame (x forward, y right, z up) a point
(x, y, z) lands at u = f·y/x + W/2, v = −f·z/x + H/2 (u to the right, v down, pixels), and
pixel (i, j) (column i, row j) sees the ray through (i + 0.5, j + 0.5).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from world import elementary as el

__all__ = [
    "focal_length",
    "pixel_offsets",
    "pixel_rays",
    "project",
    "to_local",
    "to_world",
    "world_rays",
]


def focal_length(width: int, fov: float) -> float:
    """f in pixels for a horizontal field of view of `fov` degrees over `width` pixels."""
    return width / (2.0 * el.tan(math.radians(fov) / 2.0))


@lru_cache(maxsize=16)
def pixel_offsets(width: int, height: int, fov: float) -> tuple[np.ndarray, np.ndarray]:
    """The rays through the pixels' centres in the camera's frame, x = 1: (W,) their y by
    column and (H,) their z by row (pixel (i, j)'s ray is (1, y[i], z[j])); read-only."""
    f = focal_length(width, fov)
    across = (np.arange(width) + 0.5 - width / 2.0) / f
    down = -(np.arange(height) + 0.5 - height / 2.0) / f
    across.flags.writeable = False
    down.flags.writeable = False
    return across, down


@lru_cache(maxsize=16)
def pixel_rays(width: int, height: int, fov: float) -> np.ndarray:
    """(H, W, 3) rays through the pixels' centres in the camera's frame, x = 1 (not unit);
    read-only, shared by the cameras of one size."""
    across, down = pixel_offsets(width, height, fov)
    rays = np.empty((height, width, 3))
    rays[..., 0] = 1.0
    rays[..., 1] = across[None, :]
    rays[..., 2] = down[:, None]
    rays.flags.writeable = False
    return rays


def to_world(local: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """(..., 3) vectors in a frame whose axes are `axes`' columns, in the world frame: each
    component times its axis, summed in a fixed order (not BLAS, whose sums may differ by
    CPU and which is slow for three columns)."""
    return (
        local[..., 0:1] * axes[:, 0] + local[..., 1:2] * axes[:, 1] + local[..., 2:3] * axes[:, 2]
    )


def to_local(world: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """(..., 3) world vectors in the frame of `axes`' columns (the inverse of to_world)."""
    return np.stack(
        [
            world[..., 0] * axes[0, k] + world[..., 1] * axes[1, k] + world[..., 2] * axes[2, k]
            for k in range(3)
        ],
        -1,
    )


def world_rays(width: int, height: int, fov: float, axes: np.ndarray) -> np.ndarray:
    """(H, W, 3) unit rays through the pixels in the world frame; `axes` has the camera's
    forward, right and up vectors as columns."""
    rays = to_world(pixel_rays(width, height, fov), axes)
    return rays / np.sqrt((rays * rays).sum(-1, keepdims=True))


def project(local: np.ndarray, width: int, height: int, fov: float) -> np.ndarray:
    """(N, 2) pixel coordinates (u, v) of (N, 3) points in the camera's frame (x > 0)."""
    f = focal_length(width, fov)
    return np.stack(
        [
            f * local[:, 1] / local[:, 0] + width / 2.0,
            -f * local[:, 2] / local[:, 0] + height / 2.0,
        ],
        1,
    )
