"""Vehicle dynamics against hand-worked physics: top speed, turn radius, braking, reverse.

Every expected number is worked below from the physics parameters and the model's documented
constants (world.physics.vehicle_dynamics, docs/world-physics.md), never read from a run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from world_helpers import at, blueprint, flat_world

from world.actors.controls import VehicleControl
from world.actors.vehicle_state import VehicleWheelLocation
from world.errors import WorldError
from world.geometry import Vector2D, Vector3D
from world.map.flat_map import GroundSample
from world.physics import vehicle_dynamics as vd
from world.physics.control import GearPhysicsControl
from world.settings import WorldSettings
from world.world import World

CAR = blueprint("vehicle.lincoln.mkz_2017")
# the mkz_2017's box (world.actors.vehicle_models): half extents (2.45085, 1.06415, 0.75535) m
FRONTAL_AREA = 4.0 * 1.06415 * 0.75535 * vd.FRONTAL_AREA_SHARE


def speed(actor) -> float:
    v = actor.get_velocity()
    return math.hypot(v.x, v.y)


def test_full_throttle_reaches_the_top_speed_where_drive_equals_drag():
    # One gear, a flat 400 N·m curve, no engine damping at full throttle: in steady state the
    # clutch passes the whole engine torque, so the wheels push F = T * G / r = 400 * 3 / 0.3
    # = 4000 N. Drag 0.5 * rho * Cd * A * u^2 and rolling resistance c_rr * m * g balance it at
    # u* = sqrt((F - c_rr m g) / (0.5 rho Cd A)). Cd = 3 keeps u* low and the approach short
    # (time constant m / (rho Cd A u*) = 3.7 s).
    world = flat_world(dt=0.1, substepping=False)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    pc = car.get_physics_control()
    pc.torque_curve = [Vector2D(0.0, 400.0), Vector2D(20000.0, 400.0)]
    pc.max_rpm = 20000.0
    pc.forward_gears = [GearPhysicsControl(1.0, 0.0, 1.0)]
    pc.final_ratio = 3.0
    pc.damping_rate_full_throttle = 0.0
    pc.mass = 1000.0
    pc.drag_coefficient = 3.0
    for wheel in pc.wheels:
        wheel.radius = 30.0
        wheel.tire_friction = 10.0  # traction cap 10 g * TRACTION_SHARE, above 4000 N / 1000 kg
    car.apply_physics_control(pc)
    car.apply_control(VehicleControl(throttle=1.0))
    force = 400.0 * 3.0 / 0.3
    drag = 0.5 * vd.AIR_DENSITY * 3.0 * FRONTAL_AREA
    top = math.sqrt((force - vd.ROLLING_RESISTANCE * 1000.0 * vd.GRAVITY) / drag)
    assert top == pytest.approx(28.55, abs=0.01)
    speeds = []
    for _ in range(400):
        world.tick()
        speeds.append(speed(car))
    assert np.all(np.diff(speeds[10:]) >= -1e-9)  # it only accelerates
    assert speeds[-1] == pytest.approx(top, abs=0.05)
    # the engine turns at the wheels' speed times the gear, u* G / r rad/s, plus the clutch's
    # slip, which passes T = K * slip: 400 N·m / clutch strength 10 = 40 rad/s
    omega = top * 3.0 / 0.3 + 400.0 / 10.0
    assert car.get_telemetry_data()["engine_rpm"] == pytest.approx(
        omega * 60 / (2 * math.pi), rel=1e-3
    )


def test_full_throttle_accelerates_through_the_gears():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    car.apply_control(VehicleControl(throttle=1.0))
    gears, speeds = [], []
    for _ in range(400):  # 20 s
        world.tick()
        gears.append(car.get_control().gear)
        speeds.append(speed(car))
    assert max(gears) >= 4
    assert speeds[-1] > 30.0
    shifted = [g for g in gears if g > 0]
    assert shifted == sorted(shifted)  # only up-shifts at full throttle


def _circle_radius(points: np.ndarray) -> float:
    """Least-squares circle through points (x, y): x^2 + y^2 + D x + E y + F = 0."""
    x, y = points[:, 0], points[:, 1]
    a = np.stack([x, y, np.ones_like(x)], axis=1)
    d, e, f = np.linalg.lstsq(a, -(x * x + y * y), rcond=None)[0]
    return math.sqrt(d * d / 4 + e * e / 4 - f)


def test_steady_low_speed_turn_follows_the_kinematic_single_track():
    # Below KINEMATIC_BELOW (3 m/s) the single track is kinematic: the rear axle circles with
    # radius L / tan(delta) and the centre of mass (the origin), b ahead of it, with
    # sqrt(b^2 + (L / tan(delta))^2). The mkz_2017's wheels are at x = 147.75 and -139.36 cm:
    # L = 2.8711 m, b = 1.3936 m; delta = steer * 70 degrees with a flat steering curve.
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    pc = car.get_physics_control()
    pc.steering_curve = [Vector2D(0.0, 1.0), Vector2D(500.0, 1.0)]
    car.apply_physics_control(pc)
    steer = 0.3
    wheelbase, b = 2.8711, 1.3936
    delta = math.radians(steer * 70.0)
    rear = wheelbase / math.tan(delta)
    expected = math.hypot(b, rear)
    assert expected == pytest.approx(7.608, abs=1e-3)
    points = []
    for t in range(600):
        v = speed(car)  # hold about 2 m/s with a little throttle or brake
        car.apply_control(
            VehicleControl(
                throttle=0.3 if v < 1.8 else 0.0, steer=steer, brake=0.2 if v > 2.4 else 0.0
            )
        )
        world.tick()
        assert v < vd.KINEMATIC_BELOW
        if t >= 100:
            loc = car.get_location()
            points.append((loc.x, loc.y))
    assert _circle_radius(np.array(points)) == pytest.approx(expected, rel=0.01)
    assert car.get_wheel_steer_angle(VehicleWheelLocation.FL_Wheel) == pytest.approx(21.0)
    assert car.get_wheel_steer_angle(VehicleWheelLocation.BL_Wheel) == 0.0
    # steer > 0 turns right: in CARLA's left-handed frame the yaw grows
    assert car.get_angular_velocity().z > 0.0


def test_braking_distance_from_50_kmh():
    # In neutral (manual gear 0) only the brakes, rolling resistance and drag slow the car.
    # Full brakes: a = min(BRAKE_TORQUE_SCALE * 4 * 800 N·m / 0.355 m, mu m g) / m. The brake
    # input rises at BRAKE_RATES[0] per second, so during the rise (T = 1 / rate) the car goes
    # v0 T - a T^2 / 6 and slows to v0 - a T / 2; then it stops in v1^2 / (2 a). Rolling
    # resistance adds c_rr g throughout. The input steps up at the start of each substep h, so
    # the brakes lead that profile by one substep: v0 h shorter. Drag (< 0.06 m/s^2) and the
    # semi-implicit position error (< v0 h / 2 = 0.07 m) are inside the 2 % tolerance.
    world = flat_world(dt=0.01)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    world.tick()
    v0 = 50.0 / 3.6
    car.set_target_velocity(Vector3D(v0, 0.0, 0.0))
    car.apply_control(VehicleControl(brake=1.0, manual_gear_shift=True, gear=0))
    mass, g = 1696.0, vd.GRAVITY
    brake_force = min(vd.BRAKE_TORQUE_SCALE * 4 * 800.0 / 0.355, 3.5 * mass * g)
    a, roll = brake_force / mass, vd.ROLLING_RESISTANCE * g
    rise = 1.0 / vd.BRAKE_RATES[0]
    v1 = v0 - a * rise / 2 - roll * rise
    h = 0.01
    expected = v0 * rise - a * rise**2 / 6 - roll * rise**2 / 2 + v1**2 / (2 * (a + roll)) - v0 * h
    start = car.get_location().x
    for _ in range(500):
        world.tick()
        if speed(car) == 0.0:
            break
    assert speed(car) == 0.0
    assert car.get_location().x - start == pytest.approx(expected, rel=0.02)


def test_reverse_gear_drives_backwards():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    car.apply_control(VehicleControl(throttle=0.5, reverse=True))
    for _ in range(60):
        world.tick()
    assert car.get_location().x < -1.0
    assert car.get_control().gear == -1


def test_physics_control_round_trip_and_heavier_is_slower():
    world = flat_world()
    light = world.spawn_actor(CAR, at(0, 0, 0.04))
    heavy = world.spawn_actor(CAR, at(0, 10, 0.04))
    pc = heavy.get_physics_control()
    assert pc.mass == 1696.0 and len(pc.forward_gears) == 6
    pc.mass = 3000.0
    heavy.apply_physics_control(pc)
    assert heavy.get_physics_control().mass == 3000.0
    for car in (light, heavy):
        car.apply_control(VehicleControl(throttle=1.0))
    for _ in range(60):
        world.tick()
    assert speed(heavy) < speed(light)


def test_a_vehicle_keeps_a_control_of_its_own():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    other = world.spawn_actor(CAR, at(0, 10, 0.04))
    given = car.get_physics_control()
    given.mass = 2500.0
    car.apply_physics_control(given)
    got = car.get_physics_control()
    for pc in (given, got):  # changing what was handed over or out later changes nothing
        pc.mass = 1.0
        pc.wheels[0].radius = 1.0
        pc.torque_curve[0].y = 1.0
    kept = car.get_physics_control()
    assert kept.mass == 2500.0
    assert kept.wheels[0].radius == other.get_physics_control().wheels[0].radius != 1.0
    assert kept.torque_curve[0].y == other.get_physics_control().torque_curve[0].y != 1.0


def test_constant_velocity_moves_in_the_vehicle_frame():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04, yaw=90.0))
    car.enable_constant_velocity(Vector3D(5.0, 0.0, 0.0))
    for _ in range(20):
        world.tick()
    loc = car.get_location()
    assert loc.y == pytest.approx(5.0, abs=1e-6)  # yaw 90: forward is +y
    assert loc.x == pytest.approx(0.0, abs=1e-6)
    car.disable_constant_velocity()
    car.apply_control(VehicleControl(brake=1.0))
    for _ in range(40):
        world.tick()
    assert speed(car) == 0.0


def test_a_constant_velocity_vehicle_still_steers():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04, yaw=0.0))
    car.enable_constant_velocity(Vector3D(5.0, 0.0, 0.0))
    car.apply_control(VehicleControl(steer=0.5))
    for _ in range(40):
        world.tick()
    # a bicycle at 5 m/s turns right (yaw grows) at u tan(delta) / wheelbase; after 2 s it
    # has turned and left the x axis to the right (+y), still at 5 m/s
    assert car.get_transform().rotation.yaw > 20.0
    assert car.get_location().y > 1.0
    assert speed(car) == pytest.approx(5.0, abs=1e-9)


class _Slope:
    """Ground z = gx * x + gy * y everywhere (normal (-gx, -gy, 1) normalised)."""

    def __init__(self, gx: float, gy: float) -> None:
        self.g = (gx, gy)

    def ground(self, points):
        n = len(points)
        normal = np.tile(np.array([-self.g[0], -self.g[1], 1.0]), (n, 1))
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        z = self.g[0] * points[:, 0] + self.g[1] * points[:, 1]
        return GroundSample(z, normal, np.ones(n, dtype=bool))


def test_on_a_slope_the_car_pitches_rolls_and_rolls_downhill():
    # z = 0.1 x: pitch atan(0.1) = 5.711 degrees nose up for a car facing +x. In neutral,
    # released, it rolls back at a = g sin(pitch) - c_rr g = 0.829 m/s^2 (rolling resistance
    # as the model applies it, c_rr m g); after t s it goes a t (semi-implicit Euler is exact
    # for a constant acceleration's velocity).
    world = World(_Slope(0.1, 0.0))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    car = world.spawn_actor(CAR, at(0, 0, 0.5))
    car.apply_control(VehicleControl(brake=1.0))
    for _ in range(40):  # land and stand on the brakes
        world.tick()
    rot = car.get_transform().rotation
    assert rot.pitch == pytest.approx(math.degrees(math.atan(0.1)), abs=1e-9)
    assert rot.roll == pytest.approx(0.0, abs=1e-9)
    # the box's bottom (0.75535 - 0.7189 = 0.03645 m below the origin) is on the ground
    loc = car.get_location()
    assert loc.z == pytest.approx(0.1 * loc.x + 0.03645, abs=1e-9)
    assert speed(car) == 0.0
    car.apply_control(VehicleControl(manual_gear_shift=True, gear=0))
    for _ in range(40):  # 2 s, once the brake input has fallen (10/s: 0.1 s)
        world.tick()
    sin_pitch = 0.1 / math.sqrt(1.01)
    a = vd.GRAVITY * (sin_pitch - vd.ROLLING_RESISTANCE)
    assert a == pytest.approx(0.829, abs=1e-3)
    assert car.get_velocity().x < 0.0
    assert speed(car) == pytest.approx(a * 1.9, rel=0.06)


class _Curb:
    """Flat ground with a curb: z = 0 for x < 5 m, 0.15 m beyond (a sidewalk, as town_small's)."""

    def ground(self, points):
        n = len(points)
        z = np.where(points[:, 0] < 5.0, 0.0, 0.15)
        return GroundSample(z, np.tile(np.array([0.0, 0.0, 1.0]), (n, 1)), np.ones(n, bool))


def test_rolling_over_a_curb_does_not_launch_the_car():
    # The car rolls at 2 m/s in neutral over a 15 cm curb while another car falls from 80 m
    # (so no vehicle follows the ground as a whole: world.physics.vehicle_dynamics._vertical).
    # It steps up onto the sidewalk and stays on it: the box's bottom (0.03645 m below the
    # origin) at 0.15 m. Before, the step taken as speed (0.15 m in a 0.01 s substep: 15 m/s
    # upward) threw it 11 m up: v^2 / (2 g) = 225 / 19.62 = 11.5 m.
    world = World(_Curb())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    car = world.spawn_actor(CAR, at(0.0, 0.0, 0.04))
    world.tick()
    world.spawn_actor(CAR, at(0.0, 40.0, 80.0))
    car.apply_control(VehicleControl(manual_gear_shift=True, gear=0))
    car.set_target_velocity(Vector3D(2.0, 0.0, 0.0))
    highest = 0.0
    for _ in range(60):  # 3 s: the origin crosses x = 5 m after about 2.5 s
        world.tick()
        highest = max(highest, car.get_location().z)
    assert car.get_location().x > 5.0
    assert car.get_location().z == pytest.approx(0.15 + 0.03645, abs=1e-9)
    assert highest == pytest.approx(0.15 + 0.03645, abs=1e-9)


@pytest.mark.parametrize(
    ("blueprint_id", "brake", "back"),
    [("vehicle.yamaha.yzf", 1.0, 8.289), ("vehicle.lincoln.mkz_2017", 0.0, 3.0)],
)
def test_a_vehicle_pushed_against_its_gear_slows_down(blueprint_id, brake, back):
    # A vehicle in first gear moving backwards (pushed by a collision: the yamaha.yzf of
    # town_small's soak left a fire truck's bumper at 8.289 m/s with its brake on) drags its
    # engine backwards; the engine does not turn backwards, so the clutch holds the wheels:
    # the drive pushes forward, at most the traction cap TRACTION_SHARE * mu m g. Both have
    # mu = 3.5: at most 0.3 * 3.5 * 9.81 = 10.30 m/s^2. The yamaha's brakes add
    # min(3.5 * 4 * 400 N·m / 0.30 m, mu m g) / m = 34.34 m/s^2 (the friction cap), rolling
    # resistance 0.015 g = 0.147 m/s^2 both: with the brakes it stops within
    # 8.289 / 34.48 = 0.24 s, without them the Lincoln takes at least 3 / (10.30 + 0.147 +
    # drag 0.03) = 0.286 s, and no more than the brakeless engine drag lets it.
    # Before, the engine's drag pushed it on backwards: 46, 282, 2,093 m/s after 1-3 ticks
    # (81,000 m/s at last) for the yamaha, 722 m/s after 1 s for the Lincoln.
    world = flat_world(dt=0.05)
    car = world.spawn_actor(blueprint(blueprint_id), at(0.0, 0.0, 0.04))
    world.tick()
    car.apply_control(VehicleControl(brake=brake, manual_gear_shift=True, gear=1))
    for _ in range(5):
        world.tick()
    car.set_target_velocity(Vector3D(-back, 0.0, 0.0))
    speeds = []
    for _ in range(20):
        world.tick()
        speeds.append(speed(car))
    assert all(later <= earlier for earlier, later in zip([back, *speeds], speeds, strict=False))
    assert speeds[-1] == pytest.approx(0.0, abs=1e-9)
    gone = speeds.index(min(speeds))
    if brake:
        assert (gone + 1) * 0.05 <= 0.25
    else:
        assert (gone + 1) * 0.05 >= 0.286


def test_a_banked_road_rolls_the_car():
    # z = 0.05 y: the right side (+y) is higher, so the car rolls left: roll = -atan(0.05)
    world = World(_Slope(0.0, 0.05))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    car = world.spawn_actor(CAR, at(0, 0, 0.3))
    for _ in range(20):
        world.tick()
    assert car.get_transform().rotation.roll == pytest.approx(
        -math.degrees(math.atan(0.05)), abs=1e-9
    )


def test_bad_physics_controls_are_refused_and_change_nothing():
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    good = car.get_physics_control()
    for change, words in (
        (lambda pc: setattr(pc, "mass", 0.0), "must be > 0"),
        (lambda pc: setattr(pc.wheels[0], "radius", -1.0), "must be > 0"),
        (
            lambda pc: setattr(pc, "torque_curve", [Vector2D(i, 100.0) for i in range(17)]),
            "torque_curve has 17 entries",
        ),
    ):
        pc = car.get_physics_control()
        change(pc)
        with pytest.raises(WorldError, match=words):
            car.apply_physics_control(pc)
        assert car.get_physics_control() == good
