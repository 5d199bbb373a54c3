"""sensor.other.radar: CARLA's radar, rays drawn at random in its field of view.

As CARLA's Radar.cpp: each measurement of dt seconds casts int(points_per_second · dt) rays
from the sensor toward (range, R_x · r · cos a, R_y · r · sin a) in its frame, R_x =
tan(horizontal_fov / 2) · range, R_y = tan(vertical_fov / 2) · range, with r uniform in
[0, 1) and a uniform in [0, 2π) (drawn in that order, ray by ray, from the sensor's
generator for the frame: PCG64 of SeedSequence((noise_seed, frame))). A ray that meets
something gives a detection: its depth (the hit's distance, m), the ray's azimuth and
altitude in the sensor's frame (rad), and the velocity toward the sensor: the hit actor's
velocity minus the radar's own, along the direction from the radar to the hit (m/s;
approaching is negative). The radar's velocity is its displacement since the last
measurement over dt (zero at the first, as CARLA starts from the spawn location).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from world import elementary as el
from world.sensors.base import SensorBehaviour, SensorContext, attribute_float
from world.sensors.lidar import frame_generator
from world.sensors.pinhole import to_world
from world.sensors.point_clouds import RADAR_DETECTION, RadarMeasurement

__all__ = ["Radar"]


class Radar(SensorBehaviour):
    """A radar on its parent (see the module)."""

    measures_unheard = False

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.horizontal_fov = attribute_float(attributes, "horizontal_fov", 30.0)
        self.vertical_fov = attribute_float(attributes, "vertical_fov", 30.0)
        self.range = attribute_float(attributes, "range", 100.0)
        self.points_per_second = int(attribute_float(attributes, "points_per_second", 1500.0))
        self.seed = int(attribute_float(attributes, "noise_seed", 0.0))
        self._previous = sensor.get_location().as_array()

    def _velocity(self, dt: float) -> tuple[Any, np.ndarray]:
        transform = self.sensor.get_transform()
        here = transform.location.as_array()
        velocity = (here - self._previous) / dt if dt > 0.0 else np.zeros(3)
        self._previous = here
        return transform, velocity

    def skip(self, ctx: SensorContext) -> None:
        self._velocity(self.elapsed)

    def measure(self, ctx: SensorContext) -> list[RadarMeasurement]:
        transform, own_velocity = self._velocity(self.elapsed)
        count = int(np.float32(self.points_per_second) * np.float32(self.elapsed))
        draws = frame_generator(self.seed, ctx.frame).random((count, 2), dtype=np.float32)
        radius = draws[:, 0].astype(np.float64)
        angle = draws[:, 1].astype(np.float64) * (2.0 * math.pi)
        max_x = el.tan(math.radians(self.horizontal_fov * 0.5)) * self.range
        max_y = el.tan(math.radians(self.vertical_fov * 0.5)) * self.range
        local = np.stack(
            [
                np.full(count, self.range),
                max_x * radius * el.cos_v(angle),
                max_y * radius * el.sin_v(angle),
            ],
            1,
        )
        local /= np.sqrt((local * local).sum(1, keepdims=True))
        world = to_world(local, transform.rotation.matrix())
        origin = transform.location.as_array()
        scene = ctx.world.frame_scene()
        distance, triangle = scene.cast(origin, world, self.range)
        hit = triangle >= 0
        toward = world[hit]  # the hit lies along the ray: its direction is the ray's
        relative = scene.velocities(triangle[hit]) - own_velocity
        out = np.zeros(int(hit.sum()), RADAR_DETECTION)
        out["velocity"] = (relative * toward).sum(1)
        out["azimuth"] = el.atan2_v(local[hit, 1], local[hit, 0])
        ahead, side = local[hit, 0], local[hit, 1]
        out["altitude"] = el.atan2_v(local[hit, 2], np.sqrt(ahead * ahead + side * side))
        out["depth"] = distance[hit]
        return [RadarMeasurement(ctx.frame, ctx.timestamp, transform, bytearray(out.tobytes()))]
