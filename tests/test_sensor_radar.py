"""The radar against CARLA's Radar.cpp: a car coming at 5 m/s reads −5 m/s along the ray.

A detection's velocity is (v_target − v_radar) · d, d the unit direction from the radar to the
hit; for a car driving at (−5, 0, 0) toward a still radar looking along +x, a ray of azimuth a
and altitude e has d = (cos e cos a, cos e sin a, sin e), so the reading is −5 cos e cos a.
"""

from __future__ import annotations

import math

import numpy as np

from tests.sensor_scenes import ground, listen, scene_world, wall
from world import Location, Rotation, Transform, Vector3D


def test_a_car_approaching_at_five_metres_a_second_reads_minus_five():
    world = scene_world(ground(0.0))
    car = world.spawn_actor(
        world.get_blueprint_library().find("vehicle.lincoln.mkz_2020"),
        Transform(Location(30.0, 0.0, 0.3), Rotation(yaw=180.0)),  # facing the radar
    )
    # 5 m/s forward (toward -x), from the start: a car jolted from rest would pitch on its
    # suspension (world.physics.body_pitch) and tilt the face the rays meet
    car.set_target_velocity(Vector3D(-5.0, 0.0, 0.0))
    car.enable_constant_velocity(Vector3D(5.0, 0.0, 0.0))
    radar = Transform(Location(0.0, 0.0, 1.0), Rotation())
    sweeps = listen(world, "sensor.other.radar", radar, horizontal_fov=3, vertical_fov=1,
                    points_per_second=4000, range=100)  # fmt: skip
    for _ in range(10):
        world.tick()
    v = car.get_velocity()
    assert abs(v.x + 5.0) < 1e-6 and abs(v.y) < 1e-6 and abs(v.z) < 0.02  # settled on its wheels
    rows = np.frombuffer(sweeps[-1].raw_data, np.float32).reshape(-1, 4)
    velocity, azimuth, altitude, depth = rows.T
    assert len(rows) == int(4000 * 0.05)  # every ray of the narrow cone meets the car
    a, e = azimuth.astype(float), altitude.astype(float)
    along = v.x * np.cos(e) * np.cos(a) + v.y * np.cos(e) * np.sin(a) + v.z * np.sin(e)
    assert np.abs(velocity - along).max() < 1e-5
    assert np.abs(velocity + 5.0).max() < 0.005  # -5 m/s: approaching is negative
    front = car.get_location().x - car.bounding_box.extent.x  # the box's face toward the radar
    assert np.abs(depth * np.cos(e) * np.cos(a) - front).max() < 1e-3
    assert (np.abs(azimuth) <= math.radians(1.5) + 1e-6).all()
    assert (np.abs(altitude) <= math.radians(0.5) + 1e-6).all()


def test_the_radars_own_motion_counts():
    # a radar moving at +3 m/s toward a still wall reads -3 m/s straight ahead
    world = scene_world(wall(50.0))
    car = world.spawn_actor(
        world.get_blueprint_library().find("vehicle.lincoln.mkz_2020"),
        Transform(Location(0.0, 0.0, 0.3)),
    )
    car.set_simulate_physics(False)
    sweeps = listen(world, "sensor.other.radar", Transform(Location(3.0, 0.0, 1.0)), car,
                    horizontal_fov=1, vertical_fov=1, points_per_second=2000)  # fmt: skip
    for k in range(3):
        car.set_location(Location(0.15 * (k + 1), 0.0, 0.3))  # 0.15 m a 0.05 s tick
        world.tick()
    velocity = np.frombuffer(sweeps[-1].raw_data, np.float32).reshape(-1, 4)[:, 0]
    assert len(velocity) and np.abs(velocity + 3.0).max() < 3.0 * (1 - math.cos(0.01)) + 1e-4
