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

from world.errors import WorldError
from world.ground import GroundPlanes
from world.physics_control import VehiclePhysicsControl
from world.state import ActorTable, VehicleTable

__all__ = ["GRAVITY", "Fleet", "load_physics_control", "piecewise", "rest_height", "substep"]

GRAVITY = 9.81
AIR_DENSITY = 1.225  # kg/m³
ROLLING_RESISTANCE = 0.015  # rolling-resistance coefficient
FRONTAL_AREA_SHARE = 0.8  # frontal area = box width * height * this
KINEMATIC_BELOW = 3.0  # m/s: pure kinematic single track below this speed
DYNAMIC_ABOVE = 6.0  # m/s: pure dynamic single track above this speed
BLEND_SPAN = DYNAMIC_ABOVE - KINEMATIC_BELOW
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
    i1 = np.minimum(np.maximum(np.count_nonzero(xs <= x[:, None], axis=1), 1), k - 1)
    i0 = i1 - 1
    rows = np.arange(len(x))
    x0, x1, y0, y1 = xs[rows, i0], xs[rows, i1], ys[rows, i0], ys[rows, i1]
    span = np.where(x1 > x0, x1 - x0, 1.0)
    t = np.minimum(np.maximum((x - x0) / span, 0.0), 1.0)
    return y0 + t * (y1 - y0)


def _padded(values: list[float], size: int, fill: float) -> np.ndarray:
    out = np.full(size, fill if not values else values[-1], dtype=np.float64)
    out[: min(len(values), size)] = values[:size]
    return out


def load_physics_control(
    v: VehicleTable, i: int, pc: VehiclePhysicsControl, extent: np.ndarray
) -> None:
    """Writes a VehiclePhysicsControl into vehicle row `i` (wheel positions: vehicle frame, cm).

    WorldError when a curve or the gears have more entries than the table holds, or a wheel
    radius, the mass or max_rpm is not > 0.
    """
    size = v.torque_rpm.shape[1]
    for name, entries in (
        ("torque_curve", pc.torque_curve),
        ("steering_curve", pc.steering_curve),
        ("forward_gears", pc.forward_gears),
    ):
        if len(entries) > size:
            raise WorldError(
                f"apply_physics_control: {name} has {len(entries)} entries, "
                f"at most {size} are supported"
            )
    bad = [w.radius for w in pc.wheels if not w.radius > 0.0]
    if bad or not pc.mass > 0.0 or not pc.max_rpm > 0.0:
        raise WorldError(
            f"apply_physics_control: mass, max_rpm and wheel radii must be > 0 "
            f"(found mass {pc.mass}, max_rpm {pc.max_rpm}, radii {bad})"
        )
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
    length = 2.0 * extent[0]
    wheelbase, cg_front = 0.6 * length, 0.3 * length
    if wheels:
        v.wheel_radius[i] = np.mean([w.radius for w in wheels]) / 100.0
        v.brake_torque[i] = sum(w.max_brake_torque for w in wheels)
        v.handbrake_torque[i] = sum(w.max_handbrake_torque for w in wheels)
        v.friction[i] = np.mean([w.tire_friction for w in wheels])
        v.lat_stiff[i] = np.mean([w.lat_stiff_value for w in wheels])
        v.max_steer[i] = math.radians(max(w.max_steer_angle for w in wheels))
        # wheel positions in the vehicle's frame, cm: the axles' x about the origin (the CG)
        steered = [w.max_steer_angle > 0.0 for w in wheels]
        xs = np.array([w.position.x for w in wheels]) / 100.0
        front = xs[np.array(steered)] if any(steered) else xs[:1]
        rear = xs[~np.array(steered)] if not all(steered) else xs[-1:]
        if front.mean() > 0.0 > rear.mean():
            wheelbase, cg_front = float(front.mean() - rear.mean()), float(front.mean())
    v.wheelbase[i] = wheelbase
    v.cg_front[i] = cg_front


class Fleet:
    """The stepped vehicles' parameters (gathered once) and, per tick, controls and state.

    Parameters change only with a physics control, so a fleet is kept across ticks while
    its vehicles stay the same (`World` keeps it); `refresh` reads each tick's controls,
    body flags and drivetrain state, and `store` writes the drivetrain state back. Poses
    and velocities stay in the actor table, where collisions change them between substeps.
    """

    def __init__(self, a: ActorTable, v: VehicleTable, rows: np.ndarray) -> None:
        k = a.vrow[rows]
        self.rows, self.k = rows, k
        self.index = np.arange(len(rows))
        mass = a.mass[rows]
        self.mass = mass
        self.radius = v.wheel_radius[k]
        # engine and gearbox
        self.max_rpm = v.max_rpm[k]
        self.inertia = np.maximum(v.moi[k], 1e-6)
        self.damp_full, self.damp_engaged = v.damp_full[k], v.damp_engaged[k]
        self.damp_disengaged, self.clutch = v.damp_disengaged[k], v.clutch[k]
        self.switch_time, self.final_ratio = v.switch_time[k], v.final_ratio[k]
        self.torque_rpm, self.torque_nm = v.torque_rpm[k], v.torque_nm[k]
        # one torque curve for every vehicle (one blueprint): a single np.interp
        self.shared_curve = bool(
            len(rows)
            and np.all(self.torque_rpm == self.torque_rpm[0])
            and np.all(self.torque_nm == self.torque_nm[0])
        )
        self.gear_ratio, self.n_gears = v.gear_ratio[k], v.n_gears[k]
        self.up_rpm = v.gear_up[k] * (self.max_rpm * UPSHIFT_SHARE)[:, None]
        self.down_rpm = v.gear_down[k] * (self.max_rpm * DOWNSHIFT_SHARE)[:, None]
        self.autobox = v.autobox[k]
        # longitudinal forces
        self.drag = 0.5 * AIR_DENSITY * v.drag[k] * v.area[k]
        self.friction_cap = v.friction[k] * mass * GRAVITY
        self.traction = TRACTION_SHARE * self.friction_cap
        self.brake_force = BRAKE_TORQUE_SCALE * v.brake_torque[k] / self.radius
        self.hand_force = BRAKE_TORQUE_SCALE * v.handbrake_torque[k] / self.radius
        self.rolling = ROLLING_RESISTANCE * mass * GRAVITY
        # single track
        self.steer_kmh, self.steer_factor = v.steer_kmh[k], v.steer_factor[k]
        self.max_steer = v.max_steer[k]
        self.wheelbase, self.cg_a = v.wheelbase[k], v.cg_front[k]
        self.cg_b = self.wheelbase - self.cg_a
        self.yaw_inertia = mass * self.cg_a * self.cg_b
        load_f = mass * GRAVITY * self.cg_b / self.wheelbase
        load_r = mass * GRAVITY * self.cg_a / self.wheelbase
        self.cf, self.cr = v.lat_stiff[k] * load_f, v.lat_stiff[k] * load_r
        self.cap_f = v.friction[k] * load_f
        self.grip_r = v.friction[k] * load_r
        self.rest = rest_height(a.extent[rows], a.box_loc[rows])

    def refresh(self, a: ActorTable, v: VehicleTable) -> None:
        """Reads this tick's controls, body flags, pushes and drivetrain state."""
        rows, k = self.rows, self.k
        self.throttle = v.throttle[k].astype(np.float64)
        self.steer = v.steer[k].astype(np.float64)
        self.brake = v.brake[k].astype(np.float64)
        self.hand_brake = v.hand_brake[k]
        self.reverse = v.reverse[k]
        self.auto = self.autobox & ~v.manual_gear_shift[k]
        self.any_manual = bool((~self.auto).any())
        self.any_reverse = bool(self.reverse.any())
        self.control_gear = v.control_gear[k]
        self.ackermann = v.ackermann[k]
        self.ack_speed = v.ack_speed[k].astype(np.float64)
        self.ack_steer = v.ack_steer[k].astype(np.float64)
        self.cap_r = np.where(self.hand_brake, 0.5, 1.0) * self.grip_r
        # the steering curve at the tick's starting speed (km/h)
        speed = np.hypot(a.vel[rows, 0], a.vel[rows, 1]) * 3.6
        self.max_steer_now = self.max_steer * piecewise(self.steer_kmh, self.steer_factor, speed)
        self.gravity = a.gravity[rows]
        self.const = a.const_vel[rows]
        self.const_local = a.const_vel_local[rows]
        self.force = a.force[rows]
        self.torque_z = a.torque[rows, 2]
        # an upward push or velocity may lift a vehicle off its ground this tick
        self.lifted = bool((self.force[:, 2] > 0.0).any() or (a.vel[rows, 2] > 0.0).any())
        self.gear, self.target = v.gear[k], v.target_gear[k]
        self.timer, self.since = v.shift_timer[k], v.since_shift[k]
        self.rpm = v.rpm[k]
        self.in_throttle, self.in_brake = v.in_throttle[k], v.in_brake[k]
        self.in_steer = v.in_steer[k]
        self.wheel_spin, self.steer_angle = v.wheel_spin[k], v.steer_angle[k]
        _shift_limits(self)

    def store(self, v: VehicleTable) -> None:
        k = self.k
        v.gear[k], v.target_gear[k] = self.gear, self.target
        v.shift_timer[k], v.since_shift[k] = self.timer, self.since
        v.rpm[k] = self.rpm
        v.in_throttle[k], v.in_brake[k], v.in_steer[k] = (
            self.in_throttle,
            self.in_brake,
            self.in_steer,
        )
        v.wheel_spin[k], v.steer_angle[k] = self.wheel_spin, self.steer_angle


def _shift_limits(f: Fleet) -> None:
    """The engine speeds that shift each vehicle up or down from its current gear."""
    gear = f.gear
    g_index = np.minimum(np.maximum(gear - 1, 0), f.up_rpm.shape[1] - 1)
    forward = ~f.reverse & (gear >= 1)
    f.up_now = np.where(forward & (gear < f.n_gears), f.up_rpm[f.index, g_index], np.inf)
    f.down_now = np.where(forward & (gear > 1), f.down_rpm[f.index, g_index], -np.inf)


def _update_gears(f: Fleet, u: np.ndarray, throttle: np.ndarray, dt: float) -> np.ndarray:
    """Runs the automatic gearbox (or the manual gear) one substep; returns the gears.

    Most substeps change nothing, so each step is skipped when no vehicle needs it.
    """
    shifting = f.timer > 0.0
    done = None
    if shifting.any():
        f.timer = np.maximum(np.where(shifting, f.timer - dt, f.timer), 0.0)
        done = shifting & (f.timer <= 0.0)
        if done.any():
            f.gear = np.where(done, f.target, f.gear)
            f.since = np.where(done, 0.0, f.since)
            _shift_limits(f)
            shifting &= ~done
        else:
            done = None
    gear = f.gear
    want = gear
    pressing = throttle > 0.0
    if pressing.any() or f.any_reverse:
        reverse = f.reverse
        moving_slow = np.abs(u) < 0.5
        want = np.where((gear == 0) & pressing, np.where(reverse, -1, 1), want)
        want = np.where((gear >= 1) & reverse & moving_slow & pressing, -1, want)
        want = np.where((gear == -1) & ~reverse & moving_slow & pressing, 1, want)
    rpm = f.rpm
    up, down = rpm > f.up_now, rpm < f.down_now
    if up.any() or down.any():
        settled = f.since >= AUTOBOX_LATENCY
        if done is not None:
            settled &= ~done
        want = np.where(settled & up, gear + 1, np.where(settled & down, gear - 1, want))
    begin = f.auto & ~shifting & (want != gear)
    if begin.any():
        f.target = np.where(begin, want, f.target)
        share = np.where(gear == 0, LAUNCH_SHARE, SHIFT_SHARE)
        f.timer = np.where(begin, f.switch_time * share, f.timer)
        f.gear = gear = np.where(begin, 0, gear)
        _shift_limits(f)
    if f.any_manual:
        f.gear = gear = np.where(
            f.auto, gear, np.minimum(np.maximum(f.control_gear, -1), f.n_gears)
        )
        _shift_limits(f)
    f.since = f.since + dt
    if done is not None:
        f.since = np.where(done, 0.0, f.since)
    return gear


def _total_ratio(f: Fleet, gear: np.ndarray) -> np.ndarray:
    """Engine turns per wheel turn in `gear` (0 in neutral; reverse uses the first gear)."""
    index = np.minimum(np.maximum(np.abs(gear) - 1, 0), f.gear_ratio.shape[1] - 1)
    return np.where(gear != 0, f.gear_ratio[f.index, index] * f.final_ratio, 0.0)


def _drivetrain(
    f: Fleet,
    u: np.ndarray,
    ahead: np.ndarray,
    throttle: np.ndarray,
    total_ratio: np.ndarray,
    dt: float,
) -> np.ndarray:
    """Advances the engine speed; returns the clutch's force at the wheels (N, < 0: braking).

    The engine (inertia `moi`) turns under its torque at throttle and its damping (the
    full-throttle and zero-throttle rates blended by throttle; the clutch-disengaged rate in
    neutral) and is tied to the wheels by the clutch, torque K (w_e - G w_wheels). The two
    are integrated together implicitly in the clutch coupling, so a stiff clutch stays stable;
    `ahead` is the wheels' acceleration from every other force, so a steady state is exact.
    """
    engaged = total_ratio > 0.0
    clutch = np.where(engaged, f.clutch, 0.0)
    zero_throttle = np.where(engaged, f.damp_engaged, f.damp_disengaged)
    damping = zero_throttle + (f.damp_full - zero_throttle) * throttle
    rpm = f.rpm
    if f.shared_curve:
        torque = throttle * np.interp(rpm, f.torque_rpm[0], f.torque_nm[0])
    else:
        torque = throttle * piecewise(f.torque_rpm, f.torque_nm, rpm)
    torque = np.where(rpm > f.max_rpm, 0.0, torque)
    per_radius = total_ratio / f.radius
    geared = np.maximum(np.abs(u) + dt * ahead, 0.0) * per_radius
    a = dt * clutch / f.inertia
    b = dt * clutch * per_radius**2 / f.mass
    c = dt * damping / f.inertia
    x0 = rpm / RPM_PER_RAD_S + dt * torque / f.inertia
    omega = (x0 * (1.0 + b) + a * geared) / ((1.0 + c + a) * (1.0 + b) - a * b)
    geared_new = (geared + b * omega) / (1.0 + b)
    omega = np.minimum(np.maximum(omega, 0.0), f.max_rpm / RPM_PER_RAD_S)
    f.rpm = omega * RPM_PER_RAD_S
    return clutch * (omega - geared_new) * per_radius


def _toward(
    current: np.ndarray, target: np.ndarray, rates: tuple[float, float], dt: float
) -> np.ndarray:
    """Moves inputs toward their targets at the rise rate (away from 0) or the fall rate."""
    rate = np.where(np.abs(target) > np.abs(current), rates[0], rates[1]) * dt
    return current + np.minimum(np.maximum(target - current, -rate), rate)


def _inputs(f: Fleet, u: np.ndarray, dt: float):
    """Throttle, steer and brake as applied this substep (rate-limited controls)."""
    throttle, steer, brake = f.throttle, f.steer, f.brake
    ack = f.ackermann
    if ack.any():
        err = f.ack_speed - u
        throttle = np.where(ack, np.clip(err * ACKERMANN_GAIN, 0.0, 1.0), throttle)
        brake = np.where(ack, np.clip(-err * ACKERMANN_GAIN, 0.0, 1.0), brake)
        steer = np.where(ack, np.clip(f.ack_steer / f.max_steer, -1.0, 1.0), steer)
    # inputs that reached their controls stay there (the usual case: skip the ramps)
    if not np.array_equal(f.in_throttle, throttle):
        f.in_throttle = _toward(f.in_throttle, throttle, THROTTLE_RATES, dt)
    if not np.array_equal(f.in_brake, brake):
        f.in_brake = _toward(f.in_brake, brake, BRAKE_RATES, dt)
    if not np.array_equal(f.in_steer, steer):
        f.in_steer = _toward(f.in_steer, steer, STEER_RATES, dt)
    return f.in_throttle, f.in_steer, f.in_brake


def substep(a: ActorTable, f: Fleet, ground: GroundPlanes, dt: float) -> None:
    """Advances the vehicles of `f` (ground planes in the same order) by dt."""
    rows, mass = f.rows, f.mass
    pos, rot, vel = a.pos[rows], a.rot[rows], a.vel[rows]
    yaw = np.radians(rot[:, 1])
    c, s = np.cos(yaw), np.sin(yaw)
    u = vel[:, 0] * c + vel[:, 1] * s
    lat = -vel[:, 0] * s + vel[:, 1] * c
    r = np.radians(a.angvel[rows, 2])
    f_long = f.force[:, 0] * c + f.force[:, 1] * s
    f_lat = -f.force[:, 0] * s + f.force[:, 1] * c
    grounded = ground.found & (
        pos[:, 2] <= ground.height_at(pos[:, :2]) + f.rest + CONTACT_TOLERANCE
    )

    throttle, steer, brake = _inputs(f, u, dt)
    gear = _update_gears(f, u, throttle, dt)
    total_ratio = _total_ratio(f, gear)
    direction = np.where(gear < 0, -1.0, 1.0)
    pitch, roll = np.radians(rot[:, 0]), np.radians(rot[:, 2])
    other = f_long - f.drag * u * np.abs(u) - mass * GRAVITY * np.sin(pitch)
    brakes = np.minimum(brake * f.brake_force + f.hand_brake * f.hand_force, f.friction_cap)
    resist = brakes + f.rolling
    # what the wheels would do without the clutch, seen from the engine (along its direction)
    ahead = (other * direction - np.where(u != 0.0, resist, 0.0)) / mass
    wheel_force = _drivetrain(f, u, ahead, throttle, total_ratio, dt)
    along = np.minimum(wheel_force, f.traction) * direction + other
    u1 = u + along / mass * dt
    slow = resist / mass * dt
    u_new = np.where(np.abs(u1) <= slow, 0.0, u1 - np.sign(u1) * slow)

    # lateral: dynamic single track (implicit in its linear part) blended with the kinematic one
    delta = steer * f.max_steer_now
    cg_a, cg_b, cf, cr, iz = f.cg_a, f.cg_b, f.cf, f.cr, f.yaw_inertia
    w = np.minimum(np.maximum((u_new - KINEMATIC_BELOW) / BLEND_SPAN, 0.0), 1.0)
    r_kin = u_new * np.tan(delta) / f.wheelbase
    lat_new, r_new = r_kin * cg_b, r_kin
    dynamic = w > 0.0
    if dynamic.any():
        uu = np.maximum(np.abs(u_new), 0.5)
        a11 = -(cf + cr) / (mass * uu)
        a12 = -(cg_a * cf - cg_b * cr) / (mass * uu) - uu
        a21 = -(cg_a * cf - cg_b * cr) / (iz * uu)
        a22 = -(cg_a**2 * cf + cg_b**2 * cr) / (iz * uu)
        rhs_v = lat + dt * (cf * delta + f_lat + mass * GRAVITY * np.sin(roll)) / mass
        rhs_r = r + dt * (cg_a * cf * delta + f.torque_z) / iz
        m11, m12, m21, m22 = 1.0 - dt * a11, -dt * a12, -dt * a21, 1.0 - dt * a22
        det = m11 * m22 - m12 * m21
        lat_dyn = (m22 * rhs_v - m12 * rhs_r) / det
        r_dyn = (m11 * rhs_r - m21 * rhs_v) / det
        fyf = cf * (delta - (lat_dyn + cg_a * r_dyn) / uu)
        fyr = -cr * (lat_dyn - cg_b * r_dyn) / uu
        sliding = (np.abs(fyf) > f.cap_f) | (np.abs(fyr) > f.cap_r)
        if sliding.any():
            fyf0 = np.clip(cf * (delta - (lat + cg_a * r) / uu), -f.cap_f, f.cap_f)
            fyr0 = np.clip(-cr * (lat - cg_b * r) / uu, -f.cap_r, f.cap_r)
            lat_slide = lat + dt * ((fyf0 + fyr0 + f_lat) / mass - uu * r)
            r_slide = r + dt * (cg_a * fyf0 - cg_b * fyr0 + f.torque_z) / iz
            lat_dyn = np.where(sliding, lat_slide, lat_dyn)
            r_dyn = np.where(sliding, r_slide, r_dyn)
        lat_new = w * lat_dyn + (1.0 - w) * lat_new
        r_new = w * r_dyn + (1.0 - w) * r_new

    # constant-velocity vehicles move at their set local velocity, heading kept;
    # airborne vehicles keep their horizontal motion (no tyre forces)
    free = ~grounded & ~f.const
    u_new = np.where(f.const, f.const_local[:, 0], np.where(free, u, u_new))
    lat_new = np.where(f.const, f.const_local[:, 1], np.where(free, lat, lat_new))
    r_new = np.where(f.const, 0.0, np.where(free, r, r_new))

    vx, vy = u_new * c - lat_new * s, u_new * s + lat_new * c
    pos[:, 0] += vx * dt
    pos[:, 1] += vy * dt
    rot[:, 1] += np.degrees(r_new * dt)
    _vertical(f, pos, rot, vel, grounded, ground, dt)
    vel[:, 0], vel[:, 1] = vx, vy
    a.pos[rows], a.rot[rows], a.vel[rows] = pos, rot, vel
    a.angvel[rows, 2] = np.degrees(r_new)
    f.steer_angle = delta
    f.wheel_spin = np.remainder(f.wheel_spin + u_new / f.radius * dt, 2.0 * math.pi)


def _vertical(
    f: Fleet,
    pos: np.ndarray,
    rot: np.ndarray,
    vel: np.ndarray,
    grounded: np.ndarray,
    ground: GroundPlanes,
    dt: float,
) -> None:
    """Free fall (semi-implicit Euler) off the ground; on it, z, pitch and roll follow it."""
    floor = ground.height_at(pos[:, :2]) + f.rest
    if grounded.all() and not f.lifted:
        # every vehicle stands on its ground and nothing lifts it: follow the ground
        vel[:, 2] = (floor - pos[:, 2]) / dt
        pos[:, 2] = floor
        _tilt(rot, ground, grounded)
        return
    vz = vel[:, 2] + f.force[:, 2] / f.mass * dt
    vz = np.where(f.gravity & ~grounded, vz - GRAVITY * dt, vz)
    vz = np.where(grounded, np.maximum(vz, 0.0), vz)
    z_air = pos[:, 2] + vz * dt
    lands = ground.found & (z_air <= floor)
    on = lands | grounded
    z_new = np.where(lands | (grounded & (vz <= 0.0)), floor, z_air)
    vel[:, 2] = np.where(lands & ~grounded, 0.0, np.where(on, (z_new - pos[:, 2]) / dt, vz))
    pos[:, 2] = z_new
    if on.any():
        _tilt(rot, ground, on)


def _tilt(rot: np.ndarray, ground: GroundPlanes, on: np.ndarray) -> None:
    """Pitch and roll of the vehicles `on` their ground plane, from its slope along them."""
    yaw = np.radians(rot[:, 1])
    c, s = np.cos(yaw), np.sin(yaw)
    slope_f = ground.grad[:, 0] * c + ground.grad[:, 1] * s
    slope_r = -ground.grad[:, 0] * s + ground.grad[:, 1] * c
    rot[:, 0] = np.where(on, np.degrees(np.arctan(slope_f)), rot[:, 0])
    rot[:, 2] = np.where(on, -np.degrees(np.arctan(slope_r)), rot[:, 2])
