"""sensor.other.imu: accelerometer, gyroscope and compass, as CARLA's InertialMeasurementUnit.

* Accelerometer: the second derivative of the quadratic through the sensor's
  last three locations (uneven steps allowed), plus gravity (+9.81 m/s² up),
  expressed in the sensor's frame; at rest it reads (0, 0, 9.81). Before two
  ticks have passed the missing locations are the spawn location.
* Gyroscope: the parent's angular velocity in rad/s, in the sensor's frame.
* Compass: the angle in [0, 2π) from north (CARLA's -y) to the sensor's forward
  vector in the horizontal plane, clockwise seen from above (east = π/2).

Each axis gets the bias (gyroscope only) and a normal draw of its standard
deviation from the sensor's own generator (`noise_seed`), drawn every
measurement in the order accelerometer x, y, z, gyroscope x, y, z.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from world import elementary as el
from world.geometry import Vector3D
from world.sensors.base import SensorBehaviour, SensorContext, attribute_float
from world.sensors.data import IMUMeasurement

__all__ = ["GRAVITY", "IMUSensor", "compass_from_yaw", "quadratic_acceleration"]

GRAVITY = 9.81


def quadratic_acceleration(
    y0: np.ndarray, y1: np.ndarray, y2: np.ndarray, h1: float, h2: float
) -> np.ndarray:
    """Second derivative at the newest point of the parabola through three samples.

    y2 is the oldest, y1 the previous and y0 the newest location; h2 is the step
    from y2 to y1 and h1 the step from y1 to y0.
    """
    return -2.0 * (y1 / (h1 * h2) - y2 / (h2 * (h1 + h2)) - y0 / (h1 * (h1 + h2)))


def compass_from_yaw(forward: Vector3D) -> float:
    """Radians from north (0, -1, 0) to the horizontal part of `forward`, in [0, 2π)."""
    fx, fy = forward.x, forward.y
    norm = el.hypot(fx, fy)
    if norm == 0.0:
        return 0.0
    fx, fy = fx / norm, fy / norm
    angle = el.acos(max(-1.0, min(1.0, -fy)))
    # z of north x forward = 0*fy - (-1)*fx = fx; negative means west of north.
    return 2.0 * math.pi - angle if fx < 0.0 else angle


class IMUSensor(SensorBehaviour):
    """An inertial measurement unit on its parent."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        axes = ("x", "y", "z")
        self.accel_stddev = np.array(
            [attribute_float(attributes, f"noise_accel_stddev_{a}", 0.0) for a in axes]
        )
        self.gyro_stddev = np.array(
            [attribute_float(attributes, f"noise_gyro_stddev_{a}", 0.0) for a in axes]
        )
        self.gyro_bias = np.array(
            [attribute_float(attributes, f"noise_gyro_bias_{a}", 0.0) for a in axes]
        )
        seed = int(attribute_float(attributes, "noise_seed", 0.0))
        self._rng = np.random.Generator(np.random.PCG64(seed))
        start = sensor.get_location().as_array()
        self._locations = [start, start]  # oldest, previous
        self._prev_delta = 0.0
        self._last_time: float | None = None

    def measure(self, ctx: SensorContext) -> list[IMUMeasurement]:
        transform = self.sensor.get_transform()
        now = transform.location.as_array()
        oldest, previous = self._locations
        # The steps between measurements (sensor_tick may space them over several ticks).
        h1 = ctx.delta_seconds if self._last_time is None else ctx.timestamp - self._last_time
        h2 = self._prev_delta if self._prev_delta > 0.0 else h1
        accel = quadratic_acceleration(now, previous, oldest, h1, h2)
        self._locations = [previous, now]
        self._prev_delta = h1
        self._last_time = ctx.timestamp
        accel[2] += GRAVITY
        rot = transform.rotation.matrix()  # columns: forward, right, up
        local_accel = rot.T @ accel
        parent = self.sensor.parent
        body = parent if parent is not None else self.sensor
        omega = np.radians(body.get_angular_velocity().as_array())
        local_gyro = rot.T @ omega
        noise = self._rng.normal(0.0, 1.0, size=6)
        local_accel = local_accel + noise[:3] * self.accel_stddev
        local_gyro = local_gyro + noise[3:] * self.gyro_stddev + self.gyro_bias
        return [
            IMUMeasurement(
                ctx.frame,
                ctx.timestamp,
                transform,
                accelerometer=Vector3D(*map(float, local_accel)),
                gyroscope=Vector3D(*map(float, local_gyro)),
                compass=compass_from_yaw(transform.get_forward_vector()),
            )
        ]
