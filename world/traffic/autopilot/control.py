"""The autopilot's controllers, vectorised over vehicles: pure pursuit steering and a speed PID.

Steering is pure pursuit on a look-ahead point of the planned path: the front
wheel angle that puts the vehicle on the circle through that point,
atan(2 L sin(alpha) / Ld), turned into a steer command by the vehicle's
maximum wheel angle and its steering curve. Speed is a PI controller on the
speed error with a feed-forward term for rolling and air resistance; braking is
proportional to the excess speed, and a target of zero holds the brake. All of it is
compiled for the autopilot's compiled tick (world.traffic.autopilot.kernels.plan_fleet); the arc
tangent between pursuit_tangents and steer_commands stays in numpy.
"""

from __future__ import annotations

import numpy as np

from world.kernels.compiled import njit
from world.physics.vehicle_dynamics import piecewise

__all__ = ["longitudinal", "lookahead_distance", "pursuit_tangents", "steer_commands"]

LOOKAHEAD_MIN = 3.0  # m, from the rear axle
LOOKAHEAD_PER_SPEED = 0.4  # s: the look-ahead grows with speed
KP, KI = 0.35, 0.08  # throttle per m/s of error, per m of integrated error
FEED_FORWARD = 0.12  # throttle that roughly holds a cruising car against its resistances
FEED_FORWARD_PER_SPEED = 0.012
KB = 0.5  # brake per m/s of excess speed
BRAKE_DEADBAND = 0.4  # m/s over the target before braking
INTEGRAL_LIMIT = 4.0
HOLD_SPEED = 1.0  # m/s: below this with a zero target the brake is held fully


@njit(cache=True)
def lookahead_distance(speed: float) -> float:
    """Metres from the rear axle to the pure-pursuit point at `speed` (m/s)."""
    return LOOKAHEAD_MIN + LOOKAHEAD_PER_SPEED * speed


@njit(cache=True)
def pursuit_tangents(pos, cos_yaw, sin_yaw, rear, target, wheelbase):
    """The tangent of each front wheel angle toward `target` points (N, 2+): wheelbase times
    the curvature of the circle from the rear axle (`rear` metres behind `pos` along the
    heading's cosine and sine), tangent to the heading, through the target point. The wheel
    angle is its arc tangent, taken in numpy."""
    n = len(rear)
    out = np.empty(n)
    for v in range(n):
        c, s = cos_yaw[v], sin_yaw[v]
        dx = target[v, 0] - (pos[v, 0] - rear[v] * c)
        dy = target[v, 1] - (pos[v, 1] - rear[v] * s)
        fwd = dx * c + dy * s
        side = -dx * s + dy * c
        dist2 = fwd * fwd + side * side
        dist2 = dist2 if dist2 >= 1e-6 else 1e-6
        out[v] = wheelbase[v] * (2.0 * side / dist2)
    return out


@njit(cache=True)
def steer_commands(delta, max_steer, steer_kmh, steer_factor, speed):
    """Front wheel angles `delta` (rad, + = right) as steer commands in [-1, 1]: over the
    maximum angle that each vehicle's steering curve (rows of `steer_kmh`, `steer_factor`)
    allows at its speed (m/s)."""
    factor = piecewise(steer_kmh, steer_factor, speed * 3.6)
    out = np.empty(len(delta))
    for v in range(len(delta)):
        most = max_steer[v] * factor[v]
        out[v] = _clip(delta[v] / (most if most >= 1e-6 else 1e-6), -1.0, 1.0)
    return out


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
