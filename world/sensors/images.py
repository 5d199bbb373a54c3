"""The cameras' data classes: carla.Image, carla.OpticalFlowImage and what they hand out.

An Image holds 32-bit BGRA pixels row by row from the top left, as CARLA's do:
`np.frombuffer(image.raw_data, dtype=np.uint8).reshape(image.height, image.width, 4)` is the
picture, B, G, R, A. `convert(converter)` rewrites the pixels in place; `save_to_disk(path,
converter)` writes a picture (world.sensors.picture_file). An OpticalFlowImage holds two
float32 per pixel (x, y), and `get_color_coded_flow()` paints them as LibCarla does: hue from
the flow's direction, brightness from the log of its length, into a BGRA picture with alpha 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from world import elementary as el
from world.actors.blueprints import Color
from world.sensors.color_converter import (
    ColorConverter,
    convert_bgra,
    grey_depth,
    grey_log_depth,
    palette_bgra,
)
from world.sensors.data import SensorData
from world.sensors.picture_file import save_picture

__all__ = ["FakeImage", "Image", "OpticalFlowImage", "OpticalFlowPixel"]


@dataclass(slots=True)
class _Raster(SensorData):
    """What every camera's data has: its size, its horizontal fov and its bytes."""

    width: int = 0
    height: int = 0
    fov: float = 0.0
    buffer: bytearray = field(default_factory=bytearray, repr=False)

    @property
    def raw_data(self) -> memoryview:
        """The pixels' bytes (read-only, as CARLA's buffer is)."""
        return memoryview(self.buffer).toreadonly()

    def _index(self, pos: int) -> int:
        size = self.width * self.height
        if not 0 <= int(pos) < size:
            raise IndexError(f"pixel index {pos} out of range (an image of {size} pixels)")
        return int(pos)

    def __len__(self) -> int:
        return self.width * self.height

    def __str__(self) -> str:
        return f"{self._head()}, size={self.width}x{self.height})"


@dataclass(slots=True)
class Image(_Raster):
    """carla.Image: a camera's BGRA picture."""

    def _bgra(self) -> np.ndarray:
        return np.frombuffer(self.buffer, np.uint8).reshape(self.height, self.width, 4)

    def convert(self, color_converter: ColorConverter) -> None:
        """Rewrites the pixels with `color_converter` (CARLA converts in place)."""
        converted = convert_bgra(self._bgra(), color_converter)
        self.buffer[:] = converted.tobytes()

    def save_to_disk(self, path: str, color_converter: ColorConverter = ColorConverter.Raw) -> str:
        """Writes the picture through `color_converter` (PNG unless the extension says
        otherwise); returns the path written."""
        bgra = self._bgra()
        converter = ColorConverter(color_converter)
        if converter == ColorConverter.Depth:
            return save_picture(path, grey_depth(bgra))
        if converter == ColorConverter.LogarithmicDepth:
            return save_picture(path, grey_log_depth(bgra))
        if converter == ColorConverter.CityScapesPalette:
            bgra = palette_bgra(bgra)
        return save_picture(path, bgra[..., [2, 1, 0, 3]])

    def __getitem__(self, pos: int) -> Color:
        i = 4 * self._index(pos)
        b, g, r, a = self.buffer[i : i + 4]
        return Color(r, g, b, a)

    def __setitem__(self, pos: int, color: Color) -> None:
        i = 4 * self._index(pos)
        self.buffer[i : i + 4] = bytes((color.b, color.g, color.r, color.a))

    def __iter__(self) -> Iterator[Color]:
        return (self[i] for i in range(len(self)))


@dataclass(slots=True)
class OpticalFlowPixel:
    """One pixel of an OpticalFlowImage: the flow's x and y (float32)."""

    x: float = 0.0
    y: float = 0.0

    def __str__(self) -> str:
        return f"OpticalFlowPixel(x={self.x:f}, y={self.y:f})"


@dataclass(slots=True)
class FakeImage:
    """What get_color_coded_flow returns (CARLA's FakeImage): BGRA bytes with width, height
    and fov; indexing and len() go by byte, as CARLA's vector of bytes does."""

    width: int
    height: int
    fov: float
    buffer: bytearray = field(repr=False)

    @property
    def raw_data(self) -> memoryview:
        return memoryview(self.buffer).toreadonly()

    def __len__(self) -> int:
        return len(self.buffer)

    def __getitem__(self, pos: int) -> int:
        return self.buffer[pos]


_DEGREES_PER_RADIAN = np.float32(360.0) / (np.float32(2.0) * np.float32(3.1415))  # LibCarla's pi
_FLOW_SHIFT = np.float32(0.999)
_FLOW_SCALE = np.float32(10.593144546213848)  # 1 / ln(0.1 + 0.999): a norm of 0.1 is full


@dataclass(slots=True)
class OpticalFlowImage(_Raster):
    """carla.OpticalFlowImage: two float32 per pixel, the image-plane motion (x, y)."""

    def _flow(self) -> np.ndarray:
        return np.frombuffer(self.buffer, np.float32).reshape(self.height, self.width, 2)

    def __getitem__(self, pos: int) -> OpticalFlowPixel:
        i = self._index(pos)
        x, y = np.frombuffer(self.buffer, np.float32, 2, 8 * i)
        return OpticalFlowPixel(float(x), float(y))

    def __setitem__(self, pos: int, pixel: OpticalFlowPixel) -> None:
        i = self._index(pos)
        self.buffer[8 * i : 8 * i + 8] = np.array([pixel.x, pixel.y], np.float32).tobytes()

    def __iter__(self) -> Iterator[OpticalFlowPixel]:
        return (self[i] for i in range(len(self)))

    def get_color_coded_flow(self) -> FakeImage:
        """The flow painted in HSV (LibCarla's ColorCodedFlow): hue 180° + the flow's angle,
        value ln(|flow| + 0.999) / ln(1.099) clamped to [0, 1], saturation 1; BGRA, alpha 0."""
        flow = self._flow()
        vx, vy = flow[..., 0], flow[..., 1]
        radians = el.atan2_v(vy.astype(np.float64), vx.astype(np.float64)).astype(np.float32)
        angle = np.float32(180.0) + radians * _DEGREES_PER_RADIAN
        angle = np.where(angle < 0, angle + np.float32(360.0), angle)
        angle = np.fmod(angle, np.float32(360.0))
        norm = np.sqrt(vx * vx + vy * vy)
        logs = el.log_v((norm + _FLOW_SHIFT).astype(np.float64)).astype(np.float32)
        value = np.clip(_FLOW_SCALE * logs, np.float32(0.0), np.float32(1.0))
        sixth = angle * np.float32(1.0 / 60.0)
        x = value * (np.float32(1.0) - np.abs(np.fmod(sixth, np.float32(2.0)) - np.float32(1.0)))
        zero = np.zeros_like(value)
        sector = sixth.astype(np.int64)
        r = np.select([sector == s for s in range(6)], [value, x, zero, zero, x, value], 1.0)
        g = np.select([sector == s for s in range(6)], [x, value, value, x, zero, zero], 1.0)
        b = np.select([sector == s for s in range(6)], [zero, zero, x, value, value, x], 1.0)
        out = np.zeros((self.height, self.width, 4), np.uint8)
        for channel, part in ((0, b), (1, g), (2, r)):
            out[..., channel] = (part.astype(np.float32) * np.float32(255.0)).astype(np.uint8)
        return FakeImage(self.width, self.height, self.fov, bytearray(out.tobytes()))
