"""Agents: the leaderboard's sensor checks, input_data in its shapes, the plan's downsampling,
and the autopilot agent waiting at a red light."""

from __future__ import annotations

import numpy as np
import pytest
from runner_helpers import TOWN, write_config

from recorder import open_log
from runner.agent_sensors import AgentSensors, validate_sensor_configuration
from runner.agents.base import Track, downsample_route
from runner.agents.dummy import DummyAgent
from runner.config import load_config
from runner.errors import AgentError
from runner.planner import RoadOption
from runner.route import run_route
from world import Location, Map, Rotation, TrafficLightState, Transform, World, WorldSettings

GNSS = {"type": "sensor.other.gnss", "id": "gps", "x": 0.0, "y": 0.0, "z": 1.6}
IMU = {
    "type": "sensor.other.imu",
    "id": "imu",
    "x": 0.0,
    "y": 0.0,
    "z": 1.6,
    "roll": 0.0,
    "pitch": 0.0,
    "yaw": 0.0,
}
SPEED = {"type": "sensor.speedometer", "id": "speed", "reading_frequency": 20}
MAP = {"type": "sensor.opendrive_map", "id": "hd", "reading_frequency": 1}
CAMERA = {
    "type": "sensor.camera.rgb", "id": "front", "x": 1.3, "y": 0.0, "z": 2.3,
    "roll": 0.0, "pitch": 0.0, "yaw": 0.0, "width": 800, "height": 600, "fov": 100,
}  # fmt: skip


@pytest.mark.parametrize(
    ("sensors", "track", "message"),
    [
        ([GNSS, dict(IMU, id="gps")], Track.SENSORS, r"Duplicated sensor tag \[gps\]"),
        ([dict(GNSS, x=2.0, z=2.3)], Track.SENSORS, "sensor 'gps'. Max allowed radius is 3.0m"),
        ([MAP], Track.SENSORS, "Illegal sensor 'sensor.opendrive_map' used for Track"),
        ([{"type": "sensor.other.sonar", "id": "s"}], Track.MAP, "Illegal sensor 'sensor.oth"),
        ([GNSS, dict(GNSS, id="gps2")], Track.SENSORS, "Too many sensor.other.gnss used! Max"),
        (
            [dict(CAMERA, id=f"cam{k}") for k in range(5)],
            Track.SENSORS,
            "Too many sensor.camera.rgb used! Maximum number allowed is 4, but 5 were",
        ),
    ],
)
def test_sensor_checks(sensors, track, message):
    with pytest.raises(AgentError, match=message):
        validate_sensor_configuration(sensors, track)


def test_sensor_checks_that_pass():
    validate_sensor_configuration([GNSS, IMU, SPEED, MAP], Track.MAP)
    # the qualifier tracks get the larger limits, as the leaderboard's wrapper assigns them
    validate_sensor_configuration([GNSS, dict(GNSS, id="gps2")], Track.SENSORS_QUALIFIER)


def test_input_data_shapes():
    world_map = Map.from_file(TOWN)
    world = World(world_map)
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2020")
    ego = world.spawn_actor(bp, Transform(Location(20.0, 1.75, 0.5), Rotation()))
    sensors = AgentSensors(world, ego, [GNSS, IMU, SPEED, MAP], seed=3)
    world.tick()
    frame = world.get_snapshot().timestamp.frame
    data = sensors.input_data(frame)
    assert sorted(data) == ["gps", "hd", "imu", "speed"]
    assert all(data[k][0] == frame for k in data)
    gps, imu = data["gps"][1], data["imu"][1]
    assert gps.dtype == np.float64 and gps.shape == (3,)
    assert imu.dtype == np.float64 and imu.shape == (7,)
    geo = world_map.transform_to_geolocation(Location(20.0, 1.75, 0.0))
    assert abs(gps[0] - geo.latitude) < 1e-3 and abs(gps[1] - geo.longitude) < 1e-3
    assert 0.0 <= imu[6] < 2 * np.pi  # the compass, radians
    assert set(data["speed"][1]) == {"speed"}
    assert "<OpenDRIVE" in data["hd"][1]["opendrive"]
    sensors.destroy()


def test_downsample_route_by_hand():
    tf = [Transform(Location(float(i), 0.0, 0.0)) for i in range(6)]
    lf, left = RoadOption.LANEFOLLOW, RoadOption.LEFT
    route = list(zip(tf, [lf, lf, left, left, lf, lf], strict=True))
    assert downsample_route(route, 200.0) == [0, 2, 4, 5]  # starts, option changes, the last
    # a straight of 6 m with a 2 m factor: a point whenever more than 2 m were passed
    assert downsample_route(list(zip(tf, [lf] * 6, strict=True)), 2.0) == [0, 4, 5]


def test_dummy_stands_still():
    control = DummyAgent().run_step({}, 0.0)
    assert (control.throttle, control.steer, control.brake) == (0.0, 0.0, 1.0)


def test_autopilot_waits_at_a_red_light(tmp_path):
    config = load_config(
        write_config(
            tmp_path,
            routes=[{"id": 0, "waypoints": [[150.0, -98.25, 0.0], [198.25, -50.0, 0.0]]}],
            traffic={"vehicles": 0},
            limits={"route_seconds": 20.0},
        )
    )

    def all_red(loop, world, ego):
        for light in world.get_actors().filter("traffic.traffic_light"):
            light.set_state(TrafficLightState.Red)
        world.freeze_all_traffic_lights(True)

    log = tmp_path / "red.log"
    outcome = run_route(config, config.routes[0], 0, log, setup_tasks=all_red)
    assert outcome.stop_reason == "route_seconds"
    assert outcome.failure.value == "none"
    # town_small's lights are at the junctions (100, -100) and (200, -100); the car waits
    # before the one at x = 200 m, whose lanes begin 9 m before its centre
    recorded = open_log(log)
    (hero,) = [a.id for a in recorded.actors if a.attributes.get("role_name") == "hero"]
    last = recorded.trajectory(hero)[-1]
    assert 175.0 < last["x"] < 191.0 and abs(last["y"] + 98.25) < 0.5
    assert "TRAFFIC_LIGHT_INFRACTION" not in outcome.events


def test_rendering_sensors_give_the_leaderboards_shapes():
    from tests.sensor_scenes import ground, scene_world

    world = scene_world(ground(0.0))
    bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2020")
    ego = world.spawn_actor(bp, Transform(Location(0.0, 0.0, 0.5), Rotation()))
    lidar = {"type": "sensor.lidar.ray_cast", "id": "lidar", "x": 1.3, "y": 0.0, "z": 2.5,
             "roll": 0.0, "pitch": 0.0, "yaw": -90.0}  # fmt: skip
    radar = {"type": "sensor.other.radar", "id": "radar", "x": 2.8, "y": 0.0, "z": 1.0,
             "roll": 0.0, "pitch": 5.0, "yaw": 0.0,
             "horizontal_fov": 35, "vertical_fov": 20}  # fmt: skip
    camera = dict(CAMERA, width=64, height=48)
    sensors = AgentSensors(world, ego, [camera, lidar, radar, IMU, SPEED], seed=3)
    world.tick()
    frame = world.get_snapshot().timestamp.frame
    data = sensors.input_data(frame)
    assert sorted(data) == ["front", "imu", "lidar", "radar", "speed"]
    assert all(data[k][0] == frame for k in data)
    image, points, detections = data["front"][1], data["lidar"][1], data["radar"][1]
    assert image.dtype == np.uint8 and image.shape == (48, 64, 4)  # H, W, BGRA
    assert points.dtype == np.float32 and points.ndim == 2 and points.shape[1] == 4
    # 600,000 points/s over 64 channels at 20 Hz: 469 rays per channel; the road is below
    assert 0 < len(points) <= 64 * 469
    assert detections.dtype == np.float32 and detections.shape[1] == 4
    # the leaderboard flips the radar's columns: depth first (the road ahead, under 100 m), the
    # velocity last (the road is still; the car settling on its wheels moves the radar a little)
    assert (detections[:, 0] > 0).all() and (detections[:, 0] <= 100).all()
    assert (np.abs(detections[:, 3]) < 0.1).all()
    sensors.destroy()
