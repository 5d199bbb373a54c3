"""FlatMap: an endless flat ground at one height, for tests, benchmarks and empty worlds.

It answers the one query the physics asks of a map, `ground(points)` (see
world.map.map.Map.ground), with the plane z = `height` everywhere, and has no roads,
so no spawn points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.geometry import Transform
from world.map.carried_ground import KILL_DEPTH

__all__ = ["FlatMap", "GroundSample"]


@dataclass(frozen=True, slots=True)
class GroundSample:
    """The surface under each queried point: height, unit normal (CARLA frame), found."""

    z: np.ndarray
    normal: np.ndarray
    found: np.ndarray


class FlatMap:
    """A map that is only an infinite plane at z = `height`."""

    def __init__(self, name: str = "Flat", height: float = 0.0) -> None:
        self.name = name
        self.height = float(height)

    def ground(self, points: np.ndarray) -> GroundSample:
        n = len(points)
        normal = np.zeros((n, 3))
        normal[:, 2] = 1.0
        return GroundSample(np.full(n, self.height), normal, np.ones(n, dtype=bool))

    def kill_height(self) -> float:
        """The height below which the world destroys a body."""
        return self.height - KILL_DEPTH

    def get_spawn_points(self) -> list[Transform]:
        return []
