"""What each camera makes of one frame's visibility buffers: CARLA's BGRA encodings.

The renderer gives, per pixel, the nearest triangle (-1 where the ray meets nothing: the
sky) and its depth along the camera's axis. From those and the scene's per-triangle tables:

* depth: the planar depth in CARLA's 24-bit code, R the low byte (R + G·256 + B·256² over
  256³ − 1 is the fraction of 1000 m); the sky and anything past 1000 m read 1000 m.
* semantic_segmentation: the CityObjectLabel tag in R (the sky is Sky, 11), G = B = 0.
* instance_segmentation: CARLA 0.9.14+'s encoding (its Tagger): R the tag, G the low byte
  and B the next byte of the instance id (the actor id for actors; a static object's own
  number, world.scene.mesh.STATIC_INSTANCE_BASE and up, modulo 2¹⁶); the sky 0.
* normals: CARLA 0.9.16's world-space normal (x forward, y right, z up) mapped from
  [-1, 1] to [0, 255] per channel, each surface's normal turned toward the camera; the sky
  (no surface) is the zero vector, (128, 128, 128).

Alpha is 255 everywhere, as CARLA's cameras give it.
"""

from __future__ import annotations

import numpy as np

from world.actors.vehicle_state import CityObjectLabel
from world.sensors.buffers import records_array
from world.sensors.color_converter import DEPTH_CODES, FAR_PLANE
from world.sensors.encoding_kernels import depth_words, label_words

__all__ = ["SKY_TAG", "depth_bgra", "normals_bgra", "segmentation_bgra", "to_bgra"]

SKY_TAG = int(CityObjectLabel.Sky)


def to_bgra(r: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(H, W, 4) uint8 BGRA of three (H, W) channels, alpha 255."""
    out = records_array((*r.shape, 4), np.uint8)
    out[..., 0], out[..., 1], out[..., 2], out[..., 3] = b, g, r, 255
    return out


def _words(shape: tuple[int, int]) -> np.ndarray:
    return records_array(shape, np.uint32)  # one BGRA word a pixel (encoding_kernels)


def depth_bgra(depth: np.ndarray) -> np.ndarray:
    """CARLA's depth image of (H, W) planar depths in metres (inf for the sky)."""
    words = _words(depth.shape)
    # float64: float32 would round 1000 m past 2^24 - 1
    metres = np.ascontiguousarray(depth, np.float64)
    depth_words(metres, FAR_PLANE, DEPTH_CODES / FAR_PLANE, float(DEPTH_CODES), words)
    return words.view(np.uint8).reshape(*depth.shape, 4)


def segmentation_bgra(number: np.ndarray, labels: tuple, instances: bool) -> np.ndarray:
    """CARLA's semantic segmentation image of (H, W) triangle numbers (the tag in red, the
    sky Sky), or with `instances` its instance segmentation image (the id's low byte in
    green, the next in blue, the sky's 0). `labels`: the scene's static tag and instance
    columns, the dynamic ones and the first dynamic number (FrameScene.labels)."""
    static, dynamic, offset = labels
    words = _words(number.shape)
    label_words(
        np.ascontiguousarray(number, np.int32), static, dynamic, offset, SKY_TAG, instances, words
    )
    return words.view(np.uint8).reshape(*number.shape, 4)


def normals_bgra(normals: np.ndarray, rays: np.ndarray) -> np.ndarray:
    """CARLA's normals image of the (H, W, 3) pixels' unit normals (zero where nothing is
    seen), each turned toward the camera whose (H, W, 3) world-frame rays are `rays`, as
    round((n + 1) / 2 · 255)."""
    n = normals.astype(np.float64)
    away = (n * rays).sum(-1) > 0.0
    n[away] = -n[away]
    code = np.floor((n + 1.0) * 127.5 + 0.5).astype(np.uint8)
    return to_bgra(code[..., 0], code[..., 1], code[..., 2])
