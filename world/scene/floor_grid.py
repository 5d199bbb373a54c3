"""Grids laid under the roads: a surface of square cells that stays below given triangles.

Each cell takes the lowest height of the triangles whose plan bounding box meets it; each
grid corner the lowest of its (up to) four cells, less a drop. Within a cell the grid's
two triangles lie between its corners' heights, each at most the cell's lowest height
less the drop, so the grid never rises above a triangle over that cell. Cells that no
triangle meets take the lowest of their neighbours, ring by ring outward.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Grid", "corner_heights", "grid_triangles", "lowest_per_cell", "spread"]


class Grid:
    """Square cells of `cell` metres from `origin` (x, y): nx by ny of them."""

    __slots__ = ("cell", "nx", "ny", "origin")

    def __init__(self, lo: np.ndarray, hi: np.ndarray, cell: float) -> None:
        self.cell = float(cell)
        self.origin = np.asarray(lo, dtype=float)[:2].copy()
        size = np.asarray(hi, dtype=float)[:2] - self.origin
        self.nx = max(1, math.ceil(float(size[0]) / self.cell))
        self.ny = max(1, math.ceil(float(size[1]) / self.cell))

    def corners(self) -> tuple[np.ndarray, np.ndarray]:
        """x (nx + 1,) and y (ny + 1,) of the grid lines."""
        return (
            self.origin[0] + self.cell * np.arange(self.nx + 1),
            self.origin[1] + self.cell * np.arange(self.ny + 1),
        )

    def index(self, xy: np.ndarray) -> np.ndarray:
        """(n, 2) cell indices holding plan points, clipped to the grid."""
        k = np.floor((xy[:, :2] - self.origin) / self.cell).astype(np.int64)
        return np.clip(k, 0, [self.nx - 1, self.ny - 1])


def lowest_per_cell(grid: Grid, triangles: np.ndarray) -> np.ndarray:
    """(nx, ny) lowest height of the triangles (T, 3, 3) meeting each cell (by plan bounding
    box), +inf where none."""
    out = np.full((grid.nx, grid.ny), np.inf)
    if not len(triangles):
        return out
    lo = grid.index(triangles.min(axis=1))
    hi = grid.index(triangles.max(axis=1))
    z = triangles[..., 2].min(axis=1)
    span = hi - lo
    for dx in range(int(span[:, 0].max()) + 1):
        for dy in range(int(span[:, 1].max()) + 1):
            m = (span[:, 0] >= dx) & (span[:, 1] >= dy)
            np.minimum.at(out, (lo[m, 0] + dx, lo[m, 1] + dy), z[m])
    return out


def spread(cells: np.ndarray) -> np.ndarray:
    """`cells` with each +inf cell given the lowest of its eight neighbours, ring by ring,
    until none is left (all +inf stays so)."""
    out = cells.copy()
    while np.isinf(out).any() and np.isfinite(out).any():
        padded = np.pad(out, 1, constant_values=np.inf)
        nx, ny = out.shape
        around = np.min(
            [padded[1 + dx : 1 + dx + nx, 1 + dy : 1 + dy + ny]
             for dx in (-1, 0, 1) for dy in (-1, 0, 1)],
            axis=0,
        )  # fmt: skip
        empty = np.isinf(out)
        out[empty] = around[empty]
    return out


def corner_heights(cells: np.ndarray, drop: float) -> np.ndarray:
    """(nx + 1, ny + 1) heights of the grid's corners: the lowest of the cells around each,
    less `drop`."""
    padded = np.pad(cells, 1, constant_values=np.inf)
    low = np.minimum(
        np.minimum(padded[:-1, :-1], padded[1:, :-1]), np.minimum(padded[:-1, 1:], padded[1:, 1:])
    )
    return low - drop


def grid_triangles(
    grid: Grid, heights: np.ndarray, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ((nx + 1) (ny + 1), 3) and the two triangles of each kept cell (nx, ny)."""
    xs, ys = grid.corners()
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    vertices = np.stack([gx, gy, heights], axis=-1).reshape(-1, 3)
    i, j = np.nonzero(keep)
    stride = grid.ny + 1
    a = i * stride + j
    b = (i + 1) * stride + j
    c = (i + 1) * stride + j + 1
    d = i * stride + j + 1
    triangles = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    return vertices, triangles
