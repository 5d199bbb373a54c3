"""The autopilot's controllers, vectorised over vehicles: pure pursuit steering and a speed PID.

Steering is pure pursuit on a look-ahead point of the planned path: the front
wheel angle that puts the vehicle on the circle through that point,
atan(2 L sin(alpha) / Ld), turned into a steer command by the vehicle's
maximum wheel angle and its steering curve. Speed is a PI controller on the
speed error with a feed-forward term for rolling and air resistance; braking is
proportional to the excess speed, and a target of zero holds the brake. The speed
controller works on one vehicle at a time, compiled, for the autopilot's compiled tick.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from world.vehicle_dynamics import piecewise

__all__ = ["longitudinal", "lookahead_distance", "pure_pursuit"]

LOOKAHEAD_MIN = 3.0  # m, from the rear axle
LOOKAHEAD_PER_SPEED = 0.4  # s: the look-ahead grows with speed
KP, KI = 0.35, 0.08  # throttle per m/s of error, per m of integrated error
FEED_FORWARD = 0.12  # throttle that roughly holds a cruising car against its resistances
FEED_FORWARD_PER_SPEED = 0.012
KB = 0.5  # brake per m/s of excess speed
BRAKE_DEADBAND = 0.4  # m/s over the target before braking
INTEGRAL_LIMIT = 4.0
HOLD_SPEED = 1.0  # m/s: below this with a zero target the brake is held fully


def lookahead_distance(speed: np.ndarray) -> np.ndarray:
    return LOOKAHEAD_MIN + LOOKAHEAD_PER_SPEED * speed


def pure_pursuit(
    pos: np.ndarray,
    yaw_deg: np.ndarray,
    target: np.ndarray,
    wheelbase: np.ndarray,
    max_steer: np.ndarray,
    steer_kmh: np.ndarray,
    steer_factor: np.ndarray,
    speed: np.ndarray,
) -> np.ndarray:
    """Steer commands in [-1, 1] (+ = right) toward `target` points (N, 2); `pos` is the
    rear axle's."""
    yaw = np.radians(yaw_deg)
    c, s = np.cos(yaw), np.sin(yaw)
    dx, dy = target[:, 0] - pos[:, 0], target[:, 1] - pos[:, 1]
    fwd = dx * c + dy * s
    side = -dx * s + dy * c
    dist2 = np.maximum(fwd * fwd + side * side, 1e-6)
    curvature = 2.0 * side / dist2
    delta = np.arctan(wheelbase * curvature)
    factor = piecewise(steer_kmh, steer_factor, speed * 3.6)
    return np.clip(delta / np.maximum(max_steer * factor, 1e-6), -1.0, 1.0)


@njit(cache=True, inline="always")
def _clip(x: float, lo: float, hi: float) -> float:
    """numpy.clip for one finite float: the lower bound first, each taken only if exceeded."""
    x = x if x > lo else lo
    return x if x < hi else hi


@njit(cache=True)
def longitudinal(
    speed: float, target: float, integral: float, dt: float
) -> tuple[float, float, float]:
    """Throttle and brake for a `target` speed (m/s), and the updated integral of the error."""
    err = target - speed
    integral = _clip(integral + err * dt, -INTEGRAL_LIMIT, INTEGRAL_LIMIT)
    if target <= 0.0:
        integral = 0.0
    ff = FEED_FORWARD + FEED_FORWARD_PER_SPEED * target if target > 0.0 else 0.0
    throttle = _clip(ff + KP * err + KI * integral, 0.0, 1.0)
    over = -err - BRAKE_DEADBAND
    brake = _clip(KB * over, 0.0, 1.0)
    if over > 0.0:
        throttle = 0.0
    if target <= 0.0 and speed < HOLD_SPEED:
        brake = 1.0
    if target <= 0.0:
        throttle = 0.0
    return throttle, brake, integral
