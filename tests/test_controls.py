"""Controls keep CARLA's float32 numbers; the structs do not clamp, `clamped()` does."""

import math
import struct

from world.actors.controls import (
    BoneTransformDataOut,
    VehicleAckermannControl,
    VehicleControl,
    WalkerBoneControlIn,
    WalkerControl,
    f32,
)
from world.geometry import Location, Rotation, Transform, Vector3D


def as_float32(x: float) -> float:
    """The float32 nearest to x, by packing it as C's 4-byte float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def test_vehicle_control_defaults():
    c = VehicleControl()
    assert (c.throttle, c.steer, c.brake) == (0.0, 0.0, 0.0)
    assert (c.hand_brake, c.reverse, c.manual_gear_shift, c.gear) == (False, False, False, 0)


def test_vehicle_control_stores_float32():
    # 0.1 is not a float32: the nearest float32 is 0.100000001490116119384765625.
    c = VehicleControl(throttle=0.1, steer=-0.3, brake=0.7)
    assert c.throttle == as_float32(0.1) == 0.100000001490116119384765625
    assert c.throttle != 0.1
    assert c.steer == as_float32(-0.3)
    assert c.brake == as_float32(0.7)
    c.throttle = 1.0 / 3.0
    assert c.throttle == as_float32(1.0 / 3.0)


def test_float32_rounding_at_the_edges_of_the_range():
    # round to nearest, ties to even, below the smallest subnormal 2**-149: half of it is a
    # tie with 0 (even), one and a half of it a tie between 2**-149 and 2**-148 (even)
    assert f32(2.0**-150) == 0.0
    assert f32(3 * 2.0**-150) == 2.0**-148
    largest = (2 - 2.0**-23) * 2.0**127  # the largest float32
    assert f32(largest) == largest
    assert f32(1e39) == math.inf  # beyond float32's range: infinity, as numpy.float32 gives
    assert f32(-1e39) == -math.inf
    assert math.isnan(f32(math.nan))
    assert f32("0.5") == 0.5  # text a script passes, as numpy.float32 reads it
    assert struct.pack("<d", f32(-0.0)) == struct.pack("<d", -0.0)


def test_vehicle_control_does_not_clamp_but_clamped_does():
    c = VehicleControl(throttle=1.5, steer=-2.0, brake=-0.5, gear=3)
    assert (c.throttle, c.steer, c.brake) == (1.5, -2.0, -0.5)
    k = c.clamped()
    assert (k.throttle, k.steer, k.brake, k.gear) == (1.0, -1.0, 0.0, 3)


def test_vehicle_control_equality_and_copy():
    a = VehicleControl(0.5, 0.25, 0.0, True, False, True, 2)
    b = a.copy()
    assert a == b
    b.gear = 1
    assert a != b
    # Equal once rounded: 0.1 and its float32 are the same control.
    assert VehicleControl(throttle=0.1) == VehicleControl(throttle=as_float32(0.1))


def test_vehicle_control_text_like_carla():
    text = str(VehicleControl(throttle=0.5, hand_brake=True, gear=1))
    assert text == (
        "VehicleControl(throttle=0.500000, steer=0.000000, brake=0.000000, hand_brake=True, "
        "reverse=False, manual_gear_shift=False, gear=1)"
    )


def test_ackermann_fields_float32():
    c = VehicleAckermannControl(steer=0.1, steer_speed=0.2, speed=5.0, acceleration=1.0, jerk=0.3)
    assert c.steer == as_float32(0.1)
    assert c.jerk == as_float32(0.3)
    assert c.speed == 5.0
    assert c == c.copy()
    assert VehicleAckermannControl() == VehicleAckermannControl(0, 0, 0, 0, 0)


def test_walker_control_defaults_and_copies():
    w = WalkerControl()
    assert w.direction == Vector3D(1.0, 0.0, 0.0)
    assert (w.speed, w.jump) == (0.0, False)
    d = w.direction
    d.x = 5.0  # a copy: the control is unchanged
    assert w.direction.x == 1.0
    w.speed = 1.4
    assert w.speed == as_float32(1.4)


def test_bone_controls_hold_data():
    t = Transform(Location(0.0, 0.0, 1.0), Rotation(0.0, 90.0, 0.0))
    bones_in = WalkerBoneControlIn([("crl_hips__C", t)])
    assert bones_in.bone_transforms[0][0] == "crl_hips__C"
    out = BoneTransformDataOut("crl_hips__C", t, t, t)
    assert out.relative.rotation.yaw == 90.0
