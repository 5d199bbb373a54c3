"""sensor.lidar.ray_cast and sensor.lidar.ray_cast_semantic: CARLA's rotating LiDAR.

CARLA's sweep (RayCastSemanticLidar.cpp), in its float32 arithmetic:

* the lasers' pitches are upper_fov − i · (upper_fov − lower_fov) / (channels − 1), channel
  i = 0 the highest (one channel: upper_fov);
* each measurement covers the time since the last one, dt: every channel shoots
  n = round_half_away(points_per_second · dt / channels) rays; the sweep turns by
  A = rotation_frequency · horizontal_fov · dt degrees, ray k of a channel at yaw
  fmod(h + k · A / n, horizontal_fov) − horizontal_fov / 2, h the angle the last measurement
  reached, and the measurement's `horizontal_angle` is fmod(h + A, horizontal_fov) in
  radians;
* a ray reaches `range` metres; each hit is a point in the sensor's frame (x forward, y
  right, z up), channel after channel, rays in order.

ray_cast adds CARLA's intensity and losses: intensity e^{−atmosphere_attenuation_rate · d}
(d the hit's distance, metres); before casting, each ray is dropped with probability
dropoff_general_rate; after, a hit's point moves along its ray by a normal draw of
noise_stddev, and a hit of intensity at most dropoff_intensity_limit is kept with
probability intensity · dropoff_zero_intensity / dropoff_intensity_limit + 1 −
dropoff_zero_intensity. The draws come from the sensor's generator for the frame,
numpy's PCG64 of SeedSequence((noise_seed, frame)), in the order: the drops of every ray,
the noise of every hit, the keeps of every hit.

ray_cast_semantic gives, per hit, the cosine of the angle between the surface's normal and
the reversed ray, the actor id hit (0 for the map) and its tag.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from world import elementary as el
from world.sensors.base import SensorBehaviour, SensorContext, attribute_float
from world.sensors.pinhole import to_world
from world.sensors.point_clouds import (
    LIDAR_POINT,
    SEMANTIC_LIDAR_POINT,
    LidarMeasurement,
    SemanticLidarMeasurement,
)

__all__ = ["LidarRays", "RayCastLidar", "RayCastSemanticLidar", "frame_generator", "sweep"]

_F32 = np.float32
_EPSILON = float(np.finfo(np.float32).eps)


def frame_generator(seed: int, frame: int) -> np.random.Generator:
    """The sensor's generator for one frame: PCG64 of SeedSequence((seed, frame)), so a draw
    depends on the seed and the frame alone, not on which frames were measured before."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed & 0xFFFFFFFF, frame])))


def _round_half_away(x: np.float32) -> int:
    return int(np.floor(np.abs(x) + _F32(0.5))) * (1 if x >= 0 else -1)


class LidarRays:
    """The rays of one measurement: per channel pitch, per ray yaw (degrees), and the sweep."""

    __slots__ = ("end_angle", "per_channel", "pitch", "yaw")

    def __init__(self, pitch: np.ndarray, yaw: np.ndarray, per_channel: int, end_angle: float):
        self.pitch = pitch  # (channels,) float32 degrees
        self.yaw = yaw  # (per_channel,) float32 degrees
        self.per_channel = per_channel
        self.end_angle = end_angle  # degrees, float32, where the sweep stops

    def local_directions(self) -> np.ndarray:
        """(channels · per_channel, 3) unit directions in the sensor's frame, channel-major."""
        pitch = np.radians(self.pitch.astype(np.float64))[:, None]
        yaw = np.radians(self.yaw.astype(np.float64))[None, :]
        cp, sp = el.cos_v(pitch), el.sin_v(pitch)
        cy, sy = el.cos_v(yaw), el.sin_v(yaw)
        out = np.empty((len(self.pitch), len(self.yaw), 3))
        out[..., 0] = cp * cy
        out[..., 1] = cp * sy
        out[..., 2] = np.broadcast_to(sp, out.shape[:2])
        return out.reshape(-1, 3)


def laser_pitches(channels: int, upper: float, lower: float) -> np.ndarray:
    """The channels' pitches (float32 degrees), the highest first."""
    if channels == 1:
        return np.array([upper], _F32)
    delta = (_F32(upper) - _F32(lower)) / _F32(channels - 1)
    return _F32(upper) - np.arange(channels, dtype=_F32) * delta


def sweep(
    channels: int,
    points_per_second: int,
    rotation_frequency: float,
    horizontal_fov: float,
    upper_fov: float,
    lower_fov: float,
    start_radians: float,
    dt: float,
) -> LidarRays:
    """The rays CARLA shoots in one measurement of dt seconds from `start_radians` (float32)."""
    per_channel = _round_half_away(_F32(points_per_second) * _F32(dt) / _F32(channels))
    start = _F32(np.degrees(_F32(start_radians)))
    fov = _F32(horizontal_fov)
    tick_angle = _F32(rotation_frequency) * fov * _F32(dt)
    step = tick_angle / _F32(per_channel) if per_channel > 0 else _F32(0.0)
    k = np.arange(max(per_channel, 0), dtype=_F32)
    yaw = np.fmod(start + step * k, fov) - fov / _F32(2.0)
    end = np.fmod(start + tick_angle, fov)
    pitch = laser_pitches(channels, upper_fov, lower_fov)
    return LidarRays(pitch, yaw.astype(_F32), max(per_channel, 0), float(end))


class _Lidar(SensorBehaviour):
    """What both LiDARs share: their attributes, the sweep's angle and the casting."""

    measures_unheard = False

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.channels = int(attribute_float(attributes, "channels", 32.0))
        self.range = attribute_float(attributes, "range", 10.0)
        self.points_per_second = int(attribute_float(attributes, "points_per_second", 56000.0))
        self.rotation_frequency = attribute_float(attributes, "rotation_frequency", 10.0)
        self.upper_fov = attribute_float(attributes, "upper_fov", 10.0)
        self.lower_fov = attribute_float(attributes, "lower_fov", -30.0)
        self.horizontal_fov = attribute_float(attributes, "horizontal_fov", 360.0)
        self.angle = float(_F32(0.0))  # radians, the angle the sweep reached

    def _rays(self) -> LidarRays:
        rays = sweep(
            self.channels,
            self.points_per_second,
            self.rotation_frequency,
            self.horizontal_fov,
            self.upper_fov,
            self.lower_fov,
            self.angle,
            self.elapsed,
        )
        if rays.per_channel == 0:
            warnings.warn(
                f"{self.sensor.type_id} (actor {self.sensor.id}): no points requested this "
                "frame, try increasing the number of points per second",
                RuntimeWarning,
                stacklevel=4,
            )
        self.angle = float(_F32(np.radians(_F32(rays.end_angle))))
        return rays

    def skip(self, ctx: SensorContext) -> None:
        self._rays()  # the sweep turns whether or not anyone listens

    def _cast(self, ctx: SensorContext, rays: LidarRays, keep: np.ndarray | None):
        """The hits of the kept rays: (scene, transform, local unit dirs, world dirs, distance,
        triangle, ray index), in ray order."""
        scene = ctx.world.frame_scene()
        transform = self.sensor.get_transform()
        axes = transform.rotation.matrix()
        local = rays.local_directions()
        index = np.arange(len(local)) if keep is None else np.flatnonzero(keep)
        world = to_world(local[index], axes)
        distance, triangle = scene.cast(transform.location.as_array(), world, self.range)
        hit = triangle >= 0
        return (
            scene,
            transform,
            local[index[hit]],
            world[hit],
            distance[hit],
            triangle[hit],
            index[hit],
        )

    @staticmethod
    def _counts(index: np.ndarray, rays: LidarRays, channels: int) -> tuple[int, ...]:
        if rays.per_channel == 0:
            return (0,) * channels
        return tuple(np.bincount(index // rays.per_channel, minlength=channels).tolist())


class RayCastLidar(_Lidar):
    """sensor.lidar.ray_cast: x, y, z, intensity per point."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.attenuation = attribute_float(attributes, "atmosphere_attenuation_rate", 0.004)
        self.seed = int(attribute_float(attributes, "noise_seed", 0.0))
        self.general_rate = attribute_float(attributes, "dropoff_general_rate", 0.45)
        self.intensity_limit = attribute_float(attributes, "dropoff_intensity_limit", 0.8)
        self.zero_intensity = attribute_float(attributes, "dropoff_zero_intensity", 0.4)
        self.noise_stddev = attribute_float(attributes, "noise_stddev", 0.0)

    def measure(self, ctx: SensorContext) -> list[LidarMeasurement]:
        rays = self._rays()
        rng = frame_generator(self.seed, ctx.frame)
        total = rays.per_channel * self.channels
        keep = None
        if self.general_rate > _EPSILON:
            keep = ~(rng.random(total, dtype=np.float32) < _F32(self.general_rate))
        _scene, transform, local, _world, distance, _tri, index = self._cast(ctx, rays, keep)
        points = local * distance[:, None]
        intensity = el.exp_v(-self.attenuation * distance)
        if self.noise_stddev > _EPSILON:
            points = points + local * rng.normal(0.0, self.noise_stddev, len(index))[:, None]
        alpha = self.zero_intensity / self.intensity_limit if self.intensity_limit > 0 else np.inf
        chance = rng.random(len(index), dtype=np.float32)
        with np.errstate(invalid="ignore"):
            kept = (intensity > self.intensity_limit) | (
                chance < alpha * intensity + (1.0 - self.zero_intensity)
            )
        out = np.zeros(int(kept.sum()), LIDAR_POINT)
        out["x"], out["y"], out["z"] = points[kept, 0], points[kept, 1], points[kept, 2]
        out["intensity"] = intensity[kept]
        return [
            LidarMeasurement(
                ctx.frame,
                ctx.timestamp,
                transform,
                bytearray(out.tobytes()),
                self.channels,
                self.angle,
                self._counts(index[kept], rays, self.channels),
            )
        ]


class RayCastSemanticLidar(_Lidar):
    """sensor.lidar.ray_cast_semantic: x, y, z, cos_inc_angle, object_idx, object_tag."""

    def measure(self, ctx: SensorContext) -> list[SemanticLidarMeasurement]:
        rays = self._rays()
        scene, transform, local, world, distance, triangle, index = self._cast(ctx, rays, None)
        out = np.zeros(len(index), SEMANTIC_LIDAR_POINT)
        points = local * distance[:, None]
        out["x"], out["y"], out["z"] = points[:, 0], points[:, 1], points[:, 2]
        out["cos_inc_angle"] = np.abs((scene.normal(triangle) * world).sum(1))
        rows = scene.actor_rows(triangle)
        out["object_idx"] = np.where(rows >= 0, rows + 1, 0)
        out["object_tag"] = scene.tag(triangle)
        return [
            SemanticLidarMeasurement(
                ctx.frame,
                ctx.timestamp,
                transform,
                bytearray(out.tobytes()),
                self.channels,
                self.angle,
                self._counts(index, rays, self.channels),
            )
        ]
