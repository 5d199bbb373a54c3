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
from world.render.view import SceneView

__all__ = ["FAR", "MAX_SIDE", "NEAR", "PinholeCamera", "RasterWork", "Visibility", "visibility"]

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
    tiles' farthest depths, the planar depth when asked), kept by a camera from frame to
    frame: a fresh 1920x1080 frame's buffers cost their pages' first touch, several ms."""

    def __init__(self, width: int, height: int) -> None:
        self.inv_depth = _aligned((height, width), np.float64)
        self.hit = _aligned((height, width), np.int32)
        self.tiles = np.empty((-(-height // raster.TILE), -(-width // raster.TILE)))
        self.stale = np.empty(self.tiles.shape, np.bool_)
        self.drawn = np.empty(self.tiles.shape, np.bool_)
        self.polygon = np.zeros((2, raster.POLYGON, 3))
        self.scratch = np.zeros((0, 3))
        self.snapped = np.zeros((0, 3), np.int64)
        self._depth: np.ndarray | None = None

    def fits(self, camera: PinholeCamera) -> bool:
        return self.inv_depth.shape == (camera.height, camera.width)

    def depth_buffer(self) -> np.ndarray:
        """The (H, W) float32 buffer planar depths are worked out into (made on first ask)."""
        if self._depth is None:
            self._depth = np.empty(self.hit.shape, np.float32)
        return self._depth

    def vertex_rows(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Work rows for a chunk's vertices (grown when an index needs more)."""
        if len(self.scratch) < count:
            self.scratch = np.zeros((count, 3))
            self.snapped = np.zeros((count, 3), np.int64)
        return self.scratch, self.snapped


def visibility(
    view: SceneView, camera: PinholeCamera, work: RasterWork | None = None
) -> Visibility:
    """The nearest triangle and its depth at every pixel centre of `camera`; `work` (of the
    camera's image size) holds the buffers when given (see Visibility)."""
    if work is None or not work.fits(camera):
        work = RasterWork(camera.width, camera.height)
    parameters = camera.parameters()
    work.tiles.fill(0.0)  # nothing drawn: each tile's least 0, its pixels cleared when reached
    work.stale.fill(False)
    work.drawn.fill(False)
    # the actors' index first: they stand nearest (the camera's own car, the cars around), so
    # the static scene's chunks and tiles behind them are left out
    for index, offset in reversed(view.passes()):
        if not index.triangle_count:
            continue
        scratch, snapped = work.vertex_rows(index.most_vertices)
        raster.draw_index(
            index.vertices,
            index.triangles,
            index.number,
            index.triangle_start,
            index.vertex_start,
            index.lower,
            index.upper,
            offset,
            parameters,
            (work.inv_depth, work.hit, work.tiles, work.stale, work.drawn),
            (scratch, snapped, work.polygon),
        )
    raster.clear_undrawn(work.inv_depth, work.hit, work.drawn)
    return Visibility(work, camera.far)
