"""Physics-control defaults are CARLA 0.9.x's (LibCarla rpc/*PhysicsControl.h, typed in)."""

from world.geometry import Vector2D, Vector3D
from world.physics.control import GearPhysicsControl, VehiclePhysicsControl, WheelPhysicsControl


def test_vehicle_defaults():
    p = VehiclePhysicsControl()
    assert p.torque_curve == [Vector2D(0.0, 500.0), Vector2D(5000.0, 500.0)]
    assert (p.max_rpm, p.moi) == (5000.0, 1.0)
    assert p.damping_rate_full_throttle == 0.15
    assert p.damping_rate_zero_throttle_clutch_engaged == 2.0
    assert p.damping_rate_zero_throttle_clutch_disengaged == 0.35
    assert p.use_gear_autobox is True
    assert (p.gear_switch_time, p.clutch_strength, p.final_ratio) == (0.5, 10.0, 4.0)
    assert p.forward_gears == [] and p.wheels == []
    assert (p.mass, p.drag_coefficient) == (1000.0, 0.3)
    assert p.center_of_mass == Vector3D(0.0, 0.0, 0.0)
    assert p.steering_curve == [Vector2D(0.0, 1.0), Vector2D(10.0, 0.5)]
    assert p.use_sweep_wheel_collision is False


def test_wheel_and_gear_defaults():
    w = WheelPhysicsControl()
    assert (w.tire_friction, w.damping_rate, w.max_steer_angle, w.radius) == (2.0, 0.25, 70.0, 30.0)
    assert (w.max_brake_torque, w.max_handbrake_torque) == (1500.0, 3000.0)
    assert (w.lat_stiff_max_load, w.lat_stiff_value, w.long_stiff_value) == (2.0, 17.0, 1000.0)
    assert w.position == Vector3D()
    g = GearPhysicsControl()
    assert (g.ratio, g.down_ratio, g.up_ratio) == (1.0, 0.5, 0.65)


def test_curves_from_tuples_and_deep_copy():
    p = VehiclePhysicsControl(
        torque_curve=[(1000, 347), (6500, 466)], wheels=[WheelPhysicsControl()]
    )
    assert p.torque_curve == [Vector2D(1000, 347), Vector2D(6500, 466)]
    q = p.copy()
    assert q == p
    q.wheels[0].radius = 35.5
    q.torque_curve[0].y = 1.0
    assert p.wheels[0].radius == 30.0 and p.torque_curve[0].y == 347
    assert q != p


def test_copy_keeps_every_field_and_shares_nothing_mutable():
    # every field set away from its default, so a field the copy forgot would differ
    p = VehiclePhysicsControl(
        torque_curve=[(1000, 347)],
        max_rpm=6100.0,
        moi=1.2,
        damping_rate_full_throttle=0.1,
        damping_rate_zero_throttle_clutch_engaged=1.5,
        damping_rate_zero_throttle_clutch_disengaged=0.3,
        use_gear_autobox=False,
        gear_switch_time=0.4,
        clutch_strength=9.0,
        final_ratio=3.5,
        forward_gears=[GearPhysicsControl(3.2, 0.4, 0.7)],
        mass=1700.0,
        drag_coefficient=0.25,
        center_of_mass=Vector3D(0.1, 0.0, -0.2),
        steering_curve=[(0, 1), (120, 0.7)],
        wheels=[WheelPhysicsControl(3.0, 0.3, 60.0, 35.0, 1400.0, 2900.0, 2.1, 16.0, 900.0)],
        use_sweep_wheel_collision=True,
    )
    p.wheels[0].position = Vector3D(120.0, -80.0, 30.0)
    q = p.copy()
    for name in VehiclePhysicsControl.__dataclass_fields__:
        assert getattr(q, name) == getattr(p, name), name
    assert q.forward_gears[0] is not p.forward_gears[0]
    assert q.center_of_mass is not p.center_of_mass
    assert q.wheels[0].position is not p.wheels[0].position
    assert q.steering_curve[1] is not p.steering_curve[1]
