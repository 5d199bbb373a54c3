"""Crosswalks painted on the road: zebra stripes inside each crosswalk outline.

The outlines are the map's (Map.crosswalk_polygons: CARLA's placement of the <object
type="crosswalk"> outlines). A four-cornered outline gets stripes STRIPE_WIDTH wide,
STRIPE_GAP apart, across its longer sides (so they run along the traffic and follow one
another across the road), centred along it; any other outline is filled whole. The
paint lies CROSSWALK_LIFT above the outline's corners, tag RoadLines, white.
"""

from __future__ import annotations

import math

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.builder import MeshParts, fan_triangles, norms
from world.scene.materials import WHITE_PAINT

__all__ = ["CROSSWALK_LIFT", "STRIPE_GAP", "STRIPE_WIDTH", "crosswalks"]

STRIPE_WIDTH = 0.5  # m
STRIPE_GAP = 0.5  # m
CROSSWALK_LIFT = 0.006  # m: above the road marks' 5 mm, so the two never fight


def crosswalks(parts: MeshParts, polygons: list[np.ndarray], instance: int) -> None:
    """Adds the stripes (or fills) of each crosswalk outline, (n, 3) corners each."""
    lift = np.array([0.0, 0.0, CROSSWALK_LIFT])
    for polygon in polygons:
        corners = np.asarray(polygon, dtype=float) + lift
        if len(corners) == 4:
            _stripes(parts, corners, instance)
        else:
            parts.add(corners, fan_triangles(len(corners)), Label.RoadLines, instance, WHITE_PAINT)


def _stripes(parts: MeshParts, c: np.ndarray, instance: int) -> None:
    """Stripes across the quad c0 c1 c2 c3, along the direction of its longer side pair."""
    sides = norms(c[[1, 2, 3, 0]] - c)  # c0c1, c1c2, c2c3, c3c0
    if sides[0] + sides[2] < sides[1] + sides[3]:
        c = c[[1, 2, 3, 0]]
        sides = sides[[1, 2, 3, 0]]
    # the long sides are c0 -> c1 and c3 -> c2; u runs along them
    length = 0.5 * (sides[0] + sides[2])
    pitch = STRIPE_WIDTH + STRIPE_GAP
    count = max(1, math.floor((length + STRIPE_GAP) / pitch))
    margin = 0.5 * (length - (count * pitch - STRIPE_GAP))
    starts = (margin + pitch * np.arange(count)) / length
    ends = starts + STRIPE_WIDTH / length
    u = np.stack([starts, ends], axis=1).clip(0.0, 1.0)  # (count, 2)

    def along(v: float) -> np.ndarray:
        a, b = (c[0], c[1]) if v == 0.0 else (c[3], c[2])
        return a[None, None, :] + u[..., None] * (b - a)[None, None, :]  # (count, 2, 3)

    near, far = along(0.0), along(1.0)
    vertices = np.stack([near[:, 0], near[:, 1], far[:, 1], far[:, 0]], axis=1)  # (count, 4, 3)
    base = 4 * np.arange(count)[:, None, None]
    triangles = base + fan_triangles(4)[None, :, :]
    parts.add(vertices.reshape(-1, 3), triangles.reshape(-1, 3), Label.RoadLines, instance,
              WHITE_PAINT)  # fmt: skip
