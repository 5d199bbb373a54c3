"""SceneView: what one frame's rendering sensors see, the map's static index and the actors.

Triangles are numbered across the frame: the static index's Mesh numbers first (0 up to
S - 1), then the dynamic Mesh's, each plus S. The camera and the ray casts answer in these
numbers (-1 for nothing); the view looks up each number's tag, instance id, colour and unit
normal, for whole buffers of numbers at once.
"""

from __future__ import annotations

import numpy as np

from world.render.index import MeshIndex
from world.scene.mesh import Mesh

__all__ = ["DYNAMIC_CELL", "SceneView"]

DYNAMIC_CELL = 8.0  # m: the actors' chunks group triangles by cells this size


class SceneView:
    """The static index (built once per map) and this frame's dynamic Mesh (posed actors),
    indexed when the view is made (some thousands of triangles: a fraction of a millisecond)."""

    def __init__(self, static: MeshIndex, dynamic: Mesh | MeshIndex | None = None) -> None:
        self.static = static
        if dynamic is None:
            dynamic = Mesh.empty()
        if isinstance(dynamic, Mesh):
            dynamic = MeshIndex.build(dynamic, "the actors' mesh", cell=DYNAMIC_CELL)
        self.dynamic = dynamic
        self.dynamic_offset = static.triangle_count  # the dynamic triangles' first number

    @property
    def triangle_count(self) -> int:
        return self.static.triangle_count + self.dynamic.triangle_count

    def passes(self) -> tuple[tuple[MeshIndex, int], ...]:
        """Each index with the number of its first triangle, static first."""
        return ((self.static, 0), (self.dynamic, self.dynamic_offset))

    def tag(self, numbers: np.ndarray) -> np.ndarray:
        """uint8 CityObjectLabel of each triangle number (0 for -1), in the numbers' shape."""
        return self._gather(numbers, self.static.tag, self.dynamic.tag)

    def instance(self, numbers: np.ndarray) -> np.ndarray:
        """uint32 instance id of each triangle number (0 for -1)."""
        return self._gather(numbers, self.static.instance, self.dynamic.instance)

    def colour(self, numbers: np.ndarray) -> np.ndarray:
        """(..., 3) uint8 sRGB albedo of each triangle number (0 for -1)."""
        return self._gather(numbers, self.static.colour, self.dynamic.colour)

    def normal(self, numbers: np.ndarray) -> np.ndarray:
        """(..., 3) float32 unit normal of each triangle number, by its winding (a triangle
        is double-sided: turn it toward the viewer with the sign of its dot with the view
        ray); zero for -1 and for a triangle without area."""
        return self._gather(numbers, self.static.normal, self.dynamic.normal)

    def _gather(self, numbers: np.ndarray, static: np.ndarray, dynamic: np.ndarray) -> np.ndarray:
        numbers = np.asarray(numbers)
        flat = numbers.ravel()
        offset = self.dynamic_offset
        out = np.take(static, np.clip(flat, 0, max(offset - 1, 0)), axis=0, mode="clip")
        if not len(static):
            out = np.zeros((len(flat), *static.shape[1:]), static.dtype)
        moved = flat >= offset
        if moved.any():
            out[moved] = dynamic[flat[moved] - offset]
        out[flat < 0] = 0
        return out.reshape(numbers.shape + static.shape[1:])
