"""A pinhole camera's visibility buffers: per pixel, the nearest triangle and its depth.

CARLA's cameras are pinholes: f = W / (2 tan(fov / 2)) with fov the horizontal field of
view, x forward, y right, z up in the camera's frame, and a point at camera coordinates
(x, y, z) lands at u = f y / x + W / 2, v = -f z / x + H / 2 (pixel (i, j) is column i from
the left, row j from the top, and sees the ray through its centre (i + 0.5, j + 0.5)).
Depth is planar, x along the forward axis, as CARLA's depth camera encodes it; nothing
farther than `far` is seen (CARLA's depth saturates at 1000 m), nothing nearer than `near`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.errors import WorldError
from world.render import raster
from world.render.index import MeshIndex
from world.render.view import SceneView

__all__ = [
    "FAR",
    "MAX_SIDE",
    "NEAR",
    "PinholeCamera",
    "RasterWork",
    "StripDrawing",
    "Visibility",
    "index_arguments",
    "view_arguments",
    "visibility",
]

NEAR = 0.01  # m: the near plane (Unreal's is 10 cm from the eye; a sensor sits on a body)
FAR = 1000.0  # m: CARLA's depth camera saturates here
MAX_SIDE = 1 << 16  # pixels: the widest or tallest image the fixed point has room for


@dataclass(frozen=True)
class PinholeCamera:
    """A pinhole camera's pose (origin and unit axes in CARLA's frame), image and range."""

    origin: tuple[float, float, float]
    forward: tuple[float, float, float]
    right: tuple[float, float, float]
    up: tuple[float, float, float]
    width: int
    height: int
    fov: float  # degrees, horizontal
    near: float = NEAR
    far: float = FAR

    def __post_init__(self) -> None:
        if not (
            isinstance(self.width, int | np.integer) and isinstance(self.height, int | np.integer)
        ):
            raise WorldError(f"camera image size must be integers, got {self.width}x{self.height}")
        if not (0 < self.width <= MAX_SIDE and 0 < self.height <= MAX_SIDE):
            raise WorldError(
                f"camera image size {self.width}x{self.height} is outside 1..{MAX_SIDE} pixels"
            )
        if not 0.0 < self.fov < 180.0:
            raise WorldError(f"camera fov {self.fov} is outside (0, 180) degrees")
        if not 0.0 < self.near < self.far or not np.isfinite(self.far):
            raise WorldError(f"camera range near {self.near}, far {self.far}: need 0 < near < far")
        pose = np.array([self.origin, self.forward, self.right, self.up], dtype=np.float64)
        if pose.shape != (4, 3) or not np.isfinite(pose).all():
            raise WorldError("camera origin and axes must be finite 3-vectors")

    @property
    def focal(self) -> float:
        """f = W / (2 tan(fov / 2)), in pixels."""
        return self.width / (2.0 * el.tan(self.fov * (np.pi / 360.0)))

    def parameters(self) -> np.ndarray:
        """The float64 array the rasterizer reads (raster's ORIGIN ... FAR)."""
        values = np.zeros(raster.PARAMETERS)
        values[raster.ORIGIN : raster.ORIGIN + 3] = self.origin
        values[raster.FORWARD : raster.FORWARD + 3] = self.forward
        values[raster.RIGHT : raster.RIGHT + 3] = self.right
        values[raster.UP : raster.UP + 3] = self.up
        values[raster.FOCAL] = self.focal
        values[raster.NEAR] = self.near
        values[raster.FAR] = self.far
        values[raster.WIDTH] = self.width
        values[raster.HEIGHT] = self.height
        return values


class Visibility:
    """What each pixel sees: `number` (H, W) int32, the triangle's number in the view (-1:
    nothing), and `inv_depth` (H, W) float64, 1/x of its planar depth x (0: nothing);
    `depth` (H, W) float32, the planar depth in metres (`far` where nothing), is worked out
    on its first ask (an RGB or segmentation camera never reads it). Made over a RasterWork,
    the arrays are its buffers: the next frame drawn with that work overwrites them."""

    __slots__ = ("_depth", "_work", "far", "inv_depth", "number")

    def __init__(self, work: RasterWork, far: float) -> None:
        self.number = work.hit
        self.inv_depth = work.inv_depth
        self.far = far
        self._work = work
        self._depth: np.ndarray | None = None

    @property
    def depth(self) -> np.ndarray:
        if self._depth is None:
            self._depth = self._work.depth_buffer()
            raster.planar_depth(self.inv_depth, self.number, self.far, self._depth)
        return self._depth


def _aligned(shape: tuple[int, int], dtype: type) -> np.ndarray:
    """An uninitialised C-ordered array starting a 64-byte cache line (a tile's row of 1/x,
    8 doubles, is one line when the width is a multiple of 8)."""
    size = shape[0] * shape[1] * np.dtype(dtype).itemsize
    raw = np.empty(size + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    return raw[skip : skip + size].view(dtype).reshape(shape)


class RasterWork:
    """The rasterizer's buffers for one image size (1/x and the triangle per pixel, the
    tiles' farthest depths, the planar depth when asked) and its plan of a view (the listed
    chunks, their strips, the set-up primitives), kept by a camera from frame to frame: a
    fresh 1920x1080 frame's buffers cost their pages' first touch, several ms."""

    def __init__(self, width: int, height: int) -> None:
        self.inv_depth = _aligned((height, width), np.float64)
        self.hit = _aligned((height, width), np.int32)
        self.tiles = np.empty((-(-height // raster.TILE), -(-width // raster.TILE)))
        self.stale = np.empty(self.tiles.shape, np.bool_)
        self.drawn = np.empty(self.tiles.shape, np.bool_)
        self.polygon = np.zeros((2, raster.POLYGON, 3))
        self.scratch = np.zeros((0, 3))
        self.snapped = np.zeros((0, 3), np.int64)
        self.strips = -(-height // raster.STRIP)
        self.chunks = np.zeros((0, raster.CHUNK_FIELDS), np.int64)
        self.reach = np.zeros(0)
        self.bin_start = np.zeros(self.strips + 1, np.int64)
        self.bins = np.zeros(0, np.int64)
        self.ints = np.zeros((0, raster.PRIMITIVE_INTS), np.int64)
        self.floats = np.zeros((0, raster.PRIMITIVE_FLOATS))
        self.counters = np.zeros(3, np.int64)
        self._depth: np.ndarray | None = None
        self._strip: tuple | None = None

    def fits(self, camera: PinholeCamera) -> bool:
        return self.inv_depth.shape == (camera.height, camera.width)

    def depth_buffer(self) -> np.ndarray:
        """The (H, W) float32 buffer planar depths are worked out into (made on first ask)."""
        if self._depth is None:
            self._depth = np.empty(self.hit.shape, np.float32)
        return self._depth

    def buffers(self) -> tuple:
        """The whole image's buffers as draw_view reads them."""
        return (self.inv_depth, self.hit, self.tiles, self.stale, self.drawn)

    def strip_buffers(self) -> tuple:
        """Buffers of raster.STRIP rows as draw_strip reads them, for a kernel that uses
        each strip as it is drawn (made on first ask)."""
        if self._strip is None:
            rows, width = min(raster.STRIP, self.hit.shape[0]), self.hit.shape[1]
            tiles = (-(-rows // raster.TILE), self.tiles.shape[1])
            self._strip = (
                _aligned((rows, width), np.float64),
                _aligned((rows, width), np.int32),
                np.empty(tiles),
                np.empty(tiles, np.bool_),
                np.empty(tiles, np.bool_),
            )
        return self._strip

    def plan(self, view: SceneView, grow: bool = False) -> tuple:
        """The plan's arrays for `view` (raster.plan_view's), grown to its chunks, and its
        primitive table doubled when `grow` (a draw found it full)."""
        chunks = view.static.chunk_count + view.dynamic.chunk_count
        if len(self.chunks) < chunks:
            self.chunks = np.zeros((chunks, raster.CHUNK_FIELDS), np.int64)
            self.reach = np.zeros(chunks)
            self.bins = np.zeros(chunks * self.strips, np.int64)
        # a triangle gives at most one primitive unless it is clipped (then a fan): a table
        # of one row per triangle is enough but where many cross the near plane in view
        rows = max(len(self.ints), view.triangle_count)
        if grow:
            rows = max(2 * len(self.ints), 16)
        if len(self.ints) < rows:
            self.ints = np.zeros((rows, raster.PRIMITIVE_INTS), np.int64)
            self.floats = np.zeros((rows, raster.PRIMITIVE_FLOATS))
        return (
            self.chunks,
            self.reach,
            self.bin_start,
            self.bins,
            self.ints,
            self.floats,
            self.counters,
        )

    def vertex_rows(self, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Work rows for a chunk's vertices (grown when an index needs more), and the
        clipping's polygon."""
        if len(self.scratch) < count:
            self.scratch = np.zeros((count, 3))
            self.snapped = np.zeros((count, 3), np.int64)
        return self.scratch, self.snapped, self.polygon


def index_arguments(index: MeshIndex, offset: int) -> tuple:
    """A MeshIndex as the rasterizer's kernels read it, its triangles numbered from
    `offset`."""
    return (*index.chunk_arrays(), int(offset))


def view_arguments(view: SceneView) -> tuple[tuple, tuple]:
    """The view's two indices in the order they are drawn: the actors' first (they stand
    nearest: the camera's own car, the cars around), so the static scene's chunks and
    tiles behind them are left out."""
    (static, static_offset), (dynamic, dynamic_offset) = view.passes()
    return index_arguments(dynamic, dynamic_offset), index_arguments(static, static_offset)


class StripDrawing:
    """A camera's view to be drawn a strip of rows at a time by a kernel that uses each
    strip as it is drawn (world.sensors' RGB shading): `arguments` are what it hands
    raster.plan_view and raster.draw_strip."""

    __slots__ = ("camera", "height", "view", "width", "work")

    def __init__(self, view: SceneView, camera: PinholeCamera, work: RasterWork | None) -> None:
        if work is None or not work.fits(camera):
            work = RasterWork(camera.width, camera.height)
        self.view, self.camera, self.work = view, camera, work
        self.width, self.height = camera.width, camera.height

    def arguments(self, grow: bool = False) -> tuple:
        """(first, second, camera parameters, plan, strip buffers, work rows); `grow` doubles
        the plan's primitive table (the last draw found it full)."""
        view, work = self.view, self.work
        first, second = view_arguments(view)
        rows = work.vertex_rows(max(view.static.most_vertices, view.dynamic.most_vertices))
        plan = work.plan(view, grow)
        return (first, second, self.camera.parameters(), plan, work.strip_buffers(), rows)


def visibility(
    view: SceneView, camera: PinholeCamera, work: RasterWork | None = None
) -> Visibility:
    """The nearest triangle and its depth at every pixel centre of `camera`; `work` (of the
    camera's image size) holds the buffers when given (see Visibility)."""
    if work is None or not work.fits(camera):
        work = RasterWork(camera.width, camera.height)
    parameters = camera.parameters()
    first, second = view_arguments(view)
    rows = work.vertex_rows(max(view.static.most_vertices, view.dynamic.most_vertices))
    full = False
    while raster.draw_view(first, second, parameters, work.plan(view, full), work.buffers(), rows):
        full = True
    return Visibility(work, camera.far)
