"""The collision response keeps momentum, makes no kinetic energy and parts boxes at a bounded
speed; a contact does not launch a light vehicle.

The numbers are worked by hand from the impulse law the response uses (an impulse along the
contact normal with restitution e = RESTITUTION, docs/world-physics.md "Collisions"), from the
blueprints' physics controls and from a tick of generate_traffic.py's 1,000,000-tick soak on
town_small (benchmarks/soak_gridlock.py --scene small, seed 2), never read from a run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from world_helpers import at, blueprint, flat_world

from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform, Vector3D
from world.physics import collisions
from world.physics.collisions import RESTITUTION, SEPARATION_SPEED

H = 0.01  # s: a substep of the worlds below (0.05 s ticks, 5 substeps)


def _resolve(masses, xs, ys, half, velocities) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One substep of the response on boxes at (xs, ys), yaw 0, half extents `half` (n, 2),
    1.4 m high, every pair a candidate; returns the positions, velocities and impulses."""
    n = len(masses)
    pos = np.column_stack([xs, ys, np.zeros(n)]).astype(np.float64)
    rot = np.zeros((n, 3))
    vel = np.column_stack([velocities, np.zeros(n)]).astype(np.float64)
    extent = np.column_stack([half, np.full(n, 0.7)]).astype(np.float64)
    box_loc = np.column_stack([np.zeros(n), np.zeros(n), np.full(n, 0.7)])
    rows = np.arange(n, dtype=np.int64)
    inv_mass = 1.0 / np.asarray(masses, dtype=np.float64)
    i, j = (
        np.array(side, dtype=np.int64)
        for side in zip(*[(a, b) for a in range(n) for b in range(a + 1, n)], strict=True)
    )
    out_i, out_j = np.empty(len(i), np.int64), np.empty(len(i), np.int64)
    out_impulse = np.empty((len(i), 3))
    count = collisions.resolve(
        pos,
        rot,
        vel,
        extent,
        box_loc,
        rows,
        inv_mass,
        i,
        j,
        out_i,
        out_j,
        out_impulse,
        0,
        SEPARATION_SPEED * H,
    )
    return pos, vel, out_impulse[:count]


def _energy(masses, vel) -> float:
    return sum(0.5 * m * (v[0] * v[0] + v[1] * v[1]) for m, v in zip(masses, vel, strict=True))


def test_a_car_hitting_a_scooter_head_on_keeps_momentum_and_loses_energy():
    # A 1,500 kg car at 10 m/s runs into a 120 kg scooter at rest, head on along x. With
    # w = 1/1500 + 1/120 = 0.009 /kg and the closing speed 10 m/s, the impulse is
    # J = (1 + 0.2) * 10 / 0.009 = 1,333.33 N·s: the car goes on at 10 - J/1500 = 9.1111 m/s,
    # the scooter leaves at J/120 = 11.1111 m/s (they part at 2.0 m/s = e * 10).
    # Momentum: 1500 * 10 = 15,000 = 1500 * 9.1111 + 120 * 11.1111 (13,666.67 + 1,333.33).
    # Kinetic energy: 75,000 J before, 62,259.26 + 7,407.41 = 69,666.67 J after.
    assert RESTITUTION == 0.2
    masses = [1500.0, 120.0]
    # the car's box reaches 2.0 m ahead of its centre, the scooter's 0.9 m behind its own:
    # they overlap by 0.05 m
    _, vel, impulse = _resolve(
        masses, [0.0, 2.85], [0.0, 0.0], [[2.0, 0.9], [0.9, 0.4]], [[10.0, 0.0], [0.0, 0.0]]
    )
    assert vel[0, 0] == pytest.approx(9.111111111, abs=1e-9)
    assert vel[1, 0] == pytest.approx(11.111111111, abs=1e-9)
    assert impulse[0, 0] == pytest.approx(-1333.333333, abs=1e-6)  # what the car received
    assert 1500.0 * vel[0, 0] + 120.0 * vel[1, 0] == pytest.approx(15000.0, abs=1e-9)
    assert _energy(masses, vel) == pytest.approx(69666.666667, abs=1e-5)
    assert vel[:, 1].tolist() == [0.0, 0.0] and vel[:, 2].tolist() == [0.0, 0.0]


def test_a_scooter_struck_by_two_cars_at_once_gets_no_more_than_one_contact_gives():
    # Two 1,500 kg cars side by side (y = -1 and +1), both at 10 m/s along x, touch the back of
    # a 120 kg scooter at rest in the same substep (pairs (car a, scooter), (car b, scooter)).
    # The first contact is the head-on one above: car a 9.1111 m/s, scooter 11.1111 m/s. The
    # scooter then moves away from car b (11.11 > 10): no second impulse, car b keeps 10 m/s.
    # Energy: 62,259.26 + 75,000 + 7,407.41 = 144,666.67 J of the 150,000 before. (Both
    # impulses from the starting velocities, summed, gave the scooter 22.22 m/s and the three
    # 154,148 J: more than before.)
    masses = [1500.0, 1500.0, 120.0]
    _, vel, impulse = _resolve(
        masses,
        [0.0, 0.0, 2.85],
        [-1.0, 1.0, 0.0],
        [[2.0, 0.9], [2.0, 0.9], [0.9, 0.4]],
        [[10.0, 0.0], [10.0, 0.0], [0.0, 0.0]],
    )
    assert vel[:, 0] == pytest.approx([9.111111111, 10.0, 11.111111111], abs=1e-9)
    assert impulse[:, 0] == pytest.approx([-1333.333333, 0.0], abs=1e-6)
    assert 1500.0 * (vel[0, 0] + vel[1, 0]) + 120.0 * vel[2, 0] == pytest.approx(30000.0)
    assert _energy(masses, vel) == pytest.approx(144666.666667, abs=1e-5)
    assert _energy(masses, vel) < 150000.0


def test_boxes_one_inside_the_other_part_at_the_separation_speed():
    # Two Lincolns at rest in neutral, the second set 3.9017 m ahead of the first: their boxes
    # (4.9017 m long) overlap by 1.0 m along x. Each substep pushes them apart by at most
    # SEPARATION_SPEED * 0.01 s = 0.1 m, half each (equal masses): after one tick of five
    # substeps each car has moved 0.25 m (5 m/s, the pair parting at 10 m/s); the whole
    # 1.0 m in one push would have moved them at 50 m/s.
    assert SEPARATION_SPEED == 10.0
    world = flat_world(dt=0.05)
    car = blueprint("vehicle.lincoln.mkz_2017")
    a = world.spawn_actor(car, at(0.0, 0.0, 0.04))
    b = world.spawn_actor(car, at(10.0, 0.0, 0.04))
    for actor in (a, b):
        actor.apply_control(VehicleControl(manual_gear_shift=True, gear=0))
    world.tick()
    xa, yb = a.get_location().x, b.get_location().y
    b.set_transform(Transform(Location(xa + 2 * 2.45085 - 1.0, yb, 0.0), Rotation()))
    world.tick()
    assert a.get_location().x == pytest.approx(xa - 0.25, abs=1e-9)
    assert b.get_location().x == pytest.approx(xa + 2 * 2.45085 - 1.0 + 0.25, abs=1e-9)
    assert max(abs(a.get_velocity().x), abs(b.get_velocity().x)) < 1e-9  # no speed made


def test_the_soak_fire_truck_turning_into_a_braking_motorcycle():
    # Tick 32,442 of town_small's soak: the fire truck (8,000 kg) turns left at 3.89 m/s (yaw
    # rate 30.3 deg/s, steer 0.55) into a yamaha.yzf (250 kg) standing with its brake on in
    # first gear. Before the fix the motorcycle left at 8.3 m/s backwards, and its engine,
    # dragged backwards, pushed it on: 42.8, then 84.0 m/s a tick later, into a van.
    # A contact gives it at most (1 + e) times the closing speed of the centres, itself at most
    # the truck's speed (the motorcycle stands): (1 + 0.2) * 3.89 = 4.67 m/s; the truck does
    # not speed up (it pushes a mass, on a throttle of 0.11). Both stay on the flat ground.
    world = flat_world(dt=0.05)
    truck = world.spawn_actor(
        blueprint("vehicle.carlamotors.firetruck"), at(198.300292, -193.225012, 0.0, 52.381377)
    )
    bike = world.spawn_actor(
        blueprint("vehicle.yamaha.yzf"), at(201.742809, -188.762137, 0.0, -90.292058)
    )
    truck.apply_control(
        VehicleControl(throttle=0.11264946, steer=0.55069983, manual_gear_shift=True, gear=1)
    )
    bike.apply_control(VehicleControl(brake=1.0, manual_gear_shift=True, gear=1))
    truck.set_target_velocity(Vector3D(1.255303, 3.678982, 0.0))
    truck.set_target_angular_velocity(Vector3D(0.0, 0.0, 30.325286))
    closing = math.hypot(1.255303, 3.678982)
    touched, fastest = 0, 0.0
    for _ in range(60):
        world.tick()
        touched += bool(world.collision_events())
        fastest = max(fastest, bike.get_velocity().length())
        assert truck.get_velocity().length() <= closing + 1e-9
        for body in (truck, bike):
            assert body.get_location().z == 0.0 and body.get_velocity().z == 0.0
    assert touched  # the contact happened
    assert 0.0 < fastest <= (1.0 + RESTITUTION) * closing
    assert bike.get_velocity().length() == 0.0  # its brakes hold it after the truck has passed
