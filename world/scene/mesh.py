"""Mesh: triangles in CARLA's frame, each with its semantic tag, instance id and colour.

The one record every producer of geometry hands to the renderer (world/render): the
map's static scene, the actors' posed shapes, a user's meshes. Vertices are metres in
CARLA's frame (left-handed, x forward, y right, z up). Triangles are double-sided: the
renderer faces each one toward the viewer, so their winding carries no meaning. The tag
is CARLA's CityObjectLabel (0.9.14+ numbering); the instance id is the actor id for an
actor's triangles and an id above every actor id's range for a static object's (see
STATIC_INSTANCE_BASE); the colour is the surface's albedo in sRGB.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.errors import WorldError

__all__ = ["STATIC_INSTANCE_BASE", "Mesh"]

# Static objects' instance ids start here, so they never meet an actor id.
STATIC_INSTANCE_BASE = 1 << 24


@dataclass(slots=True)
class Mesh:
    """V vertices and T triangles; the per-triangle columns have T rows."""

    vertices: np.ndarray  # (V, 3) float64, metres, CARLA's frame
    triangles: np.ndarray  # (T, 3) int32, indices into vertices
    tag: np.ndarray  # (T,) uint8, CityObjectLabel
    instance: np.ndarray  # (T,) uint32
    colour: np.ndarray  # (T, 3) uint8, sRGB albedo

    @classmethod
    def empty(cls) -> Mesh:
        return cls(
            np.zeros((0, 3)),
            np.zeros((0, 3), np.int32),
            np.zeros(0, np.uint8),
            np.zeros(0, np.uint32),
            np.zeros((0, 3), np.uint8),
        )

    @property
    def triangle_count(self) -> int:
        return len(self.triangles)

    def validate(self, source: str) -> None:
        """Raises WorldError naming `source` unless the columns agree and every number is
        finite: a mesh from a user's file passes here before the renderer sees it."""
        t = len(self.triangles)
        shapes = {
            "vertices": (self.vertices, (len(self.vertices), 3), np.float64),
            "triangles": (self.triangles, (t, 3), np.int32),
            "tag": (self.tag, (t,), np.uint8),
            "instance": (self.instance, (t,), np.uint32),
            "colour": (self.colour, (t, 3), np.uint8),
        }
        for name, (array, shape, dtype) in shapes.items():
            if array.shape != shape or array.dtype != dtype:
                raise WorldError(
                    f"{source}: mesh column {name} is {array.dtype}{array.shape}, "
                    f"expected {np.dtype(dtype)}{shape}"
                )
        if not np.isfinite(self.vertices).all():
            raise WorldError(f"{source}: mesh vertices hold NaN or infinite coordinates")
        if t and (self.triangles.min() < 0 or self.triangles.max() >= len(self.vertices)):
            raise WorldError(
                f"{source}: a triangle names a vertex outside 0..{len(self.vertices) - 1}"
            )

    @staticmethod
    def concatenate(meshes: list[Mesh]) -> Mesh:
        """One mesh of all of `meshes`, in order (triangle k of the second follows the first's)."""
        if not meshes:
            return Mesh.empty()
        offsets = np.cumsum([0] + [len(m.vertices) for m in meshes[:-1]])
        return Mesh(
            np.concatenate([m.vertices for m in meshes]),
            np.concatenate(
                [m.triangles + np.int32(o) for m, o in zip(meshes, offsets, strict=True)]
            ).astype(np.int32, copy=False),
            np.concatenate([m.tag for m in meshes]),
            np.concatenate([m.instance for m in meshes]),
            np.concatenate([m.colour for m in meshes]),
        )
