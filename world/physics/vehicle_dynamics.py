"""Vehicle dynamics: drivetrain, longitudinal forces and a single-track lateral model.

One call of `substep` advances every given vehicle by `dt` with semi-implicit
Euler (velocities first, then positions with the new velocities). It is compiled
with numba (no fastmath: IEEE float64, the same results on every run) and loops
over the vehicles, reading and writing the actor and vehicle tables' columns in
place, so a substep costs no Python or numpy call per operation. Everything is
float64; the controls arrive as the float32 the client sent. The model and its
limits are described in docs/world-physics.md; the constants marked "fitted"
were tuned against a real CARLA log (benchmarks/fidelity_carla.py).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from world import elementary as el
from world.errors import WorldError
from world.kernels.compiled import njit
from world.map.ground import GroundPlanes, ground_height
from world.physics.control import VehiclePhysicsControl
from world.state import VehicleTable

__all__ = [
    "GRAVITY",
    "BodyColumns",
    "VehicleColumns",
    "columns",
    "load_physics_control",
    "piecewise",
    "substep",
    "tick_setup",
]

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
DEG_TO_RAD = math.pi / 180.0  # as numpy's radians and degrees
RAD_TO_DEG = 180.0 / math.pi


@njit(inline="always")
def _curve(xs: np.ndarray, ys: np.ndarray, row: int, x: float) -> float:
    """Linear interpolation of curve `row` of (M, K) curves (x ascending, padded) at x,
    clamped to its ends. (Inlined: a compiled call taking arrays, or a row view, costs two
    atomic reference counts per array.)"""
    k = xs.shape[1]
    count = 0
    for m in range(k):
        if xs[row, m] <= x:
            count += 1
    i1 = min(max(count, 1), k - 1)
    x0, x1, y0, y1 = xs[row, i1 - 1], xs[row, i1], ys[row, i1 - 1], ys[row, i1]
    span = x1 - x0 if x1 > x0 else 1.0
    t = min(max((x - x0) / span, 0.0), 1.0)
    return y0 + t * (y1 - y0)


@njit(cache=True)
def piecewise(xs: np.ndarray, ys: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per-row linear interpolation of curves (M, K) (x ascending, padded) at x (M,), clamped."""
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = _curve(xs, ys, i, x[i])
    return out


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


# The table columns the compiled substeps read and write, handed over as NamedTuples of arrays.
class BodyColumns(NamedTuple):
    """The actor table's columns the substeps use (world.state.ActorTable)."""

    pos: np.ndarray
    rot: np.ndarray
    vel: np.ndarray
    angvel: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    mass: np.ndarray
    extent: np.ndarray
    box_loc: np.ndarray
    gravity: np.ndarray
    const_vel: np.ndarray
    const_vel_local: np.ndarray
    vrow: np.ndarray
    wrow: np.ndarray


class VehicleColumns(NamedTuple):
    """The vehicle table's columns the substeps use (world.state.VehicleTable)."""

    throttle: np.ndarray
    steer: np.ndarray
    brake: np.ndarray
    hand_brake: np.ndarray
    reverse: np.ndarray
    manual_gear_shift: np.ndarray
    control_gear: np.ndarray
    ackermann: np.ndarray
    ack_steer: np.ndarray
    ack_speed: np.ndarray
    max_rpm: np.ndarray
    moi: np.ndarray
    damp_full: np.ndarray
    damp_engaged: np.ndarray
    damp_disengaged: np.ndarray
    clutch: np.ndarray
    autobox: np.ndarray
    switch_time: np.ndarray
    final_ratio: np.ndarray
    drag: np.ndarray
    area: np.ndarray
    wheelbase: np.ndarray
    cg_front: np.ndarray
    max_steer: np.ndarray
    wheel_radius: np.ndarray
    brake_torque: np.ndarray
    handbrake_torque: np.ndarray
    friction: np.ndarray
    lat_stiff: np.ndarray
    torque_rpm: np.ndarray
    torque_nm: np.ndarray
    gear_ratio: np.ndarray
    gear_up: np.ndarray
    gear_down: np.ndarray
    n_gears: np.ndarray
    steer_kmh: np.ndarray
    steer_factor: np.ndarray
    in_throttle: np.ndarray
    in_brake: np.ndarray
    in_steer: np.ndarray
    gear: np.ndarray
    target_gear: np.ndarray
    shift_timer: np.ndarray
    since_shift: np.ndarray
    rpm: np.ndarray
    wheel_spin: np.ndarray
    steer_angle: np.ndarray


def columns(kind: type, table: object) -> tuple:
    """The NamedTuple `kind` of `table`'s columns (views: the substeps change them in place)."""
    return kind(*(getattr(table, name) for name in kind._fields))


# The helpers below take and return scalars: a compiled function taking an array (or a
# NamedTuple of them, or a row view) costs two atomic reference counts per array and call, so
# only `tick_setup` and `substep` take the tables' columns, once per tick and substep.


# the columns of tick_setup's `fixed`: what a vehicle's substeps compute from its physics
# parameters, mass, box and hand brake, which hold for the whole tick (_REST ... _SLOW_ROLLING);
# the drivetrain's gear terms for the gear the tick starts in (_GEAR ... _CLUTCH_B: a gear
# changes a few times a minute); and what the last substep computed from an input that
# often holds from one substep to the next (the inputs reach their targets within a
# substep or two): the engine damping's term of a throttle with the clutch engaged or not
# (_THROTTLE_KEY ... _DAMPING_C) and the tangent of a wheel angle (_DELTA_KEY, _TAN_DELTA),
# NaN keys at first. Each is the
# same expression of the same numbers as in the substep, so the same bits.
(
    _REST,
    _DRAG,
    _FRICTION_CAP,
    _BRAKE_FORCE,
    _HAND_FORCE,
    _ROLLING,
    _CG_B,
    _IZ,
    _CF,
    _CR,
    _CAP_F,
    _CAP_R,
    _A11,
    _A12,
    _A22,
    _INERTIA,
    _TOP_OMEGA,
    _SLOW_ROLLING,
    _GEAR,
    _ENGAGED,
    _PER_RADIUS,
    _CLUTCH,
    _CLUTCH_A,
    _CLUTCH_B,
    _THROTTLE_KEY,
    _DAMPING_ENGAGED,
    _DAMPING_C,
    _DELTA_KEY,
    _TAN_DELTA,
    _FIXED,
) = range(30)


@njit
def tick_setup(body: BodyColumns, veh: VehicleColumns, rows: np.ndarray, dt: float) -> tuple:
    """What holds for the whole tick of substeps of dt: each vehicle's steer angle at full
    lock, read from the steering curve at the tick's starting speed (km/h), whether an
    upward push or velocity may lift any vehicle off its ground this tick, and each
    vehicle's `fixed` numbers (the _REST ... _CLUTCH_B columns: the substeps' expressions of
    its parameters, mass, box, hand brake and gear, taken once a tick instead of once a
    substep, each computed as the substep computed it, so the same bits; the memo columns
    empty)."""
    vel, force, vrow, mass_of = body.vel, body.force, body.vrow, body.mass
    max_steer, steer_kmh, steer_factor = veh.max_steer, veh.steer_kmh, veh.steer_factor
    steer_now = np.empty(len(rows))
    fixed = np.empty((len(rows), _FIXED))
    lifted = False
    for i in range(len(rows)):
        row = np.uint64(rows[i])  # (unsigned: no wraparound of negative indices; substep)
        k = np.uint64(vrow[row])
        kmh = el.hypot(vel[row, 0], vel[row, 1]) * 3.6
        steer_now[i] = max_steer[k] * _curve(steer_kmh, steer_factor, k, kmh)
        lifted = lifted or force[row, 2] > 0.0 or vel[row, 2] > 0.0
        mass, radius = mass_of[row], veh.wheel_radius[k]
        fixed[i, _REST] = max(body.extent[row, 2] - body.box_loc[row, 2], 0.0)
        fixed[i, _DRAG] = 0.5 * AIR_DENSITY * veh.drag[k] * veh.area[k]
        fixed[i, _FRICTION_CAP] = veh.friction[k] * mass * GRAVITY
        fixed[i, _BRAKE_FORCE] = BRAKE_TORQUE_SCALE * veh.brake_torque[k] / radius
        fixed[i, _HAND_FORCE] = BRAKE_TORQUE_SCALE * veh.handbrake_torque[k] / radius
        fixed[i, _ROLLING] = ROLLING_RESISTANCE * mass * GRAVITY
        # the single track's (_lateral): axle loads, cornering stiffnesses, their caps and
        # the numerators of its linear part
        wheelbase, cg_a = veh.wheelbase[k], veh.cg_front[k]
        cg_b = wheelbase - cg_a
        load_f = mass * GRAVITY * cg_b / wheelbase
        load_r = mass * GRAVITY * cg_a / wheelbase
        cf, cr = veh.lat_stiff[k] * load_f, veh.lat_stiff[k] * load_r
        fixed[i, _CG_B] = cg_b
        fixed[i, _IZ] = mass * cg_a * cg_b
        fixed[i, _CF], fixed[i, _CR] = cf, cr
        fixed[i, _CAP_F] = veh.friction[k] * load_f
        fixed[i, _CAP_R] = (0.5 if veh.hand_brake[k] else 1.0) * (veh.friction[k] * load_r)
        fixed[i, _A11] = cf + cr
        fixed[i, _A12] = cg_a * cf - cg_b * cr
        fixed[i, _A22] = (cg_a * cg_a) * cf + (cg_b * cg_b) * cr
        # the drivetrain's (_drivetrain): the engine's inertia, its top speed (rad/s), the
        # rolling resistance's slowing, and the gear terms of the gear it starts in
        inertia = max(veh.moi[k], 1e-6)
        fixed[i, _INERTIA] = inertia
        fixed[i, _TOP_OMEGA] = veh.max_rpm[k] / RPM_PER_RAD_S
        fixed[i, _SLOW_ROLLING] = fixed[i, _ROLLING] / mass * dt
        gear = veh.gear[k]
        engaged, per_radius, clutch, clutch_a, clutch_b = _gear_terms(
            _gear_ratio(veh.gear_ratio, k, abs(gear)),
            gear,
            veh.final_ratio[k],
            radius,
            veh.clutch[k],
            inertia,
            mass,
            dt,
        )
        fixed[i, _GEAR], fixed[i, _ENGAGED] = gear, 1.0 if engaged else 0.0
        fixed[i, _PER_RADIUS], fixed[i, _CLUTCH] = per_radius, clutch
        fixed[i, _CLUTCH_A], fixed[i, _CLUTCH_B] = clutch_a, clutch_b
        fixed[i, _THROTTLE_KEY] = fixed[i, _DAMPING_ENGAGED] = fixed[i, _DELTA_KEY] = np.nan
    return steer_now, lifted, fixed


@njit
def _gear_terms(
    ratio: float,
    gear: int,
    final_ratio: float,
    wheel_radius: float,
    clutch_strength: float,
    inertia: float,
    mass: float,
    dt: float,
) -> tuple:
    """The drivetrain's terms of a vehicle in `gear` (reverse: first gear's ratio; 0:
    neutral), `ratio` its gear table's entry for |gear| (`_gear_ratio`, read only in gear):
    whether a gear is engaged, the wheels' speed factor seen from the engine (G / radius),
    the clutch's strength (0 unless engaged) and its implicit coupling terms a and b. (A
    scalar, not the table: a compiled call taking an array costs two atomic reference
    counts, here once per vehicle and tick.)"""
    total_ratio = 0.0
    if gear != 0:
        total_ratio = ratio * final_ratio
    engaged = total_ratio > 0.0
    clutch = clutch_strength if engaged else 0.0
    per_radius = total_ratio / wheel_radius
    a = dt * clutch / inertia
    b = dt * clutch * (per_radius * per_radius) / mass
    return engaged, per_radius, clutch, a, b


@njit
def _shift_rpm(ratio: float, max_rpm: float, share: float, beyond: bool, none: float) -> float:
    """The engine speed that shifts from a forward gear (up or down by its `ratio`); `none`
    when `beyond` the last gear that can shift that way."""
    if beyond:
        return none
    return ratio * (max_rpm * share)


@njit(inline="always")
def _gear_ratio(ratios: np.ndarray, row: int, gear: int) -> float:
    """Forward `gear`'s entry in row `row` of the (M, K) gear table (the first or last one
    beyond its ends)."""
    return ratios[row, min(max(gear - 1, 0), ratios.shape[1] - 1)]


@njit
def _update_gear(
    state: tuple,
    auto: bool,
    reverse: bool,
    manual_gear: int,
    n_gears: int,
    switch_time: float,
    up_ratio: float,
    down_ratio: float,
    max_rpm: float,
    rpm: float,
    u: float,
    throttle: float,
    dt: float,
) -> tuple:
    """Runs the automatic gearbox (or the manual gear) one substep from its `state` (gear,
    target gear, shift timer, time since the last change); returns the new state.
    `up_ratio` and `down_ratio` are those of the gear, read only when no shift ends (so the
    gear is still that gear)."""
    gear, target, timer, since = state
    shifting = timer > 0.0
    done = False
    if shifting:
        timer = max(timer - dt, 0.0)
        done = timer <= 0.0
        if done:
            gear, since, shifting = target, 0.0, False
    want = gear
    pressing = throttle > 0.0
    moving_slow = abs(u) < 0.5
    if gear == 0 and pressing:
        want = -1 if reverse else 1
    if gear >= 1 and reverse and moving_slow and pressing:
        want = -1
    if gear == -1 and not reverse and moving_slow and pressing:
        want = 1
    if since >= AUTOBOX_LATENCY and not done and not reverse and gear >= 1:
        if rpm > _shift_rpm(up_ratio, max_rpm, UPSHIFT_SHARE, gear >= n_gears, np.inf):
            want = gear + 1
        elif rpm < _shift_rpm(down_ratio, max_rpm, DOWNSHIFT_SHARE, gear <= 1, -np.inf):
            want = gear - 1
    if auto and not shifting and want != gear:
        target = want
        timer = switch_time * (LAUNCH_SHARE if gear == 0 else SHIFT_SHARE)
        gear = 0
    if not auto:
        gear = min(max(manual_gear, -1), n_gears)
    since = 0.0 if done else since + dt
    return gear, target, timer, since


@njit
def _drivetrain(
    rpm: float,
    max_rpm: float,
    top_omega: float,
    inertia: float,
    curve_torque: float,
    along: float,
    ahead: float,
    throttle: float,
    per_radius: float,
    clutch: float,
    a: float,
    b: float,
    c: float,
    dt: float,
) -> tuple:
    """Advances the engine speed; returns it and the clutch's force at the wheels (N, < 0:
    braking).

    The engine (inertia `inertia`) turns under its torque at throttle (`curve_torque`, the
    torque curve at `rpm`, at full throttle) and its damping (c: the
    full-throttle and zero-throttle rates blended by throttle, `_damping_term`; the
    clutch-disengaged rate in neutral) and is tied to the wheels by the clutch, torque K
    (w_e - G w_wheels) (`_gear_terms`: G / radius, K and the coupling's a and b). The two
    are integrated together implicitly in the clutch coupling, so a stiff clutch stays stable;
    `ahead` is the wheels' acceleration from every other force, so a steady state is exact.
    `along` is the vehicle's speed in the gear's direction (u, or -u in reverse): wheels
    turning against the gear (a car in first pushed backwards) drag the engine toward
    stopping, and the engine does not turn backwards, so the clutch then holds the wheels
    toward a stop (their speed seen from the engine is signed: it was |u|, which made the
    clutch's drag push a car rolling against its gear ever faster: a motorcycle pushed
    back at 8 m/s went at 81 km/s a third of a second later). `top_omega`: max_rpm in rad/s.
    """
    torque = 0.0
    if rpm <= max_rpm:
        torque = throttle * curve_torque
    # the wheels' speed after the other forces, which stop them but do not turn them back
    wheels = max(along + dt * ahead, 0.0) if along >= 0.0 else min(along + dt * ahead, 0.0)
    geared = wheels * per_radius
    x0 = rpm / RPM_PER_RAD_S + dt * torque / inertia
    omega = (x0 * (1.0 + b) + a * geared) / ((1.0 + c + a) * (1.0 + b) - a * b)
    # (omega < 0 only with the wheels against the gear: the engine stands, the clutch holds)
    omega = max(omega, 0.0)
    geared_new = (geared + b * omega) / (1.0 + b)
    omega = min(omega, top_omega)
    return omega * RPM_PER_RAD_S, clutch * (omega - geared_new) * per_radius


@njit
def _damping_term(
    engaged: bool,
    damp_full: float,
    damp_engaged: float,
    damp_disengaged: float,
    throttle: float,
    inertia: float,
    dt: float,
) -> float:
    """The engine damping's implicit term dt * damping / inertia: the full-throttle and
    zero-throttle rates blended by throttle (the clutch-disengaged rate in neutral)."""
    zero_throttle = damp_engaged if engaged else damp_disengaged
    damping = zero_throttle + (damp_full - zero_throttle) * throttle
    return dt * damping / inertia


@njit
def _toward(current: float, target: float, rates: tuple, dt: float) -> float:
    """Moves an input toward its target at the rise rate (away from 0) or the fall rate."""
    if current == target:
        return current
    rate = (rates[0] if abs(target) > abs(current) else rates[1]) * dt
    return current + min(max(target - current, -rate), rate)


@njit(inline="always")
def _lateral(
    mass: float,
    wheelbase: float,
    cg_a: float,
    track: tuple,
    u_new: float,
    lat: float,
    r: float,
    delta: float,
    tan_delta: float,
    f_lat: float,
    torque_z: float,
    roll: float,
    dt: float,
) -> tuple:
    """Lateral velocity and yaw rate after dt: the dynamic single track (implicit in its
    linear part, explicit with saturated tyres when they slide) blended with the kinematic
    one below DYNAMIC_ABOVE. `track`: the vehicle's tick_setup numbers cg_b, iz, cf, cr,
    cap_f, cap_r and the numerators of a11, a12 (and a21) and a22; `tan_delta`: the
    tangent of the wheel angle delta. (Inlined into the substep, as the compiler inlines
    its other helpers: a call hands over 13 numbers and a tuple of 9.)"""
    cg_b, iz, cf, cr, cap_f, cap_r, n11, n12, n22 = track
    w = min(max((u_new - KINEMATIC_BELOW) / BLEND_SPAN, 0.0), 1.0)
    r_kin = u_new * tan_delta / wheelbase
    lat_new, r_new = r_kin * cg_b, r_kin
    if w <= 0.0:
        return lat_new, r_new
    uu = max(abs(u_new), 0.5)
    a11 = -n11 / (mass * uu)
    a12 = -n12 / (mass * uu) - uu
    a21 = -n12 / (iz * uu)
    a22 = -n22 / (iz * uu)
    rhs_v = lat + dt * (cf * delta + f_lat + mass * GRAVITY * _sin(roll)) / mass
    rhs_r = r + dt * (cg_a * cf * delta + torque_z) / iz
    m11, m12, m21, m22 = 1.0 - dt * a11, -dt * a12, -dt * a21, 1.0 - dt * a22
    det = m11 * m22 - m12 * m21
    lat_dyn = (m22 * rhs_v - m12 * rhs_r) / det
    r_dyn = (m11 * rhs_r - m21 * rhs_v) / det
    fyf = cf * (delta - (lat_dyn + cg_a * r_dyn) / uu)
    fyr = -cr * (lat_dyn - cg_b * r_dyn) / uu
    if abs(fyf) > cap_f or abs(fyr) > cap_r:
        fyf0 = min(max(cf * (delta - (lat + cg_a * r) / uu), -cap_f), cap_f)
        fyr0 = min(max(-cr * (lat - cg_b * r) / uu, -cap_r), cap_r)
        lat_dyn = lat + dt * ((fyf0 + fyr0 + f_lat) / mass - uu * r)
        r_dyn = r + dt * (cg_a * fyf0 - cg_b * fyr0 + torque_z) / iz
    return w * lat_dyn + (1.0 - w) * lat_new, w * r_dyn + (1.0 - w) * r_new


@njit
def _sin(x: float) -> float:
    """math.sin without the call for ±0 (level ground), whose sine is itself."""
    return el.sin(x) if x != 0.0 else x


@njit
def _tan(x: float) -> float:
    """math.tan without the call for ±0 (wheels straight), whose tangent is itself."""
    return el.tan(x) if x != 0.0 else x


@njit
def _atan(x: float) -> float:
    """math.atan without the call for ±0 (level ground), whose arctangent is itself."""
    return el.atan(x) if x != 0.0 else x


@njit
def _tilt(c: float, s: float, gx: float, gy: float) -> tuple:
    """Pitch and roll (degrees) on a ground plane of slope (gx, gy), from its slope along
    and across the heading (cos c, sin s of the yaw)."""
    return _atan(gx * c + gy * s) * RAD_TO_DEG, -(_atan(-gx * s + gy * c) * RAD_TO_DEG)


@njit
def _vertical(
    z: float,
    vz: float,
    floors: tuple,
    found: bool,
    grounded: bool,
    follow: bool,
    lift: float,
    gravity: bool,
    dt: float,
) -> tuple:
    """The new z and vertical velocity, and whether the body is on its ground: free fall
    (semi-implicit Euler, `lift` the upward push's acceleration) off the ground; on it,
    z follows the ground. `floors`: the ground's height under the body after the step and
    before it. `follow`: every vehicle stands on its ground and nothing lifts any (all
    follow it). A body on its ground rises with the ground under it, not with a step up
    to it (a curb the body was moved onto since the ground was last sampled): taken as
    speed, a 15 cm curb made 15 m/s upward at the next substep and threw the body some
    10 m up whenever another vehicle was off its ground (so that no vehicle followed)."""
    floor, start = floors
    if follow:
        return floor, (floor - z) / dt, True
    vz = vz + lift * dt
    if gravity and not grounded:
        vz = vz - GRAVITY * dt
    if grounded:
        vz = max(vz, 0.0)
    z_air = z + vz * dt
    lands = found and z_air <= floor
    on = lands or grounded
    z_new = floor if lands or (grounded and vz <= 0.0) else z_air
    if lands and not grounded:
        return z_new, 0.0, on
    return z_new, (z_new - max(z, start)) / dt if on else vz, on


@njit
def _cos_sin(yaw_deg: float) -> tuple:
    """The cosine and sine of a yaw in degrees (one reduction: el.sin_cos)."""
    s, c = el.sin_cos(yaw_deg * DEG_TO_RAD)
    return c, s


@njit
def substep(
    body: BodyColumns,
    veh: VehicleColumns,
    ground: GroundPlanes,
    rows: np.ndarray,
    steer_now: np.ndarray,
    lifted: bool,
    fixed: np.ndarray,
    grounded: np.ndarray,
    moved: np.ndarray,
    heading: np.ndarray,
    dt: float,
) -> None:
    """Advances the vehicles in actor `rows` (ground planes 0.. in the same order) by dt.

    `steer_now`, `lifted` and `fixed` come from `tick_setup` (the substeps keep their memo
    columns); `grounded` (len(rows)) and `moved` (len(rows), 5) are work space,
    `heading` (one row per vehicle table row, kept between ticks: world.physics.tick.FleetCache)
    holds a yaw (degrees; NaN at first) with its cos and sin, so a yaw's are computed once: a
    vehicle whose yaw kept its bits (between substeps and ticks, or standing still) reuses
    them. (They are a function of the yaw's bits alone, but for the signed zeros, whose
    sines differ while they compare equal: a yaw of 0 is always computed again.)

    The rows are taken as unsigned integers (np.uint64): a signed index makes every column
    read check for a negative index and wrap it around (a load and a select each), which
    took some 15 % of the substep."""
    pos, rot, vel, angvel = body.pos, body.rot, body.vel, body.angvel
    force, torque, mass_of, vrow = body.force, body.torque, body.mass, body.vrow
    gravity = body.gravity
    const_vel, const_local = body.const_vel, body.const_vel_local
    g_ref, g_z, g_grad, g_found = ground.ref, ground.z, ground.grad, ground.found
    follow = not lifted
    for i in range(len(rows)):
        row = np.uint64(rows[i])
        floor = ground_height(g_ref, g_z, g_grad, i, pos[row, 0], pos[row, 1]) + fixed[i, _REST]
        grounded[i] = g_found[i] and pos[row, 2] <= floor + CONTACT_TOLERANCE
        follow = follow and grounded[i]
    for i in range(len(rows)):
        row = np.uint64(rows[i])
        k, mass = np.uint64(vrow[row]), mass_of[row]
        yaw_deg = rot[row, 1]
        if yaw_deg != heading[k, 0] or yaw_deg == 0.0:  # (-0.0 == 0.0, their sines differ)
            heading[k, 0] = yaw_deg
            heading[k, 1], heading[k, 2] = _cos_sin(yaw_deg)
        c, s = heading[k, 1], heading[k, 2]
        u = vel[row, 0] * c + vel[row, 1] * s
        f_long = force[row, 0] * c + force[row, 1] * s

        # the inputs after UE4's rise and fall rates (Ackermann: a speed controller)
        throttle, steer, brake = float(veh.throttle[k]), float(veh.steer[k]), float(veh.brake[k])
        if veh.ackermann[k]:
            err = float(veh.ack_speed[k]) - u
            throttle = min(max(err * ACKERMANN_GAIN, 0.0), 1.0)
            brake = min(max(-err * ACKERMANN_GAIN, 0.0), 1.0)
            steer = min(max(float(veh.ack_steer[k]) / veh.max_steer[k], -1.0), 1.0)
        throttle = veh.in_throttle[k] = _toward(veh.in_throttle[k], throttle, THROTTLE_RATES, dt)
        brake = veh.in_brake[k] = _toward(veh.in_brake[k], brake, BRAKE_RATES, dt)
        veh.in_steer[k] = _toward(veh.in_steer[k], steer, STEER_RATES, dt)

        max_rpm = veh.max_rpm[k]
        gear, veh.target_gear[k], veh.shift_timer[k], veh.since_shift[k] = _update_gear(
            (veh.gear[k], veh.target_gear[k], veh.shift_timer[k], veh.since_shift[k]),
            veh.autobox[k] and not veh.manual_gear_shift[k],
            veh.reverse[k],
            veh.control_gear[k],
            veh.n_gears[k],
            veh.switch_time[k],
            _gear_ratio(veh.gear_up, k, veh.gear[k]),
            _gear_ratio(veh.gear_down, k, veh.gear[k]),
            max_rpm,
            veh.rpm[k],
            u,
            throttle,
            dt,
        )
        veh.gear[k] = gear
        radius = veh.wheel_radius[k]
        inertia = fixed[i, _INERTIA]
        if gear == fixed[i, _GEAR]:  # the gear the tick started in: its terms are kept
            engaged, per_radius = fixed[i, _ENGAGED] == 1.0, fixed[i, _PER_RADIUS]
            clutch, clutch_a, clutch_b = fixed[i, _CLUTCH], fixed[i, _CLUTCH_A], fixed[i, _CLUTCH_B]
        else:
            engaged, per_radius, clutch, clutch_a, clutch_b = _gear_terms(
                _gear_ratio(veh.gear_ratio, k, abs(gear)),
                gear,
                veh.final_ratio[k],
                radius,
                veh.clutch[k],
                inertia,
                mass,
                dt,
            )
        direction = -1.0 if gear < 0 else 1.0

        # longitudinal forces
        pitch = rot[row, 0] * DEG_TO_RAD
        other = f_long - fixed[i, _DRAG] * u * abs(u) - mass * GRAVITY * _sin(pitch)
        friction_cap = fixed[i, _FRICTION_CAP]
        hand = 1.0 if veh.hand_brake[k] else 0.0
        resist = (
            min(brake * fixed[i, _BRAKE_FORCE] + hand * fixed[i, _HAND_FORCE], friction_cap)
            + fixed[i, _ROLLING]
        )
        # what the wheels would do without the clutch, seen from the engine (its direction);
        # the brakes and rolling resistance act against the motion, with or against the gear
        along = u * direction
        stopping = resist if along > 0.0 else (-resist if along < 0.0 else 0.0)
        ahead = (other * direction - stopping) / mass
        # (a throttle of ±0 is always taken anew: the two zeros compare equal)
        same_damping = fixed[i, _DAMPING_ENGAGED] == (1.0 if engaged else 0.0)
        if throttle != fixed[i, _THROTTLE_KEY] or throttle == 0.0 or not same_damping:
            fixed[i, _THROTTLE_KEY] = throttle
            fixed[i, _DAMPING_ENGAGED] = 1.0 if engaged else 0.0
            fixed[i, _DAMPING_C] = _damping_term(
                engaged,
                veh.damp_full[k],
                veh.damp_engaged[k],
                veh.damp_disengaged[k],
                throttle,
                inertia,
                dt,
            )
        veh.rpm[k], wheel_force = _drivetrain(
            veh.rpm[k],
            max_rpm,
            fixed[i, _TOP_OMEGA],
            inertia,
            _curve(veh.torque_rpm, veh.torque_nm, k, veh.rpm[k]),
            along,
            ahead,
            throttle,
            per_radius,
            clutch,
            clutch_a,
            clutch_b,
            fixed[i, _DAMPING_C],
            dt,
        )
        along = min(wheel_force, TRACTION_SHARE * friction_cap) * direction + other
        u1 = u + along / mass * dt
        # (no brake: the rolling resistance alone, whose slowing tick_setup took)
        slow = fixed[i, _SLOW_ROLLING] if resist == fixed[i, _ROLLING] else resist / mass * dt
        moved[i, 3] = 0.0 if abs(u1) <= slow else u1 - math.copysign(slow, u1)
    # then the single track, in a loop of its own (the body-frame numbers taken again from
    # the same columns by the same operations, the wheel angle from the input just applied)
    for i in range(len(rows)):
        row = np.uint64(rows[i])
        k, mass = np.uint64(vrow[row]), mass_of[row]
        c, s = heading[k, 1], heading[k, 2]
        u = vel[row, 0] * c + vel[row, 1] * s
        lat = -vel[row, 0] * s + vel[row, 1] * c
        r = angvel[row, 2] * DEG_TO_RAD
        f_lat = -force[row, 0] * s + force[row, 1] * c
        roll = rot[row, 2] * DEG_TO_RAD
        u_new = moved[i, 3]
        delta = veh.in_steer[k] * steer_now[i]
        if delta != fixed[i, _DELTA_KEY] or delta == 0.0:  # (tan(±0) is itself)
            fixed[i, _DELTA_KEY] = delta
            fixed[i, _TAN_DELTA] = _tan(delta)
        tan_delta = fixed[i, _TAN_DELTA]
        lat_new, r_new = _lateral(
            mass,
            veh.wheelbase[k],
            veh.cg_front[k],
            (
                fixed[i, _CG_B],
                fixed[i, _IZ],
                fixed[i, _CF],
                fixed[i, _CR],
                fixed[i, _CAP_F],
                fixed[i, _CAP_R],
                fixed[i, _A11],
                fixed[i, _A12],
                fixed[i, _A22],
            ),
            u_new,
            lat,
            r,
            delta,
            tan_delta,
            f_lat,
            torque[row, 2],
            roll,
            dt,
        )
        # constant-velocity vehicles move at their set local velocity and still steer (CARLA
        # forces the body's velocity in its own frame while the wheels turn it): the yaw rate
        # of a bicycle rolling at that speed, u tan(delta) / wheelbase (0 with wheels straight);
        # airborne vehicles keep their horizontal motion (no tyre forces)
        if const_vel[row]:
            u_new, lat_new = const_local[row, 0], const_local[row, 1]
            r_new = u_new * tan_delta / veh.wheelbase[k]
        elif not grounded[i]:
            u_new, lat_new, r_new = u, lat, r

        moved[i, 0], moved[i, 1] = u_new * c - lat_new * s, u_new * s + lat_new * c
        moved[i, 2], moved[i, 3], moved[i, 4] = r_new, u_new, delta
    # then the motion, vehicle by vehicle: each vehicle reads and writes its own rows alone,
    # so the order of the loops changes nothing, and each loop's body is short enough for
    # the processor to overlap several vehicles' dependency chains (the divisions of the
    # drivetrain, of the single track, the sine and cosine of the new yaw): one loop of the
    # drivetrain and the single track took 20 % longer
    for i in range(len(rows)):
        row = np.uint64(rows[i])
        k, mass = np.uint64(vrow[row]), mass_of[row]
        vx, vy, r_new, u_new = moved[i, 0], moved[i, 1], moved[i, 2], moved[i, 3]
        start = 0.0  # the ground's height before the step (read only when not following it)
        if not follow:
            start = ground_height(g_ref, g_z, g_grad, i, pos[row, 0], pos[row, 1]) + fixed[i, _REST]
        pos[row, 0] += vx * dt
        pos[row, 1] += vy * dt
        rot[row, 1] += r_new * dt * RAD_TO_DEG
        floor = ground_height(g_ref, g_z, g_grad, i, pos[row, 0], pos[row, 1]) + fixed[i, _REST]
        pos[row, 2], vel[row, 2], on = _vertical(
            pos[row, 2],
            vel[row, 2],
            (floor, start),
            g_found[i],
            grounded[i],
            follow,
            force[row, 2] / mass if not follow else 0.0,  # (read only off the ground)
            gravity[row],
            dt,
        )
        grounded[i] = on  # (now: on its ground after the step, for the last loop)
        vel[row, 0], vel[row, 1] = vx, vy
        angvel[row, 2] = r_new * RAD_TO_DEG
        veh.steer_angle[k] = moved[i, 4]
        spin = veh.wheel_spin[k] + u_new / veh.wheel_radius[k] * dt
        # (np.remainder leaves a value in (0, 2 pi) as it is: no call for those)
        veh.wheel_spin[k] = (
            spin if 0.0 < spin < 2.0 * math.pi else np.remainder(spin, 2.0 * math.pi)
        )
    # last, the new yaw's cosine and sine and the tilt on the ground of the bodies on it, in
    # a loop of their own: the call of el.sin_cos left the motion's loop to keep its numbers
    # in memory around it (10 % of the substep at 1,000 vehicles, 2 % at 100)
    for i in range(len(rows)):
        if grounded[i]:
            row = np.uint64(rows[i])
            k = np.uint64(vrow[row])
            yaw_deg = rot[row, 1]
            if yaw_deg != heading[k, 0] or yaw_deg == 0.0:
                heading[k, 0] = yaw_deg
                heading[k, 1], heading[k, 2] = _cos_sin(yaw_deg)
            rot[row, 0], rot[row, 2] = _tilt(
                heading[k, 1], heading[k, 2], g_grad[i, 0], g_grad[i, 1]
            )
