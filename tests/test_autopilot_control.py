"""The compiled speed controller and steering arithmetic, worked by hand from their rules."""

from __future__ import annotations

import numpy as np
import pytest

from world.traffic.autopilot.control import longitudinal, pursuit_tangents, steer_commands


def test_cruising_below_target_gives_throttle_only():
    # err = 12 - 10 = 2; integral = 0 + 2 * 0.05 = 0.1; feed-forward = 0.12 + 0.012 * 12 =
    # 0.264; throttle = 0.264 + 0.35 * 2 + 0.08 * 0.1 = 0.972; excess speed -2.4 -> no brake
    throttle, brake, integral = longitudinal(10.0, 12.0, 0.0, 0.05)
    assert throttle == pytest.approx(0.972)
    assert brake == 0.0
    assert integral == pytest.approx(0.1)


def test_too_fast_brakes_in_proportion_to_the_excess():
    # err = 10 - 12 = -2; excess over the 0.4 m/s deadband = 1.6; brake = 0.5 * 1.6 = 0.8
    throttle, brake, integral = longitudinal(12.0, 10.0, 0.0, 0.05)
    assert throttle == 0.0
    assert brake == pytest.approx(0.8)
    assert integral == pytest.approx(-0.1)


def test_zero_target_when_slow_holds_the_brake_and_clears_the_integral():
    throttle, brake, integral = longitudinal(0.5, 0.0, 3.0, 0.05)
    assert (throttle, brake, integral) == (0.0, 1.0, 0.0)


def test_integral_is_limited():
    _, _, integral = longitudinal(0.0, 20.0, 3.9, 1.0)
    assert integral == 4.0


def test_pure_pursuit_straight_ahead_and_to_the_right():
    # vehicle at the origin heading +x, rear axle 1 m behind; a point 5 m ahead of the axle on
    # its axis needs no steer; one at (4, 4) from the axle is on a circle of curvature
    # 2 * 4 / 32 = 0.25 1/m: wheel angle atan(2.5 * 0.25) over the 1.2 rad maximum
    pos = np.zeros((2, 3))
    target = np.array([[4.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    one = np.ones(2)
    kmh = np.array([[0.0, 200.0], [0.0, 200.0]])
    tangent = pursuit_tangents(pos, one, np.zeros(2), one, target, 2.5 * one)
    assert tangent[0] == 0.0
    assert tangent[1] == pytest.approx(2.5 * 0.25)
    steer = steer_commands(np.arctan(tangent), 1.2 * one, kmh, np.ones((2, 2)), one)
    assert steer[0] == 0.0
    assert steer[1] == pytest.approx(np.arctan(0.625) / 1.2)


def test_steer_command_is_clipped_and_follows_the_steering_curve():
    # the curve allows the full 1.2 rad at 0 km/h and half of it at 100 km/h: at 50 km/h
    # (13.889 m/s) 0.75 of it, so 0.45 rad of wheel angle is a command of 0.45 / 0.9 = 0.5;
    # 2 rad is beyond the maximum and clips to 1
    kmh = np.array([[0.0, 100.0], [0.0, 100.0]])
    factor = np.array([[1.0, 0.5], [1.0, 0.5]])
    speed = np.full(2, 50.0 / 3.6)
    steer = steer_commands(np.array([0.45, -2.0]), np.full(2, 1.2), kmh, factor, speed)
    assert steer[0] == pytest.approx(0.5)
    assert steer[1] == -1.0
