"""carla.RssRestrictor: a vehicle control limited to what an RSS proper response allows.

CARLA's rule, kept number for number (its float32 steps included):

* no restriction in reverse gear;
* lateral: where a side's lateral acceleration may not exceed 0 and the ego drifts to that
  side along its route, the steer is turned back at least by the drift's angle
  (atan(v_lat / v_lon) over the wheels' largest steer angle), 0.1 more when the ego
  already crosses the border;
* longitudinal: when the allowed longitudinal acceleration is negative (or, in an
  unstructured drive-away, the heading the steer aims at lies outside every allowed
  range), the throttle goes to 0 and the brake to the share of the wheels' brake torque
  that gives the response's braking: mass * |a_min| * wheel radius (cm / 100) over the sum
  of max_brake_torque, at most 1.

atan is lockstep's own (world.elementary), so a restricted control has the same bits on
every machine.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from world import elementary as el
from world.actors.controls import VehicleControl
from world.sensors.rss.bindings import ad, require
from world.sensors.rss.data import RssEgoDynamicsOnRoute

__all__ = ["RssRestrictor"]

BORDER_OVERSTEER = np.float32(0.1)  # steer ratio added when the ego crosses the border
_F32 = np.float32


def _value(x: Any) -> float:
    return float(x.toBaseType)


class RssRestrictor:
    """Restricts vehicle controls to RSS proper responses (CARLA's carla.RssRestrictor)."""

    def __init__(self) -> None:
        require("carla.RssRestrictor")

    def restrict_vehicle_control(
        self,
        vehicle_control: VehicleControl,
        proper_response: Any,
        ego_dynamics_on_route: RssEgoDynamicsOnRoute,
        vehicle_physics: Any,
    ) -> VehicleControl:
        """`vehicle_control` limited by the RSS proper response (CARLA's keyword names)."""
        restricted = vehicle_control.copy()
        if vehicle_control.reverse:
            return restricted
        lib = ad()
        mass = _F32(vehicle_physics.mass)
        max_steer_deg = _F32(0.0)
        brake_torque = _F32(0.0)
        radius = _F32(1.0)
        for wheel in vehicle_physics.wheels:
            brake_torque = _F32(brake_torque + _F32(wheel.max_brake_torque))
            radius = _F32(wheel.radius)
            max_steer_deg = max(max_steer_deg, _F32(wheel.max_steer_angle))
        limits = proper_response.acceleration_restrictions
        route = ego_dynamics_on_route
        speed_lat = _value(route.route_speed_lat)
        speed_lon = _value(route.route_speed_lon)
        if (
            _value(limits.lateral_left_range.maximum) <= 0.0
            and speed_lat < 0.0
            and speed_lon != 0.0
        ):
            steer = self._counter_steer(speed_lat, speed_lon, max_steer_deg)  # drifting left
            if route.crossing_border:
                steer = _F32(steer + BORDER_OVERSTEER)
            restricted.steer = min(max(_F32(restricted.steer), steer), _F32(1.0))
        if (
            _value(limits.lateral_right_range.maximum) <= 0.0
            and speed_lat > 0.0
            and speed_lon != 0.0
        ):
            steer = self._counter_steer(speed_lat, speed_lon, max_steer_deg)  # drifting right
            if route.crossing_border:
                steer = _F32(steer - BORDER_OVERSTEER)
            restricted.steer = max(min(_F32(restricted.steer), steer), _F32(-1.0))

        accel_lon = _value(limits.longitudinal_range.maximum)
        drive_away = lib.rss.state.UnstructuredConstellationResponse.DriveAway
        if (
            proper_response.unstructured_constellation_response == drive_away
            and not self._heading_allowed(proper_response, route, vehicle_control, max_steer_deg)
        ):
            accel_lon = _value(limits.longitudinal_range.minimum)
        if accel_lon < 0.0:
            restricted.throttle = 0.0
            braking = abs(_value(limits.longitudinal_range.minimum))
            torque = float(mass) * braking * float(radius) / 100.0
            restricted.brake = min(_F32(torque / float(brake_torque)), _F32(1.0))
        return restricted

    @staticmethod
    def _counter_steer(speed_lat: float, speed_lon: float, max_steer_deg: np.float32) -> np.float32:
        """The steer ratio that turns the ego back by its drift's angle."""
        angle = el.atan(speed_lat / speed_lon)
        return _F32(_F32(-180.0) * _F32(angle / math.pi) / max_steer_deg)

    @staticmethod
    def _heading_allowed(
        restriction: Any,
        route: RssEgoDynamicsOnRoute,
        control: VehicleControl,
        max_steer_deg: np.float32,
    ) -> bool:
        """Whether the heading the steer aims at lies in one of the allowed heading ranges."""
        lib = ad()
        max_steer = float(max_steer_deg) * (math.pi / 180.0)
        aim = lib.physics.Angle(_value(route.ego_heading) - float(control.steer) * max_steer)
        return any(
            lib.geometry.isInsideHeadingRange(aim, heading_range)
            for heading_range in restriction.heading_ranges
        )

    def __str__(self) -> str:
        return "RssRestrictor()"
