"""IMU, compass and obstacle-sweep numbers worked by hand, on stand-in actors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from world.geometry import Location, Rotation, Transform, Vector3D
from world.sensors.base import SensorContext
from world.sensors.imu import IMUSensor, compass_from_yaw, quadratic_acceleration
from world.sensors.obstacle import sweep_hits


class Body:
    """A stand-in actor: a pose and an angular velocity (deg/s), no parent."""

    def __init__(self, location: Location, rotation: Rotation, angvel: Vector3D | None = None):
        self.tf = Transform(location, rotation)
        self.angvel = angvel or Vector3D()
        self.parent = None
        self.id = 5

    def get_transform(self) -> Transform:
        return self.tf.copy()

    def get_location(self) -> Location:
        return self.tf.copy().location

    def get_angular_velocity(self) -> Vector3D:
        return self.angvel


def ctx(frame: int, dt: float = 0.05) -> SensorContext:
    return SensorContext(None, frame, frame * dt, dt)


def test_quadratic_acceleration_of_free_fall_samples():
    # z = -g t^2 / 2 sampled at t = 0, 0.1, 0.3 (uneven steps 0.1 and 0.2): any parabola's
    # second derivative is exact, -9.81.
    g = 9.81
    z = [-g * t * t / 2 for t in (0.0, 0.1, 0.3)]
    acc = quadratic_acceleration(np.array([z[2]]), np.array([z[1]]), np.array([z[0]]), 0.2, 0.1)
    assert acc[0] == pytest.approx(-g, rel=1e-12)


def test_imu_at_rest_reads_gravity_up_and_no_rotation():
    body = Body(Location(3, 4, 0.5), Rotation(yaw=30))
    imu = IMUSensor(body, {})
    got = []
    imu.listen(got.append)
    for frame in (1, 2, 3):
        imu.tick(ctx(frame))
    last = got[-1]
    assert (last.accelerometer.x, last.accelerometer.y) == pytest.approx((0.0, 0.0), abs=1e-9)
    assert last.accelerometer.z == pytest.approx(9.81, abs=1e-9)
    assert (last.gyroscope.x, last.gyroscope.y, last.gyroscope.z) == (0.0, 0.0, 0.0)
    # yaw 30 deg: forward (cos30, sin30); north is -y, east +x at pi/2: 30 deg past east.
    assert last.compass == pytest.approx(math.radians(120), abs=1e-12)
    assert last.frame == 3 and last.timestamp == pytest.approx(0.15)


def test_imu_pitched_reads_gravity_in_its_frame_and_yaw_rate():
    # Pitched up 90 deg, the sensor's forward is world up: gravity reads along its x.
    body = Body(Location(0, 0, 0), Rotation(pitch=90), angvel=Vector3D(0, 0, 0))
    imu = IMUSensor(body, {})
    got = []
    imu.listen(got.append)
    imu.tick(ctx(1))
    assert got[0].accelerometer.x == pytest.approx(9.81, abs=1e-9)
    assert got[0].accelerometer.z == pytest.approx(0.0, abs=1e-9)
    # A level body turning 90 deg/s about up: gyroscope z = pi/2 rad/s.
    body = Body(Location(0, 0, 0), Rotation(), angvel=Vector3D(0, 0, 90))
    imu = IMUSensor(body, {})
    imu.listen(got.append)
    imu.tick(ctx(1))
    assert got[-1].gyroscope.z == pytest.approx(math.pi / 2, rel=1e-12)


@pytest.mark.parametrize(
    ("yaw", "compass"), [(-90.0, 0.0), (0.0, 90.0), (90.0, 180.0), (180.0, 270.0), (-135.0, 315.0)]
)
def test_compass_north_is_minus_y(yaw, compass):
    forward = Rotation(yaw=yaw).get_forward_vector()
    assert compass_from_yaw(forward) == pytest.approx(
        math.radians(compass) % (2 * math.pi), abs=1e-9
    )


def test_imu_noise_is_seeded_per_sensor():
    attrs = {"noise_accel_stddev_x": "0.5", "noise_gyro_bias_z": "0.25", "noise_seed": "7"}
    reads = []
    for _ in range(2):
        imu = IMUSensor(Body(Location(), Rotation()), attrs)
        got = []
        imu.listen(got.append)
        imu.tick(ctx(1))
        reads.append(got[0])
    assert reads[0].accelerometer.x == reads[1].accelerometer.x != 0.0
    assert reads[0].accelerometer.y == 0.0  # stddev 0 on y
    assert reads[0].gyroscope.z == 0.25


def test_sweep_hits_boxes_ahead():
    # Ray from the origin along +x, 10 m, radius 0.5. Box A at x=6 (half 1 x 1 x 1): met when
    # the grown box's face x = 6 - 1.5 = 4.5. Box B at (6, 2.4) is 1.5 + 0.5 = 1.9 < 2.4 aside:
    # missed. Box C contains the origin: met at 0. Box D at x = 12: past the 10 m reach.
    axes = np.repeat(np.eye(3)[None], 4, axis=0)
    centres = np.array([[6.0, 0, 0], [6.0, 2.4, 0], [0.5, 0, 0], [12.0, 0, 0]])
    extents = np.array([[1.0, 1, 1], [1.0, 1, 1], [1.0, 1, 1], [1.0, 1, 1]])
    got = sweep_hits(np.zeros(3), np.array([1.0, 0, 0]), 10.0, 0.5, centres, axes, extents)
    assert got.tolist() == [4.5, math.inf, 0.0, math.inf]
