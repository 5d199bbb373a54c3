"""Small meshes for the renderer's tests, in CARLA's frame (x forward, y right, z up)."""

from __future__ import annotations

import numpy as np

from world.scene.mesh import Mesh


def mesh(vertices, triangles, tag: int = 3, first_instance: int = 1) -> Mesh:
    """A Mesh of the given vertices and triangles; instance ids count from first_instance,
    colours are (k, 2k, 3k) mod 256 for triangle k."""
    vertices = np.asarray(vertices, np.float64)
    triangles = np.asarray(triangles, np.int32).reshape(-1, 3)
    count = len(triangles)
    k = np.arange(count)
    return Mesh(
        vertices,
        triangles,
        np.full(count, tag, np.uint8),
        (first_instance + k).astype(np.uint32),
        (np.stack([k, 2 * k, 3 * k], axis=1) % 256).astype(np.uint8),
    )


def box(lo, hi, tag: int = 3, first_instance: int = 1) -> Mesh:
    """An axis-aligned box of 12 triangles; triangles 0 and 1 are the face x = lo[0]."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    corners = [[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    # corner index = 4 * (x is x1) + 2 * (y is y1) + (z is z1)
    faces = [
        [0, 2, 3], [0, 3, 1],  # x = x0
        [4, 5, 7], [4, 7, 6],  # x = x1
        [0, 1, 5], [0, 5, 4],  # y = y0
        [2, 6, 7], [2, 7, 3],  # y = y1
        [0, 4, 6], [0, 6, 2],  # z = z0
        [1, 3, 7], [1, 7, 5],  # z = z1
    ]  # fmt: skip
    return mesh(corners, faces, tag, first_instance)


def quad(a, b, c, d, tag: int = 3, first_instance: int = 1) -> Mesh:
    """The quad a b c d as triangles (a, b, c) and (a, c, d): they share the edge a-c."""
    return mesh([a, b, c, d], [[0, 1, 2], [0, 2, 3]], tag, first_instance)
