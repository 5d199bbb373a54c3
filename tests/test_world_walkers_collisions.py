"""Walkers on the ground, jumps, and collisions between vehicles, walkers and props."""

from __future__ import annotations

import math

import pytest
from world_helpers import at, blueprint, flat_world

from world.actors.controls import VehicleControl, WalkerBoneControlIn, WalkerControl
from world.geometry import Location, Rotation, Transform, Vector3D
from world.physics.collisions import RESTITUTION
from world.physics.vehicle_dynamics import GRAVITY
from world.physics.walker_motion import JUMP_SPEED

CAR = blueprint("vehicle.lincoln.mkz_2017")
WALKER = blueprint("walker.pedestrian.0001")
PROP = blueprint("static.prop.streetbarrier")


def test_walker_walks_its_direction_at_its_speed_on_the_ground():
    world = flat_world(dt=0.05)
    walker = world.spawn_actor(WALKER, at(0, 0, 0.93))
    # CARLA normalises the direction: (3, 4) walks along (0.6, 0.8)
    walker.apply_control(WalkerControl(Vector3D(3.0, 4.0, 0.0), 1.5))
    for _ in range(20):  # 1 s
        world.tick()
    loc = walker.get_location()
    assert loc.x == pytest.approx(0.9, abs=1e-6)
    assert loc.y == pytest.approx(1.2, abs=1e-6)
    assert loc.z == pytest.approx(0.93, abs=1e-9)  # the box's half height above the ground
    assert walker.get_transform().rotation.yaw == pytest.approx(math.degrees(math.atan2(4, 3)))
    assert walker.get_control().speed == 1.5


def test_jump_is_a_ballistic_hop():
    # The hop starts at JUMP_SPEED; semi-implicit Euler with step h peaks at
    # v^2 / (2 g) + v h / 2 (the integrator's known error) within one step's rise.
    world = flat_world(dt=0.01)
    walker = world.spawn_actor(WALKER, at(0, 0, 0.93))
    world.tick()
    walker.apply_control(WalkerControl(Vector3D(1.0, 0.0, 0.0), 0.0, jump=True))
    heights = []
    for _ in range(150):
        world.tick()
        heights.append(walker.get_location().z - 0.93)
    peak = JUMP_SPEED**2 / (2 * GRAVITY)
    assert max(heights) == pytest.approx(peak, abs=JUMP_SPEED * 0.01)
    assert heights[-1] == 0.0
    assert walker.get_control().jump is False  # one hop per control


def test_bones_are_data():
    world = flat_world()
    walker = world.spawn_actor(WALKER, at(10, 0, 0.93))
    bone = Transform(Location(0.0, 0.0, 0.5), Rotation(0.0, 10.0, 0.0))
    walker.set_bones(WalkerBoneControlIn([("crl_head__C", bone)]))
    (out,) = walker.get_bones().bone_transforms
    assert out.bone_name == "crl_head__C"
    assert out.relative == bone
    assert out.world.location.x == pytest.approx(10.0)
    assert out.world.location.z == pytest.approx(1.43)
    walker.blend_pose(0.5)


def test_two_cars_driven_into_each_other_stop_and_report_one_pair():
    # Head-on at 10 m/s each (neutral gear: no engine), equal masses: the impulse along the
    # normal is (1 + e) m_red v_rel with m_red = m / 2, v_rel = 20 m/s, e = RESTITUTION; each
    # car bounces back at e * 10 m/s, then the brakes stop both.
    world = flat_world(dt=0.05)
    a = world.spawn_actor(CAR, at(0, 0, 0.04))
    b = world.spawn_actor(CAR, at(12, 0, 0.04, yaw=180.0))
    world.tick()
    neutral = VehicleControl(manual_gear_shift=True, gear=0)
    for car in (a, b):
        car.apply_control(neutral)
    a.set_target_velocity(Vector3D(10.0, 0.0, 0.0))
    b.set_target_velocity(Vector3D(-10.0, 0.0, 0.0))
    pairs, impulses, before = [], [], None
    for _ in range(60):
        v_before = (a.get_velocity().x, b.get_velocity().x)
        world.tick()
        events = world.collision_events()
        if events and before is None:
            before = v_before
        pairs += [(e.actor_id, e.other_id) for e in events]
        impulses += [e.normal_impulse for e in events]
        if a.get_velocity().x < 0.0:
            for car in (a, b):
                car.apply_control(VehicleControl(brake=1.0, manual_gear_shift=True, gear=0))
    assert sorted(set(pairs)) == [(a.id, b.id)]
    v_rel = before[0] - before[1]
    expected = (1 + RESTITUTION) * 1696.0 / 2 * v_rel
    assert -impulses[0].x == pytest.approx(expected, rel=0.02)  # a is pushed back (-x)
    assert a.get_velocity().x == 0.0 and b.get_velocity().x == 0.0
    gap = b.get_location().x - a.get_location().x
    assert gap >= 2 * 2.45085 - 1e-9  # the boxes (4.9 m long) do not overlap


def test_a_car_stops_at_a_static_prop():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    prop = world.spawn_actor(PROP, at(6, 0, 0.0))
    car.apply_control(VehicleControl(manual_gear_shift=True, gear=0))
    car.set_target_velocity(Vector3D(5.0, 0.0, 0.0))
    hit = []
    for _ in range(40):
        world.tick()
        hit += [(e.actor_id, e.other_id) for e in world.collision_events()]
    assert hit and set(hit) == {(car.id, prop.id)}
    assert prop.get_location().x == 6.0  # props do not move
    # the car's box reaches 2.45085 + 0.004 ahead of its origin, the barrier's 0.60745 back
    assert car.get_location().x + 2.45485 <= 6.0 - 0.60745 + 1e-9


def test_a_prop_attached_to_a_car_rides_along_without_colliding():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    world.spawn_actor(PROP, at(0.0, 0.0, 1.0), attach_to=car)
    car.set_target_velocity(Vector3D(3.0, 0.0, 0.0))
    car.apply_control(VehicleControl(manual_gear_shift=True, gear=0))
    for _ in range(10):
        world.tick()
        assert world.collision_events() == []
    assert car.get_velocity().x > 2.5
