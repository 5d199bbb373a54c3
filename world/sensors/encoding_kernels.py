"""CARLA's depth, semantic and instance encodings of a camera's visibility buffers, each in
one compiled pass writing a pixel as one word (world.sensors.camera_encodings gives the
rules; numpy's passes over channels and masks took several ms a 800x600 frame).

A depth's code is round(d / 1000 · (256³ − 1)) in float64 (float32 would round 1000 m past
2^24 − 1), the depth clamped to [0, 1000] first: the sky and anything past 1000 m read
1000 m.
"""

from __future__ import annotations

import math

import numpy as np

from world.kernels.compiled import njit
from world.sensors.pixel_kernels import A_SHIFT, B_SHIFT, G_SHIFT, R_SHIFT

__all__ = ["depth_words", "label_words"]


@njit(cache=True)
def depth_words(
    metres: np.ndarray, far: float, per_metre: float, last: float, out: np.ndarray
) -> None:
    """CARLA's depth words of (H, W) depths: the 24-bit code round(clamp(d, 0, far) ·
    per_metre), at most `last`, with its low byte in red, then green, then blue."""
    height, width = metres.shape
    for j in range(height):
        for i in range(width):
            scaled = min(max(metres[j, i], 0.0), far) * per_metre
            code = int(min(math.floor(scaled + 0.5), last))
            out[j, i] = (
                (255 << A_SHIFT)
                | ((code & 255) << R_SHIFT)
                | (((code >> 8) & 255) << G_SHIFT)
                | (((code >> 16) & 255) << B_SHIFT)
            )


@njit(cache=True)
def label_words(
    number: np.ndarray,
    static: tuple,
    dynamic: tuple,
    offset: int,
    sky: int,
    instances: bool,
    out: np.ndarray,
) -> None:
    """The semantic (or, `instances`, the instance) segmentation words of (H, W) triangle
    numbers: the tag in red (`sky` where nothing is seen); the instance id's low byte in
    green and its next in blue (0 where nothing is seen). `static` and `dynamic` are the
    scene's tag and instance columns, the dynamic numbers from `offset`."""
    static_tag, static_instance = static
    dynamic_tag, dynamic_instance = dynamic
    height, width = number.shape
    for j in range(height):
        for i in range(width):
            k = number[j, i]
            if k < 0:
                tag, ident = sky, 0
            elif k < offset:
                tag, ident = int(static_tag[k]), int(static_instance[k])
            else:
                tag, ident = int(dynamic_tag[k - offset]), int(dynamic_instance[k - offset])
            word = (255 << A_SHIFT) | (tag << R_SHIFT)
            if instances:
                word |= ((ident & 255) << G_SHIFT) | (((ident >> 8) & 255) << B_SHIFT)
            out[j, i] = word
