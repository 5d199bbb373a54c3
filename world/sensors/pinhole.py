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

__all__ = ["focal_length", "pixel_rays", "project", "world_rays"]


def focal_length(width: int, fov: float) -> float:
    """f in pixels for a horizontal field of view of `fov` degrees over `width` pixels."""
    return width / (2.0 * el.tan(math.radians(fov) / 2.0))


@lru_cache(maxsize=16)
def pixel_rays(width: int, height: int, fov: float) -> np.ndarray:
    """(H, W, 3) rays through the pixels' centres in the camera's frame, x = 1 (not unit);
    read-only, shared by the cameras of one size."""
    f = focal_length(width, fov)
    rays = np.empty((height, width, 3))
    rays[..., 0] = 1.0
    rays[..., 1] = ((np.arange(width) + 0.5 - width / 2.0) / f)[None, :]
    rays[..., 2] = (-(np.arange(height) + 0.5 - height / 2.0) / f)[:, None]
    rays.flags.writeable = False
    return rays


def world_rays(width: int, height: int, fov: float, axes: np.ndarray) -> np.ndarray:
    """(H, W, 3) unit rays through the pixels in the world frame; `axes` has the camera's
    forward, right and up vectors as columns."""
    local = pixel_rays(width, height, fov)
    rays = local @ axes.T
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
