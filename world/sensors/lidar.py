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
from world.sensors import lidar_kernels as lk
from world.sensors.base import SensorBehaviour, SensorContext, attribute_float
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
        # the last sweep's pitches and yaws (bytes) and their local directions: a LiDAR
        # whose turn per tick is a whole number of turns shoots the same rays every tick
        self._local_key: tuple[bytes, bytes] | None = None
        self._local: np.ndarray = np.zeros((0, 3))

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

    def _local_directions(self, rays: LidarRays) -> np.ndarray:
        """rays.local_directions(), kept while the sweep's angles repeat."""
        key = (rays.pitch.tobytes(), rays.yaw.tobytes())
        if key != self._local_key:
            self._local = rays.local_directions()
            self._local_key = key
        return self._local

    def _cast(self, ctx: SensorContext, rays: LidarRays, keep: np.ndarray | None):
        """The casts of the kept rays: (scene, transform, local unit dirs of every ray, the
        kept rays' indices, their world dirs, distance (inf: none), triangle (-1: none)),
        in ray order."""
        scene = ctx.world.frame_scene()
        transform = self.sensor.get_transform()
        axes = np.ascontiguousarray(transform.rotation.matrix(), dtype=np.float64)
        local = self._local_directions(rays)
        index = np.arange(len(local)) if keep is None else np.flatnonzero(keep)
        world = np.empty((len(index), 3))
        lk.world_directions(local, index, axes, world)
        distance, triangle = scene.cast(transform.location.as_array(), world, self.range)
        return scene, transform, local, index, world, distance, triangle

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
        _scene, transform, local, index, _world, distance, triangle = self._cast(ctx, rays, keep)
        hits = int(np.count_nonzero(triangle >= 0))
        noise = np.zeros(0)
        if self.noise_stddev > _EPSILON:
            noise = rng.normal(0.0, self.noise_stddev, hits)
        alpha = self.zero_intensity / self.intensity_limit if self.intensity_limit > 0 else np.inf
        chance = rng.random(hits, dtype=np.float32)
        out = np.empty(hits, LIDAR_POINT)  # its four float32 fields, as (hits, 4) below
        counts = np.zeros(self.channels, np.int64)
        falloff = (-self.attenuation, self.intensity_limit, alpha, 1.0 - self.zero_intensity)
        kept = lk.lidar_points(
            local,
            index,
            distance,
            triangle,
            noise,
            chance,
            falloff,
            rays.per_channel,
            out.view(np.float32).reshape(hits, 4),
            counts,
        )
        return [
            LidarMeasurement(
                ctx.frame,
                ctx.timestamp,
                transform,
                bytearray(out[:kept]),
                self.channels,
                self.angle,
                tuple(counts.tolist()),
            )
        ]


class RayCastSemanticLidar(_Lidar):
    """sensor.lidar.ray_cast_semantic: x, y, z, cos_inc_angle, object_idx, object_tag."""

    def measure(self, ctx: SensorContext) -> list[SemanticLidarMeasurement]:
        rays = self._rays()
        scene, transform, local, index, world, distance, triangle = self._cast(ctx, rays, None)
        hit = triangle >= 0
        index, world, distance, triangle = index[hit], world[hit], distance[hit], triangle[hit]
        local = local[index]
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
