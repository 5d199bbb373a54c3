"""carla.ColorConverter: how a camera's BGRA image is turned into a picture, as LibCarla does it.

* Raw: the bytes as they are.
* Depth: the depth camera's 24-bit code (R + G·256 + B·256², CARLA's encoding) over 256³ − 1,
  in float32, made a grey level by GIL's float-to-byte rule (value·255 + 0.5, truncated).
* LogarithmicDepth: that normalised depth through 1 + ln(d) / 5.70378, clamped to
  [0.005, 1], then the same grey level (so 1000 m is white and 1 m is about 0.39).
* CityScapesPalette: the red channel (the semantic tag) looked up in CARLA's palette of the
  0.9.14+ tags (tags beyond the palette wrap, as LibCarla's modulo does).

A conversion in place writes B = G = R = grey (or the palette's colour) and alpha 255; a
picture saved with a converter is grey (one channel) for the two depths and RGBA otherwise.
The logarithm is world/elementary.py's, so the bytes are the same on every CPU.
"""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.enums import CarlaEnum

__all__ = [
    "CITYSCAPES_PALETTE",
    "ColorConverter",
    "convert_bgra",
    "depth_metres",
    "grey_depth",
    "grey_log_depth",
    "palette_bgra",
]

# CARLA's CityScapes palette (LibCarla image/CityScapesPalette.h), RGB, indexed by tag 0..28.
CITYSCAPES_PALETTE = np.array(
    [
        (0, 0, 0), (128, 64, 128), (244, 35, 232), (70, 70, 70), (102, 102, 156),
        (190, 153, 153), (153, 153, 153), (250, 170, 30), (220, 220, 0), (107, 142, 35),
        (152, 251, 152), (70, 130, 180), (220, 20, 60), (255, 0, 0), (0, 0, 142),
        (0, 0, 70), (0, 60, 100), (0, 80, 100), (0, 0, 230), (119, 11, 32),
        (110, 190, 160), (170, 120, 50), (55, 90, 80), (45, 60, 150), (157, 234, 50),
        (81, 0, 81), (150, 100, 100), (230, 150, 140), (180, 165, 180),
    ],
    dtype=np.uint8,
)  # fmt: skip

DEPTH_CODES = 256 * 256 * 256 - 1  # the 24-bit code of the far plane
FAR_PLANE = 1000.0  # m: what the largest code means
_LOG_SCALE = np.float32(5.70378)


class ColorConverter(CarlaEnum):
    """CARLA's colour converters (PythonAPI EColorConverter)."""

    Raw = 0
    Depth = 1
    LogarithmicDepth = 2
    CityScapesPalette = 3


def _codes(bgra: np.ndarray) -> np.ndarray:
    """The 24-bit depth codes of a (H, W, 4) BGRA image: R + G·256 + B·256²."""
    b, g, r = (bgra[..., i].astype(np.uint32) for i in range(3))
    return r + (g << np.uint32(8)) + (b << np.uint32(16))


def depth_metres(bgra: np.ndarray) -> np.ndarray:
    """CARLA's decoding of a depth image: 1000 · (R + G·256 + B·256²) / (256³ − 1), metres."""
    return _codes(bgra).astype(np.float64) * (FAR_PLANE / DEPTH_CODES)


def _normalised(bgra: np.ndarray) -> np.ndarray:
    return _codes(bgra).astype(np.float32) / np.float32(DEPTH_CODES)


def _to_byte(value: np.ndarray) -> np.ndarray:
    """GIL's float32 channel to uint8: value · 255 + 0.5, truncated."""
    return (value * np.float32(255.0) + np.float32(0.5)).astype(np.uint8)


def grey_depth(bgra: np.ndarray) -> np.ndarray:
    """(H, W) uint8 grey levels of the Depth converter."""
    return _to_byte(_normalised(bgra))


def grey_log_depth(bgra: np.ndarray) -> np.ndarray:
    """(H, W) uint8 grey levels of the LogarithmicDepth converter."""
    normalised = _normalised(bgra)
    logs = el.log_v(normalised.astype(np.float64)).astype(np.float32)  # ln 0 = -inf -> 0.005
    value = np.float32(1.0) + logs / _LOG_SCALE
    return _to_byte(np.clip(value, np.float32(0.005), np.float32(1.0)))


def palette_bgra(bgra: np.ndarray) -> np.ndarray:
    """(H, W, 4) BGRA of the CityScapes palette for the tags in the red channel, alpha 255."""
    rgb = CITYSCAPES_PALETTE[bgra[..., 2] % len(CITYSCAPES_PALETTE)]
    out = np.empty(bgra.shape, np.uint8)
    out[..., 0], out[..., 1], out[..., 2] = rgb[..., 2], rgb[..., 1], rgb[..., 0]
    out[..., 3] = 255
    return out


def _grey_bgra(grey: np.ndarray) -> np.ndarray:
    out = np.empty((*grey.shape, 4), np.uint8)
    out[..., 0] = out[..., 1] = out[..., 2] = grey
    out[..., 3] = 255
    return out


def convert_bgra(bgra: np.ndarray, converter: ColorConverter) -> np.ndarray:
    """The (H, W, 4) BGRA image `converter` makes of `bgra` (Raw: the same array)."""
    converter = ColorConverter(converter)
    if converter == ColorConverter.Raw:
        return bgra
    if converter == ColorConverter.Depth:
        return _grey_bgra(grey_depth(bgra))
    if converter == ColorConverter.LogarithmicDepth:
        return _grey_bgra(grey_log_depth(bgra))
    return palette_bgra(bgra)
