"""Ray casts for LiDAR and radar: from one origin, each ray's nearest triangle and distance."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.errors import WorldError
from world.render import ray_kernels as rk
from world.render.view import SceneView

__all__ = ["RAYS_PER_BIN", "RayHits", "cast_rays"]

RAYS_PER_BIN = 2.0  # rays a direction bin holds on average (the binning's grain)
MAX_BINS_PER_SIDE = 2048  # a face's grid is at most this many bins along a side
UNIT = 1e-6  # how far from 1 a direction's length may be


@dataclass(slots=True)
class RayHits:
    """Each ray's nearest hit: `distance` (N,) float64 in metres along the unit direction
    (inf where nothing lies within range) and `number` (N,) int32, the triangle's number
    in the view (-1 for nothing)."""

    distance: np.ndarray
    number: np.ndarray


def cast_rays(
    view: SceneView, origin: np.ndarray, directions: np.ndarray, max_range: float
) -> RayHits:
    """The nearest triangle along each of `directions` ((N, 3) unit vectors in CARLA's
    frame) from `origin`, no farther than `max_range` metres (a hit at exactly max_range
    counts)."""
    origin = np.ascontiguousarray(origin, dtype=np.float64)
    directions = np.ascontiguousarray(directions, dtype=np.float64)
    if origin.shape != (3,) or not np.isfinite(origin).all():
        raise WorldError(f"ray origin must be a finite 3-vector, got {origin!r}")
    if directions.ndim != 2 or directions.shape[1] != 3:
        raise WorldError(f"ray directions must be an (N, 3) array, got shape {directions.shape}")
    if not (np.isfinite(max_range) and max_range > 0.0):
        raise WorldError(f"ray range must be a positive number of metres, got {max_range}")
    count = len(directions)
    lengths = np.sqrt(
        directions[:, 0] * directions[:, 0]
        + directions[:, 1] * directions[:, 1]
        + directions[:, 2] * directions[:, 2]
    )
    if count and not (np.abs(lengths - 1.0) <= UNIT).all():
        raise WorldError("ray directions must be unit vectors (a length is off 1 by over 1e-6)")
    best_t = np.full(count, float(max_range))
    best_n = np.full(count, -1, np.int32)
    if count:
        face = np.empty(count, np.int64)
        coordinates = np.empty((count, 2))
        extents = np.empty((6, 5))
        rk.face_coordinates(directions, face, coordinates, extents)
        grids, bins = _grids(extents)
        bin_start = np.empty(bins + 1, np.int64)
        order = np.empty(count, np.int64)
        rk.sort_rays(face, coordinates, grids, bin_start, order)
        bin_far = np.full(bins, float(max_range))
        polygon = np.zeros((2, 16, 3))
        shrink = (1.0 - rk.SLACK) / float(lengths.max())
        for index, offset in view.passes():
            if not index.triangle_count:
                continue
            rk.cast_index(
                index.vertices,
                index.triangles,
                index.number,
                index.triangle_start,
                index.vertex_start,
                index.lower,
                index.upper,
                offset,
                origin,
                float(max_range),
                shrink,
                directions,
                grids,
                bin_start,
                order,
                bin_far,
                best_t,
                best_n,
                np.zeros((index.most_vertices, 3)),
                polygon,
            )
    best_t[best_n < 0] = np.inf
    return RayHits(best_t, best_n)


def _grids(extents: np.ndarray) -> tuple[np.ndarray, int]:
    """Each face's grid of bins (ray_kernels' FACE_COLUMNS columns) over the rectangle its
    rays cover, about RAYS_PER_BIN rays a bin, bins shaped like the rectangle; and the count
    of all bins."""
    grids = np.zeros((6, rk.FACE_COLUMNS))
    bins = 0
    for f in range(6):
        count, a_low, a_high, b_low, b_high = extents[f]
        if count == 0:
            continue
        width, height = a_high - a_low, b_high - b_low
        cells = max(1.0, count / RAYS_PER_BIN)
        if width > 0.0 and height > 0.0:
            columns = int(np.sqrt(cells * width / height) + 0.5)
        else:
            columns = int(cells) if width > 0.0 else 1
        columns = min(MAX_BINS_PER_SIDE, max(1, columns))
        rows = min(MAX_BINS_PER_SIDE, max(1, int(cells / columns + 0.5))) if height > 0.0 else 1
        grid = grids[f]
        grid[rk.A_LOW], grid[rk.A_HIGH], grid[rk.B_LOW], grid[rk.B_HIGH] = extents[f, 1:]
        grid[rk.COLUMNS], grid[rk.ROWS] = columns, rows
        grid[rk.A_SCALE] = columns / width if width > 0.0 else 0.0
        grid[rk.B_SCALE] = rows / height if height > 0.0 else 0.0
        grid[rk.FIRST_BIN] = bins
        bins += columns * rows
    return grids, bins
