"""The body's pitch on its suspension (world.physics.body_pitch): its size worked by hand from
the Lincoln's numbers and checked against CARLA's own logs, its sign, and that it stays out
of the dynamics (the trajectories are the same with or without it)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from world_helpers import at, blueprint, flat_world

from world.actors.controls import VehicleControl
from world.map.flat_map import GroundSample
from world.physics.body_pitch import SUSPENSIONS, suspension_of
from world.settings import WorldSettings
from world.world import World

CAR = blueprint("vehicle.lincoln.mkz_2017")


def _pitch_gain(world: World, car) -> float:
    _actors, vehicles, _walkers = world.state_tables()
    return float(vehicles.pitch_gain[int(world.state_tables()[0].vrow[car.id - 1])])


def test_the_lincolns_pitch_per_acceleration_worked_by_hand_lies_between_carlas_logs():
    # The Lincoln rides on CARLA's "coupe" suspension (natural frequency 10 rad/s, damping
    # ratio 1, 7.5 cm up and down). Its centre of mass: the box centre (x 0.0040 m, its
    # height above the ground is the half height 0.75535 m) moved by the physics control's
    # center_of_mass (0.6, 0, -0.3) m: x 0.604, h 0.45535. The axles at x 1.4775 and
    # -1.3936: a_f = 0.8735, a_r = 1.9976 m. Pitch per m/s^2 = h / (omega^2 a_f a_r)
    # = 0.45535 / (100 * 1.74490) = 2.6096e-3 rad = 0.14952 degrees.
    assert suspension_of("vehicle.lincoln.mkz_2017") == SUSPENSIONS["coupe"]
    world = flat_world()
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    gain = _pitch_gain(world, car)
    assert gain == pytest.approx(0.14952, abs=2e-4)
    # CARLA's logs of this Lincoln pulling away (pitch: the rotation's second logged angle;
    # acceleration: the change of the logged speed along the heading):
    # - 0.9.10 (../shared/carla-logs/DistanceToLaneCenter_2020, actor 259): at 4.0 to 5.1
    #   m/s^2, 7.58 to 7.99 s into the log, it pitches 0.76 to 0.83 degrees nose up, 0.16 to
    #   0.20 degrees per m/s^2;
    # - 0.9.12 (../shared/carla-logs/DistanceBetweenVehicles, actor 174): at 5.8 to 6.0
    #   m/s^2, 2.40 to 2.53 s into the log, 0.13 to 0.15 degrees, about 0.025 per m/s^2.
    # The model's steady pitch lies between the two CARLA versions'.
    assert 0.025 < gain < 0.20


def test_pulling_away_squats_braking_dives_and_at_rest_the_body_is_level():
    world = flat_world(dt=0.05)
    car = world.spawn_actor(CAR, at(0, 0, 0.04))
    for _ in range(5):
        world.tick()
    # at rest on level ground every spring sags alike (each is omega^2 times the mass it
    # carries): no pitch, whatever the centre of mass
    assert car.get_transform().rotation.pitch == 0.0
    car.apply_control(VehicleControl(throttle=0.5))
    pitches = []
    for _ in range(40):
        world.tick()
        pitches.append(car.get_transform().rotation.pitch)
    assert car.get_velocity().x > 2.0
    # nose up while it speeds up, within the travel: 15 cm over the 2.8711 m wheelbase,
    # 0.05224 rad = 2.993 degrees
    assert min(pitches[10:]) > 0.0
    assert max(pitches) < 2.994
    car.apply_control(VehicleControl(brake=1.0))
    for _ in range(10):
        world.tick()
    assert car.get_transform().rotation.pitch < 0.0
    for _ in range(80):  # stopped, the body settles back (damping ratio 1, 10 rad/s)
        world.tick()
    assert car.get_velocity().x == 0.0
    assert abs(car.get_transform().rotation.pitch) < 1e-3


class _Slope:
    """Ground z = 0.1 x everywhere."""

    def ground(self, points):
        n = len(points)
        normal = np.tile(np.array([-0.1, 0.0, 1.0]) / math.sqrt(1.01), (n, 1))
        return GroundSample(0.1 * points[:, 0], normal, np.ones(n, dtype=bool))


def _drive_up_the_slope(pitching: bool) -> tuple[list[tuple], list[float]]:
    world = World(_Slope())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    car = world.spawn_actor(CAR, at(0, 0, 0.1))
    if not pitching:
        _actors, vehicles, _walkers = world.state_tables()
        vehicles.pitch_gain[:] = 0.0
    car.apply_control(VehicleControl(throttle=0.8))
    poses, pitches = [], []
    for _ in range(60):
        world.tick()
        t = car.get_transform()
        v = car.get_velocity()
        poses.append((t.location.x, t.location.y, t.location.z, t.rotation.yaw, v.x, v.z))
        pitches.append(t.rotation.pitch)
    return poses, pitches


def test_the_body_pitch_stays_out_of_the_dynamics():
    # up a 10 % slope the dynamics' gravity term reads the road's pitch (atan 0.1 = 5.711
    # degrees); the body's pitch on top of it changes the pose reported, not the motion
    moved, pitched = _drive_up_the_slope(True)
    still, level = _drive_up_the_slope(False)
    assert moved == still
    road = math.degrees(math.atan(0.1))
    assert level[-1] == pytest.approx(road, abs=1e-9)
    assert pitched[-1] > road  # speeding up uphill: the nose rises further
