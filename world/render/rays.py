"""Ray casts for LiDAR and radar: from one origin, each ray's nearest triangle and distance.

A sensor that casts the same directions every tick in its own frame (a LiDAR's channels and
azimuths, turned with the sensor, its sweep's start folded into the turn) bins them once,
as a RayBundle, and casts the bundle with the frame's axes each tick; plain (N, 3) world
directions are binned on every cast.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from world.errors import WorldError
from world.render import ray_kernels as rk
from world.render.view import SceneView

__all__ = ["RAYS_PER_BIN", "RayBundle", "RayHits", "cast_rays"]

RAYS_PER_BIN = 2.0  # rays a direction bin holds on average (the binning's grain)
MAX_BINS_PER_SIDE = 2048  # a face's grid is at most this many bins along a side
UNIT = 1e-6  # how far from 1 a direction's length may be
IDENTITY = np.eye(3)  # forward, right, up of the world's own frame


@dataclass(slots=True)
class RayHits:
    """Each ray's nearest hit: `distance` (N,) float64 in metres along the unit direction
    (inf where nothing lies within range) and `number` (N,) int32, the triangle's number
    in the view (-1 for nothing)."""

    distance: np.ndarray
    number: np.ndarray


@dataclass(slots=True)
class RayBundle:
    """Unit directions (N, 3) in a frame of their own (x forward, y right, z up), binned by
    the cube face and cell they point through; made once, cast many times."""

    directions: np.ndarray
    grids: np.ndarray = field(repr=False)  # (6, ray_kernels.FACE_COLUMNS) float64
    bin_start: np.ndarray = field(repr=False)  # (bins + 1,) int64
    order: np.ndarray = field(repr=False)  # (N,) int64, the rays bin by bin
    sorted_directions: np.ndarray = field(repr=False)  # (N, 3) float64, in that order
    empty_bins: np.ndarray = field(repr=False)  # (bins,) bool
    longest: float = 1.0  # the longest direction's length

    @classmethod
    def of(cls, directions: np.ndarray) -> RayBundle:
        """Bins `directions` (WorldError unless they are finite unit vectors, (N, 3))."""
        directions = np.ascontiguousarray(directions, dtype=np.float64)
        if directions.ndim != 2 or directions.shape[1] != 3:
            raise WorldError(
                f"ray directions must be an (N, 3) array, got shape {directions.shape}"
            )
        count = len(directions)
        face = np.empty(count, np.int64)
        coordinates = np.empty((count, 2))
        extents = np.empty((6, 5))
        longest = rk.face_coordinates(directions, face, coordinates, extents, UNIT)
        if longest < 0.0:
            raise WorldError("ray directions must be unit vectors (a length is off 1 by over 1e-6)")
        grids, bins = _grids(extents)
        bin_start = np.empty(bins + 1, np.int64)
        order = np.empty(count, np.int64)
        sorted_directions = np.empty((count, 3))
        rk.sort_rays(face, coordinates, directions, grids, bin_start, order, sorted_directions)
        return cls(
            directions,
            grids,
            bin_start,
            order,
            sorted_directions,
            bin_start[1:] == bin_start[:-1],
            longest,
        )

    def __len__(self) -> int:
        return len(self.directions)


def cast_rays(
    view: SceneView,
    origin: np.ndarray,
    directions: np.ndarray | RayBundle,
    max_range: float,
    axes: np.ndarray | None = None,
) -> RayHits:
    """The nearest triangle along each direction from `origin`, no farther than `max_range`
    metres (a hit at exactly max_range counts). `directions` are (N, 3) unit vectors in
    CARLA's frame, or a RayBundle in a frame whose forward, right and up are the rows of
    `axes` (3, 3) in CARLA's frame (the world's own axes when None)."""
    origin = np.ascontiguousarray(origin, dtype=np.float64)
    if origin.shape != (3,) or not np.isfinite(origin).all():
        raise WorldError(f"ray origin must be a finite 3-vector, got {origin!r}")
    if not (np.isfinite(max_range) and max_range > 0.0):
        raise WorldError(f"ray range must be a positive number of metres, got {max_range}")
    frame = IDENTITY if axes is None else np.ascontiguousarray(axes, dtype=np.float64)
    if frame.shape != (3, 3) or not np.isfinite(frame).all():
        raise WorldError("ray axes must be a finite (3, 3) array: forward, right, up")
    bundle = directions if isinstance(directions, RayBundle) else RayBundle.of(directions)
    count = len(bundle)
    best_t = np.full(count, float(max_range))
    best_n = np.full(count, -1, np.int32)
    if count:
        bin_far = np.where(bundle.empty_bins, -1.0, float(max_range))
        polygon = np.zeros((2, 16, 3))
        shrink = (1.0 - rk.SLACK) / bundle.longest
        for index, offset in view.passes():
            if not index.triangle_count:
                continue
            rk.cast_index(
                index.chunk_arrays(),
                offset,
                origin,
                frame,
                float(max_range),
                shrink,
                bundle.sorted_directions,
                (bundle.grids, bundle.bin_start, bin_far),
                (best_t, best_n),
                (np.zeros((index.most_vertices, 6)), polygon),
            )
    distance = np.empty(count)
    number = np.empty(count, np.int32)
    rk.unsort_hits(bundle.order, best_t, best_n, distance, number)
    return RayHits(distance, number)


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
