"""The ground around the roads: a grid of TERRAIN_CELL cells under and around the map.

The grid (world.scene.floor_grid) reaches TERRAIN_REACH beyond the plan extent of the
scene's surfaces and stays TERRAIN_DROP below the lowest surface over each cell: under a
road on a hill it follows the road down, away from the roads it takes the height of the
nearest ones, and it never covers a road, a sidewalk or a bridge's underpass. Surfaces are
the scene's triangles that are not (near) vertical, so the skirts and curb faces, which
reach below the roads, do not pull it down. Tag Terrain, a grass-and-earth albedo.
"""

from __future__ import annotations

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.builder import MeshParts
from world.scene.floor_grid import Grid, corner_heights, grid_triangles, lowest_per_cell, spread
from world.scene.materials import TERRAIN
from world.scene.mesh import Mesh

__all__ = ["TERRAIN_CELL", "TERRAIN_DROP", "TERRAIN_REACH", "Terrain", "surface_triangles"]

TERRAIN_CELL = 10.0  # m
TERRAIN_DROP = 0.3  # m below the lowest surface over a cell
TERRAIN_REACH = 100.0  # m beyond the surfaces' extent
_UPRIGHT = 0.1  # a triangle whose unit normal has |z| below this is a wall, not a surface


def surface_triangles(mesh: Mesh) -> np.ndarray:
    """(T, 3, 3) the triangles of `mesh` that face up or down rather than sideways."""
    corners = mesh.vertices[mesh.triangles]
    u, v = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
    nx = u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1]
    ny = u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2]
    nz = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    flat = nz * nz > (_UPRIGHT * _UPRIGHT) * (nx * nx + ny * ny + nz * nz)
    return corners[flat]


class Terrain:
    """The terrain's grid and its corners' heights, built from the scene's surfaces."""

    __slots__ = ("grid", "heights")

    def __init__(self, surfaces: np.ndarray) -> None:
        """`surfaces` (T, 3, 3): the triangles it stays below (at least one)."""
        flat = surfaces.reshape(-1, 3)
        reach = np.array([TERRAIN_REACH, TERRAIN_REACH])
        self.grid = Grid(
            flat[:, :2].min(axis=0) - reach, flat[:, :2].max(axis=0) + reach, TERRAIN_CELL
        )
        self.heights = corner_heights(spread(lowest_per_cell(self.grid, surfaces)), TERRAIN_DROP)

    def below(self, xy: np.ndarray) -> np.ndarray:
        """A height at or below the terrain at each plan point (n, 2): the lowest corner of
        the cell holding it."""
        k = self.grid.index(np.asarray(xy, dtype=float))
        i, j = k[:, 0], k[:, 1]
        h = self.heights
        low = np.minimum(h[i, j], h[i + 1, j])
        return np.minimum(low, np.minimum(h[i, j + 1], h[i + 1, j + 1]))

    def add_to(self, parts: MeshParts, instance: int) -> None:
        keep = np.ones((self.grid.nx, self.grid.ny), dtype=bool)
        vertices, triangles = grid_triangles(self.grid, self.heights, keep)
        parts.add(vertices, triangles, Label.Terrain, instance, TERRAIN)
