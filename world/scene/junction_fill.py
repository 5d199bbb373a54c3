"""The floor of each junction: asphalt under its lanes, so the gaps between the connecting
roads' lanes show road, not the ground below.

A junction's connecting roads overlap, but their lanes leave slivers between them (the
inside of a turn, the corners between the arms). Under them lies a grid of FILL_CELL
cells (world.scene.floor_grid) over the plan convex hull of the junction's road-level
lanes (tag Roads): the cells whose centre is inside the hull, each corner FILL_DROP below
the lowest lane triangle over its cells, so the lanes always cover it where they are, on
hills too. A junction whose lanes cover less than 1 / MAX_HULL_RATIO of their hull (a
highway interchange's loops, whose hull would pave the fields between the ramps) is left
unfilled.
"""

from __future__ import annotations

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.builder import MeshParts
from world.scene.floor_grid import Grid, corner_heights, grid_triangles, lowest_per_cell, spread
from world.scene.materials import ASPHALT
from world.scene.mesh import Mesh

__all__ = ["FILL_CELL", "FILL_DROP", "MAX_HULL_RATIO", "convex_hull", "junction_fill"]

FILL_CELL = 2.0  # m
FILL_DROP = 0.04  # m below the lanes
MAX_HULL_RATIO = 2.0  # hull area over the lanes' area beyond which no floor is laid


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Indices of the plan convex hull of (n, 2+) points, counter-clockwise in (x, y), no
    collinear corners (Andrew's monotone chain)."""
    order = np.lexsort((points[:, 1], points[:, 0]))
    xy = points[order, :2].tolist()

    def half(indices: list[int]) -> list[int]:
        chain: list[int] = []
        for k in indices:
            while len(chain) >= 2:
                (ax, ay), (bx, by), (cx, cy) = xy[chain[-2]], xy[chain[-1]], xy[k]
                if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) > 0.0:
                    break
                chain.pop()
            chain.append(k)
        return chain

    ahead = list(range(len(xy)))
    lower, upper = half(ahead), half(ahead[::-1])
    return order[np.array(lower[:-1] + upper[:-1], dtype=np.int64)]


def _area(xy: np.ndarray) -> float:
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * abs(float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum()))


def junction_fill(parts: MeshParts, roads: Mesh, instances: list[int]) -> None:
    """Adds the floor of each junction whose roads carry instance id `instances[k]` in the
    static mesh `roads` (their Roads triangles give the outline and the heights)."""
    on_road = roads.tag == Label.Roads
    for instance in instances:
        triangles = roads.triangles[on_road & (roads.instance == instance)]
        if len(triangles) < 2:
            continue
        corners = roads.vertices[triangles]  # (T, 3, 3)
        a, b, c = corners[:, 0, :2], corners[:, 1, :2], corners[:, 2, :2]
        ab, ac = b - a, c - a
        lanes = 0.5 * float(np.abs(ab[:, 0] * ac[:, 1] - ab[:, 1] * ac[:, 0]).sum())
        points = roads.vertices[np.unique(triangles)]
        hull = points[convex_hull(points)][:, :2]
        if len(hull) < 3 or _area(hull) > MAX_HULL_RATIO * lanes:
            continue
        grid = Grid(hull.min(axis=0), hull.max(axis=0), FILL_CELL)
        xs, ys = grid.corners()
        cx, cy = np.meshgrid(0.5 * (xs[:-1] + xs[1:]), 0.5 * (ys[:-1] + ys[1:]), indexing="ij")
        inside = _inside(hull, np.stack([cx.ravel(), cy.ravel()], axis=1)).reshape(cx.shape)
        if not inside.any():
            continue
        heights = corner_heights(spread(lowest_per_cell(grid, corners)), FILL_DROP)
        vertices, faces = grid_triangles(grid, heights, inside)
        parts.add(vertices, faces, Label.Roads, instance, ASPHALT, compact=True)


def _inside(ring: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Whether each plan point lies inside (or on) the counter-clockwise convex `ring`."""
    a = ring
    b = np.roll(ring, -1, axis=0)
    edge = (b - a)[None, :, :]
    rel = points[:, None, :] - a[None, :, :]
    return ((edge[..., 0] * rel[..., 1] - edge[..., 1] * rel[..., 0]) >= 0.0).all(axis=1)
