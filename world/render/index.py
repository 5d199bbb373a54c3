"""MeshIndex: a Mesh's triangles grouped into spatial chunks, the renderer's form of a mesh.

A camera or a ray cast first tests each chunk's box (frustum, range) and only then looks at
its triangles, so a chunk holds triangles that lie close together: the triangles are sorted
by the ground cell (CELL metres square, in x and y) of their centroid, in runs of at most
MAX_TRIANGLES. Each chunk carries its own copy of the vertices its triangles use, so the
renderer moves a chunk's vertices into a camera's frame once and then reads its triangles
by local indices (a vertex two chunks share is copied with the same bits into both, so
both transform it to the same numbers).

A triangle keeps the number it has in the Mesh (the renderer reports those), and the
per-triangle columns a sensor looks up (tag, instance, colour, unit normal) stay in the
Mesh's order. The index holds numpy arrays only: it pickles (the map store keeps the
static one on disk) and builds in numpy (sorts and reductions, no transcendental).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.scene.mesh import Mesh

__all__ = ["CELL", "MAX_TRIANGLES", "MeshIndex"]

CELL = 32.0  # m: the side of the ground cells that group triangles into chunks
MAX_TRIANGLES = 256  # a chunk's most triangles (a fuller cell is cut into several chunks)
MARGIN = 1e-3  # m: each chunk's box is grown by this, so rounding never culls a triangle


@dataclass(slots=True)
class MeshIndex:
    """T triangles in C chunks. Chunk c holds the triangles triangle_start[c] up to
    triangle_start[c + 1] (in chunk order) and their vertices vertex_start[c] up to
    vertex_start[c + 1]; `triangles` names vertices by their row in `vertices`."""

    vertices: np.ndarray  # (V', 3) float64, each chunk's vertices, chunk after chunk
    triangles: np.ndarray  # (T, 3) int32, rows of `vertices`, chunk order
    number: np.ndarray  # (T,) int32, each triangle's number in the Mesh, chunk order
    triangle_start: np.ndarray  # (C + 1,) int64
    vertex_start: np.ndarray  # (C + 1,) int64
    lower: np.ndarray  # (C, 3) float64, each chunk's box (grown by MARGIN)
    upper: np.ndarray  # (C, 3) float64
    most_vertices: int  # the largest chunk's vertex count (the renderer's scratch size)
    tag: np.ndarray  # (T,) uint8, CityObjectLabel, in the Mesh's order
    instance: np.ndarray  # (T,) uint32, in the Mesh's order
    colour: np.ndarray  # (T, 3) uint8, sRGB albedo, in the Mesh's order
    normal: np.ndarray  # (T, 3) float32, unit normal of the winding (zero if degenerate)

    @property
    def triangle_count(self) -> int:
        return len(self.triangles)

    @property
    def chunk_count(self) -> int:
        return len(self.lower)

    @property
    def nbytes(self) -> int:
        """The bytes its arrays hold."""
        return sum(
            getattr(self, name).nbytes
            for name in self.__slots__  # type: ignore[attr-defined]
            if isinstance(getattr(self, name), np.ndarray)
        )

    @classmethod
    def build(
        cls,
        mesh: Mesh,
        source: str = "mesh",
        cell: float = CELL,
        max_triangles: int = MAX_TRIANGLES,
    ) -> MeshIndex:
        """The index of `mesh` (checked first: a WorldError names `source` if it is malformed)."""
        mesh.validate(source)
        vertices, triangles = mesh.vertices, mesh.triangles.astype(np.int64)
        count = len(triangles)
        corners = vertices[triangles]  # (T, 3, 3)
        order, starts = _chunk_order(corners, cell, max_triangles)
        chunk_count = len(starts)
        starts_all = np.append(starts, count).astype(np.int64)

        sorted_corners = corners[order]
        if chunk_count:
            lower = np.minimum.reduceat(sorted_corners.min(axis=1), starts, axis=0) - MARGIN
            upper = np.maximum.reduceat(sorted_corners.max(axis=1), starts, axis=0) + MARGIN
        else:
            lower = upper = np.zeros((0, 3))

        # each chunk's own vertices: the (chunk, vertex) pairs its triangles name, in order
        chunk_of = np.repeat(np.arange(chunk_count, dtype=np.int64), np.diff(starts_all))
        width = np.int64(max(len(vertices), 1))
        pairs = chunk_of[:, None] * width + triangles[order]
        unique, local = np.unique(pairs.ravel(), return_inverse=True)
        vertex_start = np.searchsorted(
            unique // width, np.arange(chunk_count + 1, dtype=np.int64)
        ).astype(np.int64)
        most = int(np.diff(vertex_start).max()) if chunk_count else 0
        return cls(
            vertices=np.ascontiguousarray(vertices[unique % width]),
            triangles=local.reshape(count, 3).astype(np.int32),
            number=order.astype(np.int32),
            triangle_start=starts_all,
            vertex_start=vertex_start,
            lower=np.ascontiguousarray(lower),
            upper=np.ascontiguousarray(upper),
            most_vertices=most,
            tag=mesh.tag.copy(),
            instance=mesh.instance.copy(),
            colour=mesh.colour.copy(),
            normal=_unit_normals(corners),
        )


def _chunk_order(
    corners: np.ndarray, cell: float, max_triangles: int
) -> tuple[np.ndarray, np.ndarray]:
    """The triangles' chunk order (by ground cell of the centroid, then by their number) and
    where each chunk starts in it."""
    count = len(corners)
    if count == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    centre = (corners[:, 0] + corners[:, 1] + corners[:, 2]) / 3.0
    kx = np.floor(centre[:, 0] / cell).astype(np.int64)
    ky = np.floor(centre[:, 1] / cell).astype(np.int64)
    kx -= kx.min()
    ky -= ky.min()
    key = kx * (ky.max() + 1) + ky
    order = np.argsort(key, kind="stable")
    key = key[order]
    cell_start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    run = np.repeat(cell_start, np.diff(np.append(cell_start, count)))
    position = np.arange(count) - run  # each triangle's place in its cell's run
    starts = np.flatnonzero(position % max_triangles == 0)
    return order.astype(np.int64), starts.astype(np.int64)


def _unit_normals(corners: np.ndarray) -> np.ndarray:
    """(b - a) x (c - a) / |...| for each triangle (a, b, c), as float32; zero where the
    triangle has no area. Written out (no numpy sum) so the order of the adds is fixed."""
    e1 = corners[:, 1] - corners[:, 0]
    e2 = corners[:, 2] - corners[:, 0]
    nx = e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1]
    ny = e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2]
    nz = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    length = np.sqrt(nx * nx + ny * ny + nz * nz)
    scale = np.divide(1.0, length, out=np.zeros_like(length), where=length > 0)
    return np.stack([nx * scale, ny * scale, nz * scale], axis=1).astype(np.float32)
