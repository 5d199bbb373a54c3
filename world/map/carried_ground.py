"""Ground outside the lanes: the nearest road surface's height, carried on flat.

CARLA's towns are solid everywhere; an OpenDRIVE map only has lanes. So that a body that
leaves every lane (a car cutting a junction corner, a walker off the sidewalk) stays on
the ground, the map keeps a height field over its roads and well beyond them: at every
corner of a CARRIED_CELL grid, the height of the nearest lane centre-line point
(SegmentGrid.nearest, searched from that road's own height so that of two roads at one
place the one at the corner's level wins). Between corners the height is bilinear, so the
carried ground is continuous; its normal is straight up (flat). The physics tick asks it
only for bodies that no lane covers (`carried_into`, compiled); the map's `ground` answers
lanes only. Beyond the field (CARRIED_MARGIN past the roads) the nearest edge's height
carries on. KILL_DEPTH below the lowest road surface is the world's kill height.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from world.kernels.compiled import njit
from world.map.lane_index import SegmentGrid

__all__ = [
    "CARRIED_CELL",
    "CARRIED_MARGIN",
    "KILL_DEPTH",
    "NO_CARRIED_GROUND",
    "CarriedGround",
    "build_carried_ground",
    "carried_into",
]

CARRIED_CELL = 4.0  # m between the height field's corners (coarser on huge maps)
CARRIED_MARGIN = 200.0  # m the field reaches beyond the roads' bounds
KILL_DEPTH = 100.0  # m below the lowest road surface where bodies are destroyed
_MAX_CORNERS = 4_000_000


class CarriedGround(NamedTuple):
    """The height field: corner (i, j) stands at (x0 + i cell, y0 + j cell)."""

    x0: float
    y0: float
    cell: float
    z: np.ndarray  # (corners along x, corners along y)
    kill_z: float


NO_CARRIED_GROUND = CarriedGround(0.0, 0.0, 1.0, np.zeros((0, 0)), -np.inf)


def _surface_heights(grid: SegmentGrid, points: np.ndarray) -> np.ndarray:
    seg, u, _ = grid.nearest(points)
    sg = grid.segments
    return sg.a[seg, 2] + u * (sg.b[seg, 2] - sg.a[seg, 2])


def build_carried_ground(grid: SegmentGrid) -> CarriedGround:
    """The height field over the grid's segments (NO_CARRIED_GROUND for a map with none)."""
    sg = grid.segments
    if not len(sg):
        return NO_CARRIED_GROUND
    ends = np.vstack([sg.a, sg.b])
    lo = ends[:, :2].min(axis=0) - CARRIED_MARGIN
    hi = ends[:, :2].max(axis=0) + CARRIED_MARGIN
    span = hi - lo
    cell = max(CARRIED_CELL, float(np.sqrt(span[0] * span[1] / _MAX_CORNERS)))
    nx, ny = (np.ceil(span / cell).astype(np.int64) + 1).tolist()
    gx, gy = np.meshgrid(lo[0] + cell * np.arange(nx), lo[1] + cell * np.arange(ny), indexing="ij")
    corners = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, ends[:, 2].min())])
    # twice: first from the lowest road's height, then from the height that found
    corners[:, 2] = _surface_heights(grid, corners)
    heights = _surface_heights(grid, corners)
    kill_z = float(ends[:, 2].min()) - KILL_DEPTH
    return CarriedGround(float(lo[0]), float(lo[1]), cell, heights.reshape(nx, ny), kill_z)


@njit(cache=True)
def _height(ground: CarriedGround, x: float, y: float) -> float:
    nx, ny = ground.z.shape
    fx = min(max((x - ground.x0) / ground.cell, 0.0), nx - 1.0)
    fy = min(max((y - ground.y0) / ground.cell, 0.0), ny - 1.0)
    i, j = min(int(fx), nx - 2), min(int(fy), ny - 2)
    tx, ty = fx - i, fy - j
    z = ground.z
    low = z[i, j] + tx * (z[i + 1, j] - z[i, j])
    high = z[i, j + 1] + tx * (z[i + 1, j + 1] - z[i, j + 1])
    return low + ty * (high - low)


@njit(cache=True)
def carried_into(
    ground: CarriedGround,
    pts: np.ndarray,
    reach: float,
    z_out: np.ndarray,
    normal_out: np.ndarray,
    found_out: np.ndarray,
) -> None:
    """For each point no lane covers (found_out False): the carried ground's height when it
    is at most `reach` above the point, flat; a point below it stays without ground."""
    if ground.z.shape[0] < 2 or ground.z.shape[1] < 2:
        return
    for k in range(len(pts)):
        if found_out[k]:
            continue
        x, y = pts[k, 0], pts[k, 1]
        if not (np.isfinite(x) and np.isfinite(y)):
            continue
        h = _height(ground, x, y)
        if h <= pts[k, 2] + reach:
            z_out[k] = h
            normal_out[k, 0], normal_out[k, 1], normal_out[k, 2] = 0.0, 0.0, 1.0
            found_out[k] = True
