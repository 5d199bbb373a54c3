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
static one on disk). It builds by a sort of the cells in numpy and one compiled pass over
the triangles (a frame's actors, some thousands of triangles, in a fraction of a ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from world.kernels.compiled import njit
from world.render.kernel_math import floor_int
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

    def chunk_arrays(self) -> tuple:
        """The arrays the renderer's kernels walk, in their order: vertices, triangles,
        number, triangle_start, vertex_start, lower, upper."""
        return (
            self.vertices,
            self.triangles,
            self.number,
            self.triangle_start,
            self.vertex_start,
            self.lower,
            self.upper,
        )

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
        count = len(mesh.triangles)
        vertices = np.ascontiguousarray(mesh.vertices)
        triangles = np.ascontiguousarray(mesh.triangles)
        order, starts = _chunk_order(vertices, triangles, cell, max_triangles)
        chunk_count = len(starts) - 1
        rows = np.empty((3 * count, 3))
        local = np.empty((count, 3), np.int32)
        vertex_start = np.empty(chunk_count + 1, np.int64)
        lower = np.empty((chunk_count, 3))
        upper = np.empty((chunk_count, 3))
        normal = np.empty((count, 3), np.float32)
        written = gather_chunks(
            vertices,
            triangles,
            order,
            starts,
            MARGIN,
            rows,
            local,
            vertex_start,
            lower,
            upper,
            np.full(len(vertices), -1, np.int64),
            normal,
        )
        most = int(np.diff(vertex_start).max()) if chunk_count else 0
        return cls(
            vertices=rows[:written].copy(),
            triangles=local,
            number=order.astype(np.int32),
            triangle_start=starts,
            vertex_start=vertex_start,
            lower=lower,
            upper=upper,
            most_vertices=most,
            tag=mesh.tag.copy(),
            instance=mesh.instance.copy(),
            colour=mesh.colour.copy(),
            normal=normal,
        )


def _chunk_order(
    vertices: np.ndarray, triangles: np.ndarray, cell: float, max_triangles: int
) -> tuple[np.ndarray, np.ndarray]:
    """The triangles' chunk order (by ground cell of the centroid, then by their number) and
    where each chunk starts in it, with the count at the end."""
    count = len(triangles)
    order = np.empty(count, np.int64)
    starts = np.empty(count + 1, np.int64)
    used = chunk_order(vertices, triangles, float(cell), int(max_triangles), order, starts)
    return order, starts[:used].copy()


@njit(cache=True)
def chunk_order(
    vertices: np.ndarray,
    triangles: np.ndarray,
    cell: float,
    max_triangles: int,
    order: np.ndarray,
    starts: np.ndarray,
) -> int:
    """_chunk_order's work: the triangles sorted (stably) by the ground cell of their
    centroid ((a + b + c) / 3 in x and y, floored over `cell`) into `order`, and the start of
    each run of at most max_triangles of one cell into `starts`, the count last. Returns
    the entries of `starts` written."""
    count = len(triangles)
    if count == 0:
        starts[0] = 0
        return 1
    kx = np.empty(count, np.int64)
    ky = np.empty(count, np.int64)
    for t in range(count):
        a, b, c = triangles[t, 0], triangles[t, 1], triangles[t, 2]
        x = (vertices[a, 0] + vertices[b, 0] + vertices[c, 0]) / 3.0
        y = (vertices[a, 1] + vertices[b, 1] + vertices[c, 1]) / 3.0
        kx[t] = floor_int(x / cell)
        ky[t] = floor_int(y / cell)
    kx -= kx.min()
    ky -= ky.min()
    key = kx * (ky.max() + 1) + ky
    order[:] = np.argsort(key, kind="mergesort")
    used = 0
    run = 0
    for slot in range(count):
        if slot == 0 or key[order[slot]] != key[order[slot - 1]]:
            run = 0
        if run % max_triangles == 0:
            starts[used] = slot
            used += 1
        run += 1
    starts[used] = count
    return used + 1


@njit(cache=True)
def gather_chunks(
    vertices: np.ndarray,
    triangles: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    margin: float,
    rows: np.ndarray,
    local: np.ndarray,
    vertex_start: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    mark: np.ndarray,
    normal: np.ndarray,
) -> int:
    """Copies each chunk's vertices (the triangles order[starts[c]:starts[c + 1]] name, in
    the order first named) into `rows`, their row numbers into `local` (chunk order), each
    chunk's box grown by `margin`, and each triangle's unit normal by the Mesh's order
    ((b - a) x (c - a), normalised; zero without area). `mark` (V,) starts at -1. Returns
    the rows written."""
    written = 0
    for c in range(len(starts) - 1):
        vertex_start[c] = written
        for axis in range(3):
            lower[c, axis] = np.inf
            upper[c, axis] = -np.inf
        for slot in range(starts[c], starts[c + 1]):
            t = order[slot]
            for k in range(3):
                v = triangles[t, k]
                if mark[v] < vertex_start[c]:  # not yet copied into this chunk
                    mark[v] = written
                    for axis in range(3):
                        value = vertices[v, axis]
                        rows[written, axis] = value
                        lower[c, axis] = min(lower[c, axis], value)
                        upper[c, axis] = max(upper[c, axis], value)
                    written += 1
                local[slot, k] = mark[v]
        for axis in range(3):
            lower[c, axis] -= margin
            upper[c, axis] += margin
    vertex_start[len(starts) - 1] = written
    for t in range(len(triangles)):
        a, b, c = triangles[t, 0], triangles[t, 1], triangles[t, 2]
        e1x = vertices[b, 0] - vertices[a, 0]
        e1y = vertices[b, 1] - vertices[a, 1]
        e1z = vertices[b, 2] - vertices[a, 2]
        e2x = vertices[c, 0] - vertices[a, 0]
        e2y = vertices[c, 1] - vertices[a, 1]
        e2z = vertices[c, 2] - vertices[a, 2]
        nx = e1y * e2z - e1z * e2y
        ny = e1z * e2x - e1x * e2z
        nz = e1x * e2y - e1y * e2x
        length = math.sqrt(nx * nx + ny * ny + nz * nz)
        if length > 0.0:
            normal[t, 0], normal[t, 1], normal[t, 2] = nx / length, ny / length, nz / length
        else:
            normal[t, 0], normal[t, 1], normal[t, 2] = 0.0, 0.0, 0.0
    return written
