"""Vehicle dynamics: drivetrain, longitudinal forces and a single-track lateral model, vectorised.

One call of `substep` advances every given vehicle by `dt` with semi-implicit
Euler (velocities first, then positions with the new velocities); there is no
Python loop over vehicles. Everything is float64; the controls arrive as the
float32 the client sent. The model and its limits are described in
docs/world-physics.md; the constants marked "fitted" were tuned against a real
CARLA log (benchmarks/fidelity_carla.py).
"""

from __future__ import annotations

import math

import numpy as np

from world.ground import GroundPlanes
from world.physics_control import VehiclePhysicsControl
from world.state import ActorTable, VehicleTable

__all__ = ["GRAVITY", "load_physics_control", "piecewise", "rest_height", "substep"]

GRAVITY = 9.81
AIR_DENSITY = 1.225  # kg/m³
ROLLING_RESISTANCE = 0.015  # rolling-resistance coefficient
FRONTAL_AREA_SHARE = 0.8  # frontal area = box width * height * this
KINEMATIC_BELOW = 3.0  # m/s: pure kinematic single track below this speed
DYNAMIC_ABOVE = 6.0  # m/s: pure dynamic single track above this speed
UPSHIFT_SHARE = 0.8  # fitted: shift up at up_ratio * max_rpm * this
DOWNSHIFT_SHARE = 1.0  # fitted: shift down at down_ratio * max_rpm * this
SHIFT_SHARE = 0.1  # fitted: a gear change takes gear_switch_time * this
LAUNCH_SHARE = 0.8  # fitted: engaging a gear from neutral takes gear_switch_time * this
TRACTION_SHARE = 0.3  # fitted: share of the tyre friction the drive can use
BRAKE_TORQUE_SCALE = 3.5  # fitted: CARLA's brakes act ~3.5x their N·m (friction caps them)
AUTOBOX_LATENCY = 0.4  # fitted: s after a gear change before the next one (CARLA: ~0.4 s)
# UE4's vehicle input rates (per second, rise and fall): the applied input follows the control
THROTTLE_RATES = (6.0, 10.0)
BRAKE_RATES = (6.0, 10.0)
STEER_RATES = (2.5, 5.0)
CONTACT_TOLERANCE = 0.02  # m: a body this close above its ground is on it
ACKERMANN_GAIN = 0.5  # throttle or brake per m/s of speed error (Ackermann control)
RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)


def rest_height(extent: np.ndarray, box_loc: np.ndarray) -> np.ndarray:
    """Height of the actor's origin above the ground when its box's bottom touches it."""
    return np.maximum(extent[..., 2] - box_loc[..., 2], 0.0)


def piecewise(xs: np.ndarray, ys: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per-row linear interpolation of curves (M, K) (x ascending, padded) at x (M,), clamped."""
    k = xs.shape[1]
    i1 = np.clip((xs <= x[:, None]).sum(axis=1), 1, k - 1)
    i0 = i1 - 1
    rows = np.arange(len(x))
    x0, x1, y0, y1 = xs[rows, i0], xs[rows, i1], ys[rows, i0], ys[rows, i1]
    span = np.where(x1 > x0, x1 - x0, 1.0)
    t = np.clip((x - x0) / span, 0.0, 1.0)
    return y0 + t * (y1 - y0)


def _padded(values: list[float], size: int, fill: float) -> np.ndarray:
    out = np.full(size, fill if not values else values[-1], dtype=np.float64)
    out[: min(len(values), size)] = values[:size]
    return out


def load_physics_control(
    v: VehicleTable, i: int, pc: VehiclePhysicsControl, extent: np.ndarray
) -> None:
    """Writes a VehiclePhysicsControl into vehicle row `i` (SI units; wheels in cm as CARLA)."""
    size = v.torque_rpm.shape[1]
    v.torque_rpm[i] = _padded([p.x for p in pc.torque_curve], size, 0.0)
    v.torque_nm[i] = _padded([p.y for p in pc.torque_curve], size, 0.0)
    v.steer_kmh[i] = _padded([p.x for p in pc.steering_curve], size, 0.0)
    v.steer_factor[i] = _padded([p.y for p in pc.steering_curve], size, 1.0)
    gears = pc.forward_gears
    v.n_gears[i] = max(len(gears), 1)
    v.gear_ratio[i] = _padded([g.ratio for g in gears], size, 1.0)
    v.gear_up[i] = _padded([g.up_ratio for g in gears], size, 1e9)
    v.gear_down[i] = _padded([g.down_ratio for g in gears], size, 0.0)
    v.gear_up[i, v.n_gears[i] - 1] = 1e9  # the top gear never shifts up
    v.max_rpm[i] = pc.max_rpm
    v.moi[i] = pc.moi
    v.damp_full[i] = pc.damping_rate_full_throttle
    v.damp_engaged[i] = pc.damping_rate_zero_throttle_clutch_engaged
    v.damp_disengaged[i] = pc.damping_rate_zero_throttle_clutch_disengaged
    v.clutch[i] = pc.clutch_strength
    v.autobox[i] = pc.use_gear_autobox
    v.switch_time[i] = pc.gear_switch_time
    v.final_ratio[i] = pc.final_ratio
    v.drag[i] = pc.drag_coefficient
    v.area[i] = 4.0 * extent[1] * extent[2] * FRONTAL_AREA_SHARE
    wheels = pc.wheels
    length, width = 2.0 * extent[0], 2.0 * extent[1]
    wheelbase, track = 0.6 * length, 0.8 * width
    if wheels:
        v.wheel_radius[i] = np.mean([w.radius for w in wheels]) / 100.0
        v.brake_torque[i] = sum(w.max_brake_torque for w in wheels)
        v.handbrake_torque[i] = sum(w.max_handbrake_torque for w in wheels)
        v.friction[i] = np.mean([w.tire_friction for w in wheels])
        v.lat_stiff[i] = np.mean([w.lat_stiff_value for w in wheels])
        v.max_steer[i] = math.radians(max(w.max_steer_angle for w in wheels))
        front = [w for w in wheels if w.max_steer_angle > 0.0] or wheels[:1]
        rear = [w for w in wheels if w.max_steer_angle <= 0.0] or wheels[-1:]
        p = np.array([[w.position.x, w.position.y, w.position.z] for w in wheels]) / 100.0
        pf = np.array([[w.position.x, w.position.y, w.position.z] for w in front]) / 100.0
        pr = np.array([[w.position.x, w.position.y, w.position.z] for w in rear]) / 100.0
        measured = float(np.linalg.norm(pf.mean(axis=0) - pr.mean(axis=0)))
        if measured > 0.5:
            wheelbase = measured
        if len(p) >= 2 and float(np.linalg.norm(p[0] - p[1])) > 0.3:
            track = float(np.linalg.norm(p[0] - p[1]))
    v.wheelbase[i] = wheelbase
    v.cg_front[i] = wheelbase / 2.0
    v.track[i] = track


def _update_gears(
    v: VehicleTable,
    k: np.ndarray,
    u: np.ndarray,
    rpm: np.ndarray,
    throttle: np.ndarray,
    dt: float,
) -> np.ndarray:
    """Runs the automatic gearbox (or the manual gear) one substep; returns the gears."""
    gear, target, timer = v.gear[k], v.target_gear[k], v.shift_timer[k]
    shifting = timer > 0.0
    timer = np.where(shifting, timer - dt, timer)
    done = shifting & (timer <= 0.0)
    gear = np.where(done, target, gear)
    shifting &= ~done
    reverse = v.reverse[k]
    n = v.n_gears[k]
    width = v.gear_up.shape[1]
    g_index = np.clip(gear - 1, 0, width - 1)
    rows = np.arange(len(k))
    up = v.gear_up[k][rows, g_index] * v.max_rpm[k] * UPSHIFT_SHARE
    down = v.gear_down[k][rows, g_index] * v.max_rpm[k] * DOWNSHIFT_SHARE
    want = gear.copy()
    moving_slow = np.abs(u) < 0.5
    start = (gear == 0) & (throttle > 0.0)
    want = np.where(start, np.where(reverse, -1, 1), want)
    want = np.where((gear >= 1) & reverse & moving_slow & (throttle > 0.0), -1, want)
    want = np.where((gear == -1) & ~reverse & moving_slow & (throttle > 0.0), 1, want)
    settled = ~done & (v.since_shift[k] >= AUTOBOX_LATENCY)
    shift_up = settled & (gear >= 1) & (gear < n) & (rpm > up)
    shift_down = settled & (gear > 1) & (rpm < down)
    want = np.where(~reverse & shift_up, gear + 1, want)
    want = np.where(~reverse & shift_down, gear - 1, want)
    auto = v.autobox[k] & ~v.manual_gear_shift[k]
    begin = auto & ~shifting & (want != gear)
    target = np.where(begin, want, target)
    share = np.where(gear == 0, LAUNCH_SHARE, SHIFT_SHARE)
    timer = np.where(begin, v.switch_time[k] * share, timer)
    gear = np.where(begin, 0, gear)
    manual = ~auto
    gear = np.where(manual, np.clip(v.control_gear[k], -1, n), gear)
    v.gear[k], v.target_gear[k], v.shift_timer[k] = gear, target, np.maximum(timer, 0.0)
    v.since_shift[k] = np.where(done, 0.0, v.since_shift[k] + dt)
    return gear


def _total_ratio(v: VehicleTable, k: np.ndarray, gear: np.ndarray) -> np.ndarray:
    """Engine turns per wheel turn in `gear` (0 in neutral; reverse uses the first gear)."""
    index = np.clip(np.abs(gear) - 1, 0, v.gear_ratio.shape[1] - 1)
    ratio = v.gear_ratio[k][np.arange(len(k)), index]
    return np.where(gear != 0, ratio * v.final_ratio[k], 0.0)


def _drivetrain(
    v: VehicleTable,
    k: np.ndarray,
    u: np.ndarray,
    ahead: np.ndarray,
    throttle: np.ndarray,
    total_ratio: np.ndarray,
    mass: np.ndarray,
    dt: float,
) -> tuple[np.ndarray, np.ndarray]:
    """New engine speed (rad/s) and the clutch's force at the wheels (N, < 0: engine braking).

    The engine (inertia `moi`) turns under its torque at throttle and its damping (the
    full-throttle and zero-throttle rates blended by throttle; the clutch-disengaged rate in
    neutral) and is tied to the wheels by the clutch, torque K (w_e - G w_wheels). The two
    are integrated together implicitly in the clutch coupling, so a stiff clutch stays stable;
    `ahead` is the wheels' acceleration from every other force, so a steady state is exact.
    """
    radius = v.wheel_radius[k]
    engaged = total_ratio > 0.0
    clutch = np.where(engaged, v.clutch[k], 0.0)
    zero_throttle = np.where(engaged, v.damp_engaged[k], v.damp_disengaged[k])
    damping = zero_throttle + (v.damp_full[k] - zero_throttle) * throttle
    inertia = np.maximum(v.moi[k], 1e-6)
    omega = v.rpm[k] / RPM_PER_RAD_S
    rpm = v.rpm[k]
    torque = throttle * piecewise(v.torque_rpm[k], v.torque_nm[k], rpm)
    torque = np.where(rpm > v.max_rpm[k], 0.0, torque)
    geared = np.maximum(np.abs(u) + dt * ahead, 0.0) / radius * total_ratio
    a = dt * clutch / inertia
    b = dt * clutch * (total_ratio / radius) ** 2 / mass
    c = dt * damping / inertia
    x0 = omega + dt * torque / inertia
    omega_new = (x0 * (1.0 + b) + a * geared) / ((1.0 + c + a) * (1.0 + b) - a * b)
    geared_new = (geared + b * omega_new) / (1.0 + b)
    omega_new = np.clip(omega_new, 0.0, v.max_rpm[k] / RPM_PER_RAD_S)
    force = clutch * (omega_new - geared_new) * total_ratio / radius
    return omega_new, force


def _toward(
    current: np.ndarray, target: np.ndarray, rates: tuple[float, float], dt: float
) -> np.ndarray:
    """Moves inputs toward their targets at the rise rate (away from 0) or the fall rate."""
    rate = np.where(np.abs(target) > np.abs(current), rates[0], rates[1]) * dt
    return current + np.clip(target - current, -rate, rate)


def _inputs(v: VehicleTable, k: np.ndarray, u: np.ndarray, dt: float):
    """Throttle, steer and brake as applied this substep (rate-limited controls)."""
    throttle = v.throttle[k].astype(np.float64)
    steer = v.steer[k].astype(np.float64)
    brake = v.brake[k].astype(np.float64)
    ack = v.ackermann[k]
    if ack.any():
        err = v.ack_speed[k].astype(np.float64) - u
        throttle = np.where(ack, np.clip(err * ACKERMANN_GAIN, 0.0, 1.0), throttle)
        brake = np.where(ack, np.clip(-err * ACKERMANN_GAIN, 0.0, 1.0), brake)
        steer = np.where(ack, np.clip(v.ack_steer[k] / v.max_steer[k], -1.0, 1.0), steer)
    throttle = _toward(v.in_throttle[k], throttle, THROTTLE_RATES, dt)
    brake = _toward(v.in_brake[k], brake, BRAKE_RATES, dt)
    steer = _toward(v.in_steer[k], steer, STEER_RATES, dt)
    v.in_throttle[k], v.in_brake[k], v.in_steer[k] = throttle, brake, steer
    return throttle, steer, brake


def substep(
    a: ActorTable, v: VehicleTable, rows: np.ndarray, ground: GroundPlanes, dt: float
) -> None:
    """Advances the vehicles of actor `rows` (with ground planes in the same order) by dt."""
    k = a.vrow[rows]
    pos, rot, vel = a.pos[rows], a.rot[rows], a.vel[rows]
    mass = a.mass[rows]
    yaw = np.radians(rot[:, 1])
    c, s = np.cos(yaw), np.sin(yaw)
    u = vel[:, 0] * c + vel[:, 1] * s
    lat = -vel[:, 0] * s + vel[:, 1] * c
    r = np.radians(a.angvel[rows, 2])
    force = a.force[rows]
    f_long = force[:, 0] * c + force[:, 1] * s
    f_lat = -force[:, 0] * s + force[:, 1] * c

    zg = ground.height_at(pos[:, :2])
    rest = rest_height(a.extent[rows], a.box_loc[rows])
    grounded = ground.found & (pos[:, 2] <= zg + rest + CONTACT_TOLERANCE)

    throttle, steer, brake = _inputs(v, k, u, dt)
    radius = v.wheel_radius[k]
    gear = _update_gears(v, k, u, v.rpm[k], throttle, dt)
    total_ratio = _total_ratio(v, k, gear)
    direction = np.where(gear < 0, -1.0, 1.0)
    friction_cap = v.friction[k] * mass * GRAVITY
    pitch, roll = np.radians(rot[:, 0]), np.radians(rot[:, 2])
    other = (
        f_long
        - 0.5 * AIR_DENSITY * v.drag[k] * v.area[k] * u * np.abs(u)
        - mass * GRAVITY * np.sin(pitch)
    )
    brakes = (brake * v.brake_torque[k] + v.hand_brake[k] * v.handbrake_torque[k]) / radius
    brakes = np.minimum(BRAKE_TORQUE_SCALE * brakes, friction_cap)
    resist = brakes + ROLLING_RESISTANCE * mass * GRAVITY
    # what the wheels would do without the clutch, seen from the engine (along its direction)
    ahead = (other * direction - np.where(u != 0.0, resist, 0.0)) / mass
    omega_engine, wheel_force = _drivetrain(v, k, u, ahead, throttle, total_ratio, mass, dt)
    along = np.minimum(wheel_force, TRACTION_SHARE * friction_cap) * direction + other
    m_eff = mass
    u1 = u + along / m_eff * dt
    slow = resist / m_eff * dt
    u_new = np.where(np.abs(u1) <= slow, 0.0, u1 - np.sign(u1) * slow)

    # lateral: dynamic single track (implicit in its linear part) blended with the kinematic one
    delta = steer * v.max_steer[k] * piecewise(v.steer_kmh[k], v.steer_factor[k], np.abs(u) * 3.6)
    wheelbase = v.wheelbase[k]
    cg_a = v.cg_front[k]
    cg_b = wheelbase - cg_a
    yaw_inertia = mass * cg_a * cg_b
    load_f, load_r = mass * GRAVITY * cg_b / wheelbase, mass * GRAVITY * cg_a / wheelbase
    cf, cr = v.lat_stiff[k] * load_f, v.lat_stiff[k] * load_r
    uu = np.maximum(np.abs(u_new), 0.5)
    a11 = -(cf + cr) / (mass * uu)
    a12 = -(cg_a * cf - cg_b * cr) / (mass * uu) - uu
    a21 = -(cg_a * cf - cg_b * cr) / (yaw_inertia * uu)
    a22 = -(cg_a**2 * cf + cg_b**2 * cr) / (yaw_inertia * uu)
    rhs_v = lat + dt * (cf * delta + f_lat + mass * GRAVITY * np.sin(roll)) / mass
    rhs_r = r + dt * (cg_a * cf * delta / yaw_inertia + a.torque[rows, 2] / yaw_inertia)
    m11, m12, m21, m22 = 1.0 - dt * a11, -dt * a12, -dt * a21, 1.0 - dt * a22
    det = m11 * m22 - m12 * m21
    lat_dyn = (m22 * rhs_v - m12 * rhs_r) / det
    r_dyn = (m11 * rhs_r - m21 * rhs_v) / det
    fyf = cf * (delta - (lat_dyn + cg_a * r_dyn) / uu)
    fyr = -cr * (lat_dyn - cg_b * r_dyn) / uu
    cap_f, cap_r = v.friction[k] * load_f, v.friction[k] * load_r
    cap_r = np.where(v.hand_brake[k], 0.5 * cap_r, cap_r)
    sliding = (np.abs(fyf) > cap_f) | (np.abs(fyr) > cap_r)
    if sliding.any():
        fyf0 = np.clip(cf * (delta - (lat + cg_a * r) / uu), -cap_f, cap_f)
        fyr0 = np.clip(-cr * (lat - cg_b * r) / uu, -cap_r, cap_r)
        lat_slide = lat + dt * ((fyf0 + fyr0 + f_lat) / mass - uu * r)
        r_slide = r + dt * (cg_a * fyf0 - cg_b * fyr0 + a.torque[rows, 2]) / yaw_inertia
        lat_dyn = np.where(sliding, lat_slide, lat_dyn)
        r_dyn = np.where(sliding, r_slide, r_dyn)
    r_kin = u_new * np.tan(delta) / wheelbase
    lat_kin = r_kin * cg_b
    w = np.clip((u_new - KINEMATIC_BELOW) / (DYNAMIC_ABOVE - KINEMATIC_BELOW), 0.0, 1.0)
    lat_new = w * lat_dyn + (1.0 - w) * lat_kin
    r_new = w * r_dyn + (1.0 - w) * r_kin

    # constant-velocity vehicles move at their set local velocity, heading kept
    const = a.const_vel[rows]
    cv = a.const_vel_local[rows]
    u_new = np.where(const, cv[:, 0], u_new)
    lat_new = np.where(const, cv[:, 1], lat_new)
    r_new = np.where(const, 0.0, r_new)
    # airborne vehicles keep their horizontal motion (no tyre forces)
    free = ~grounded & ~const
    u_new = np.where(free, u, u_new)
    lat_new = np.where(free, lat, lat_new)
    r_new = np.where(free, r, r_new)

    vx, vy = u_new * c - lat_new * s, u_new * s + lat_new * c
    pos[:, 0] += vx * dt
    pos[:, 1] += vy * dt
    rot[:, 1] += np.degrees(r_new * dt)
    _vertical(a, rows, pos, rot, vel, grounded, ground, rest, dt)
    vel[:, 0], vel[:, 1] = vx, vy
    a.pos[rows], a.rot[rows], a.vel[rows] = pos, rot, vel
    a.angvel[rows, 2] = np.degrees(r_new)
    v.rpm[k] = omega_engine * RPM_PER_RAD_S
    v.steer_angle[k] = delta
    v.wheel_spin[k] = np.mod(v.wheel_spin[k] + u_new / radius * dt, 2.0 * math.pi)


def _vertical(
    a: ActorTable,
    rows: np.ndarray,
    pos: np.ndarray,
    rot: np.ndarray,
    vel: np.ndarray,
    grounded: np.ndarray,
    ground: GroundPlanes,
    rest: np.ndarray,
    dt: float,
) -> None:
    """Free fall (semi-implicit Euler) off the ground; on it, z, pitch and roll follow it."""
    mass = a.mass[rows]
    vz = vel[:, 2] + a.force[rows, 2] / mass * dt
    vz = np.where(a.gravity[rows] & ~grounded, vz - GRAVITY * dt, vz)
    vz = np.where(grounded, np.maximum(vz, 0.0), vz)
    z_air = pos[:, 2] + vz * dt
    floor = ground.height_at(pos[:, :2]) + rest
    lands = ground.found & (z_air <= floor)
    z_new = np.where(lands | (grounded & (vz <= 0.0)), floor, z_air)
    vel[:, 2] = np.where(lands | grounded, (z_new - pos[:, 2]) / dt, vz)
    vel[:, 2] = np.where(lands & ~grounded, 0.0, vel[:, 2])
    pos[:, 2] = z_new
    on = lands | grounded
    if on.any():
        yaw = np.radians(rot[:, 1])
        c, s = np.cos(yaw), np.sin(yaw)
        slope_f = ground.grad[:, 0] * c + ground.grad[:, 1] * s
        slope_r = -ground.grad[:, 0] * s + ground.grad[:, 1] * c
        rot[:, 0] = np.where(on, np.degrees(np.arctan(slope_f)), rot[:, 0])
        rot[:, 2] = np.where(on, -np.degrees(np.arctan(slope_r)), rot[:, 2])
