"""The ranges a rendering sensor's attributes must lie in, checked at spawn.

CARLA reads these attributes without bounds and a nonsensical value breaks its sensor in
its own way (a DVS threshold of 0 never leaves its crossing loop, a 100,000-pixel-wide
image fails in Unreal's render target, 10⁹ LiDAR points a second exhaust the server's
memory). lockstep refuses such a value when the sensor is spawned, before any buffer is
made, with an error naming the blueprint, the attribute, its value and the range. The
bounds are Unreal's and physics' where those give one (a render target is at most 16,384
pixels a side; a pinhole's fov is below 180°; a LiDAR's channels point within ±90°), and
beyond every sensor sold where only memory bounds them (points per second: 20 million,
four times the densest LiDAR's few million).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from world.errors import BlueprintError
from world.kernels.cstdlib import c_atof

__all__ = ["RANGES", "AttributeRange", "check_attributes"]

MAX_IMAGE_SIDE = 16384  # Unreal's largest render target side
MAX_POINTS_PER_SECOND = 20_000_000


@dataclass(frozen=True, slots=True)
class AttributeRange:
    """`low <= value <= high`, or strictly above/below where `open_low`/`open_high`."""

    attribute: str
    low: float
    high: float
    open_low: bool = False
    open_high: bool = False

    def holds(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        above = value > self.low if self.open_low else value >= self.low
        below = value < self.high if self.open_high else value <= self.high
        return above and below

    def text(self) -> str:
        left = "(" if self.open_low else "["
        right = ")" if self.open_high else "]"
        return f"{left}{self.low:g}, {self.high:g}{right}"


_TICK = [AttributeRange("sensor_tick", 0.0, 3600.0)]
_CAMERA = [
    *_TICK,
    AttributeRange("image_size_x", 1, MAX_IMAGE_SIDE),
    AttributeRange("image_size_y", 1, MAX_IMAGE_SIDE),
    AttributeRange("fov", 0.0, 180.0, open_low=True, open_high=True),
]
_DVS = [
    *_CAMERA,
    AttributeRange("positive_threshold", 0.0, 1e6, open_low=True),
    AttributeRange("negative_threshold", 0.0, 1e6, open_low=True),
    AttributeRange("sigma_positive_threshold", 0.0, 1e6),
    AttributeRange("sigma_negative_threshold", 0.0, 1e6),
    AttributeRange("refractory_period_ns", 0.0, 3.6e12),
    AttributeRange("log_eps", 0.0, 1.0, open_low=True),
]
_LIDAR = [
    *_TICK,
    AttributeRange("channels", 1, 1024),
    AttributeRange("range", 0.0, 10000.0, open_low=True),
    AttributeRange("points_per_second", 0, MAX_POINTS_PER_SECOND),
    AttributeRange("rotation_frequency", 0.0, 1000.0),
    AttributeRange("upper_fov", -90.0, 90.0),
    AttributeRange("lower_fov", -90.0, 90.0),
    AttributeRange("horizontal_fov", 0.0, 360.0),
]
_LIDAR_INTENSITY = [
    AttributeRange("atmosphere_attenuation_rate", 0.0, 1e3),
    AttributeRange("dropoff_general_rate", 0.0, 1.0),
    AttributeRange("dropoff_intensity_limit", 0.0, 1.0),
    AttributeRange("dropoff_zero_intensity", 0.0, 1.0),
    AttributeRange("noise_stddev", 0.0, 1e3),
]
_RADAR = [
    *_TICK,
    AttributeRange("horizontal_fov", 0.0, 180.0, open_low=True, open_high=True),
    AttributeRange("vertical_fov", 0.0, 180.0, open_low=True, open_high=True),
    AttributeRange("range", 0.0, 10000.0, open_low=True),
    AttributeRange("points_per_second", 0, MAX_POINTS_PER_SECOND),
]

RANGES: dict[str, tuple[AttributeRange, ...]] = {
    "sensor.camera.rgb": tuple(_CAMERA),
    "sensor.camera.depth": tuple(_CAMERA),
    "sensor.camera.semantic_segmentation": tuple(_CAMERA),
    "sensor.camera.instance_segmentation": tuple(_CAMERA),
    "sensor.camera.normals": tuple(_CAMERA),
    "sensor.camera.optical_flow": tuple(_CAMERA),
    "sensor.camera.dvs": tuple(_DVS),
    "sensor.lidar.ray_cast": tuple(_LIDAR + _LIDAR_INTENSITY),
    "sensor.lidar.ray_cast_semantic": tuple(_LIDAR),
    "sensor.other.radar": tuple(_RADAR),
}


def check_attributes(type_id: str, attributes: Mapping[str, str]) -> None:
    """Raises BlueprintError naming the first attribute of `type_id` outside its range."""
    for bound in RANGES.get(type_id, ()):
        text = attributes.get(bound.attribute)
        if text is None:
            continue
        value = c_atof(text)
        if not bound.holds(value):
            raise BlueprintError(
                f"spawn_actor: {type_id}: attribute {bound.attribute} = {text!r} is outside "
                f"its range {bound.text()}"
            )
