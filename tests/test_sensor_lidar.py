"""The LiDARs against CARLA's sweep (RayCastSemanticLidar.cpp), worked by hand.

Channel i's pitch is upper − i · (upper − lower) / (channels − 1); a tick of dt seconds shoots
round(points_per_second · dt / channels) rays per channel over rotation_frequency ·
horizontal_fov · dt degrees, ray k at yaw fmod(h + k · step, fov) − fov / 2, and the
measurement's horizontal_angle is fmod(h + that turn, fov) in radians.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.sensor_scenes import box, ground, listen, scene_world
from world import Location, Rotation, Transform
from world.actors.vehicle_state import CityObjectLabel
from world.scene.mesh import STATIC_INSTANCE_BASE

ABOVE_ROAD = Transform(Location(0.0, 0.0, 2.0), Rotation())
EXACT = {  # 64,000 points/s over 32 channels at 20 Hz: 100 rays per channel per tick
    "channels": 32,
    "points_per_second": 64000,
    "rotation_frequency": 5,
    "upper_fov": 10,
    "lower_fov": -30,
    "range": 100,
}
NO_LOSS = {"dropoff_general_rate": 0, "dropoff_zero_intensity": 0}


def _points(measurement) -> np.ndarray:
    return np.frombuffer(measurement.raw_data, dtype=np.float32).reshape(-1, 4)


def test_a_lidar_above_a_flat_road_sees_it_at_the_analytic_ranges():
    world = scene_world(ground(0.0))
    clouds = listen(world, "sensor.lidar.ray_cast", ABOVE_ROAD, **EXACT, **NO_LOSS)
    world.tick()
    cloud = clouds[0]
    assert cloud.channels == 32
    points = _points(cloud)
    start = 0
    for i in range(32):
        pitch = 10.0 - i * 40.0 / 31.0
        reach = 2.0 / math.sin(math.radians(-pitch)) if pitch < 0 else math.inf
        count = cloud.get_point_count(i)
        # a channel pointing down meets the road at 2 / sin(-pitch) m when that is in range
        assert count == (100 if reach <= 100.0 else 0), i
        mine = points[start : start + count]
        start += count
        if count:
            distance = np.sqrt((mine[:, :3].astype(float) ** 2).sum(1))
            assert np.abs(distance - reach).max() < 1e-3 * reach
            assert np.abs(mine[:, 2] + 2.0).max() < 1e-4  # 2 m below the sensor
            intensity = math.exp(-0.004 * reach)  # atmosphere_attenuation_rate's default
            assert np.abs(mine[:, 3] - intensity).max() < 1e-5
    assert start == len(cloud)


def test_the_sweep_turns_as_carlas_over_consecutive_ticks():
    # inside a closed box every ray hits: each tick has 32 * 100 points over 5 * 360 * 0.05 = 90
    # degrees; the angles reached are 90, 180, 270, 0 degrees; a turn has 64000 / 5 points
    world = scene_world(box((0.0, 0.0, 2.0), (30.0, 30.0, 30.0), 3, STATIC_INSTANCE_BASE + 9))
    clouds = listen(world, "sensor.lidar.ray_cast_semantic", ABOVE_ROAD, **EXACT)
    for _ in range(4):
        world.tick()
    angles = [cloud.horizontal_angle for cloud in clouds]
    expected = [np.float32(math.radians(a)) for a in (90.0, 180.0, 270.0, 0.0)]
    assert angles == pytest.approx(expected, abs=1e-6)
    assert [len(cloud) for cloud in clouds] == [3200] * 4
    assert sum(len(cloud) for cloud in clouds) == 64000 / 5
    # tick 2 starts at 90 degrees: its first ray looks at yaw 90 - 180 = -90 (to the left),
    # its 100th at -90 + 99 * 0.9
    records = clouds[1].records()
    first, last = records[0], records[99]
    assert math.degrees(math.atan2(first["y"], first["x"])) == pytest.approx(-90.0, abs=1e-3)
    assert math.degrees(math.atan2(last["y"], last["x"])) == pytest.approx(-0.9, abs=1e-3)
    assert (records["object_tag"] == 3).all() and (records["object_idx"] == 0).all()


def test_semantic_lidar_names_the_actor_and_the_incidence():
    world = scene_world(ground(0.0))
    car = world.spawn_actor(
        world.get_blueprint_library().find("vehicle.lincoln.mkz_2020"),
        Transform(Location(10.0, 0.0, 0.3)),
    )
    whole_turn = dict(EXACT, rotation_frequency=20)  # 20 * 360 * 0.05: one turn a tick
    clouds = listen(world, "sensor.lidar.ray_cast_semantic", ABOVE_ROAD, **whole_turn)
    world.tick()
    records = clouds[0].records()
    on_car = records["object_tag"] == int(CityObjectLabel.Car)
    assert on_car.any() and (records["object_idx"][on_car] == car.id).all()
    road = records[records["object_tag"] == int(CityObjectLabel.Roads)]
    # on the road the cosine is sin(-pitch) = 2 / distance
    distance = np.sqrt(road["x"].astype(float) ** 2 + road["y"] ** 2 + road["z"] ** 2)
    assert np.abs(road["cos_inc_angle"] - 2.0 / distance).max() < 1e-4


def test_dropoff_and_noise_come_from_the_sensors_own_seed():
    def cloud(seed: int) -> bytes:
        world = scene_world(ground(0.0))
        settings = dict(EXACT, noise_stddev=0.05, noise_seed=seed)
        clouds = listen(world, "sensor.lidar.ray_cast", ABOVE_ROAD, **settings)
        world.tick()
        return bytes(clouds[0].raw_data)

    assert cloud(3) == cloud(3)
    assert cloud(3) != cloud(4)
    kept = len(cloud(3)) // 16
    # 23 channels reach the road, 2300 rays: the default dropoff keeps about 55 % of them
    assert 0.45 * 2300 < kept < 0.65 * 2300


def test_point_counts_follow_points_per_second():
    world = scene_world(box((0.0, 0.0, 2.0), (30.0, 30.0, 30.0), 3, STATIC_INSTANCE_BASE + 9))
    dense = {"channels": 64, "points_per_second": 1200000, "rotation_frequency": 20, "range": 100}
    clouds = listen(world, "sensor.lidar.ray_cast", ABOVE_ROAD, **dense, **NO_LOSS)
    world.tick()
    # 1.2 M / 64 * 0.05 = 937.5 -> 938 per channel (CARLA rounds half away from zero)
    assert [clouds[0].get_point_count(c) for c in range(64)] == [938] * 64
