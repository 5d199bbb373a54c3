"""CARLA's starting RSS dynamics for vehicles and pedestrians, as ad.rss.world.RssDynamics.

Numbers from CARLA's RssCheck (GetDefaultVehicleDynamics, GetDefaultPedestrianDynamics):
accelerations in m/s², distances in m, times in s, speeds in m/s, angles in rad. Other
vehicles get the vehicle dynamics with a 2 s response time.
"""

from __future__ import annotations

from typing import Any

from world.sensors.rss.bindings import ad

__all__ = ["other_vehicle_dynamics", "pedestrian_dynamics", "vehicle_dynamics"]

OTHER_VEHICLE_RESPONSE_TIME = 2.0  # s


def _dynamics(
    lon: tuple[float, float, float, float],
    lat: tuple[float, float],
    response_time: float,
    max_speed_on_acceleration: float,
) -> Any:
    """RssDynamics from (accel_max, brake_max, brake_min, brake_min_correct) and
    (accel_max, brake_min), with CARLA's lateral margin and unstructured settings."""
    lib = ad()
    physics = lib.physics
    dynamics = lib.rss.world.RssDynamics()
    alpha_lon = dynamics.alpha_lon
    alpha_lon.accel_max = physics.Acceleration(lon[0])
    alpha_lon.brake_max = physics.Acceleration(lon[1])
    alpha_lon.brake_min = physics.Acceleration(lon[2])
    alpha_lon.brake_min_correct = physics.Acceleration(lon[3])
    dynamics.alpha_lat.accel_max = physics.Acceleration(lat[0])
    dynamics.alpha_lat.brake_min = physics.Acceleration(lat[1])
    dynamics.lateral_fluctuation_margin = physics.Distance(0.1)
    dynamics.response_time = physics.Duration(response_time)
    dynamics.max_speed_on_acceleration = physics.Speed(max_speed_on_acceleration)
    unstructured = dynamics.unstructured_settings
    unstructured.pedestrian_turning_radius = physics.Distance(2.0)
    unstructured.drive_away_max_angle = physics.Angle(2.4)
    unstructured.vehicle_yaw_rate_change = physics.AngularAcceleration(0.3)
    unstructured.vehicle_min_radius = physics.Distance(3.5)
    unstructured.vehicle_trajectory_calculation_step = physics.Duration(0.2)
    return dynamics


def vehicle_dynamics() -> Any:
    """The ego's (and, with a longer response time, other vehicles') dynamics."""
    return _dynamics((3.5, -8.0, -4.0, -3.0), (0.2, -0.8), 1.0, 100.0)


def other_vehicle_dynamics() -> Any:
    """The vehicle dynamics with other vehicles' 2 s response time."""
    dynamics = vehicle_dynamics()
    dynamics.response_time = ad().physics.Duration(OTHER_VEHICLE_RESPONSE_TIME)
    return dynamics


def pedestrian_dynamics() -> Any:
    return _dynamics((2.0, -4.0, -2.0, -2.0), (0.001, -0.001), 0.5, 10.0)
