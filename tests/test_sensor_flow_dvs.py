"""The optical flow camera and the event camera, worked by hand.

Flow (CARLA's velocity buffer): x = 2 (u − u₀) / W, y = −2 (v − v₀) / H for a surface point at
pixel u now and u₀ a tick ago. With fov 90° (f = W / 2) a camera moving s metres to its right
in front of a wall D metres away sees every point move −f s / D pixels: x = −s / D.

DVS (CARLA's DVSCamera.cpp): levels L = ln(log_eps + grey / 255); a pixel going from L₀ to L₁
fires at ref + m · C for m = 1, 2, ... while inside (L₀, L₁], at the time interpolated between
the two measurements.
"""

from __future__ import annotations

import numpy as np

from tests.sensor_scenes import box, listen, scene_world, wall
from world import Location, Rotation, Transform, WeatherParameters
from world.scene.mesh import STATIC_INSTANCE_BASE
from world.sensors.dvs import _State, dvs_events


def _flow(image) -> np.ndarray:
    return np.frombuffer(image.raw_data, np.float32).reshape(image.height, image.width, 2)


def test_a_camera_sliding_past_a_wall_sees_it_flow_back():
    world = scene_world(wall(10.0))
    bp = world.get_blueprint_library().find("sensor.camera.optical_flow")
    bp.set_attribute("image_size_x", "40")
    bp.set_attribute("image_size_y", "30")
    camera = world.spawn_actor(bp, Transform(Location(0.0, 0.0, 0.0), Rotation()))
    images: list = []
    camera.listen(images.append)
    world.tick()
    camera.set_location(Location(0.0, 0.5, 0.0))  # half a metre to the right
    world.tick()
    flow = _flow(images[-1])
    assert np.abs(flow[..., 0] - np.float32(-0.5 / 10.0)).max() < 1e-6
    assert np.abs(flow[..., 1]).max() < 1e-6


def test_a_car_crossing_flows_with_its_speed():
    world = scene_world(wall(60.0))
    car = world.spawn_actor(
        world.get_blueprint_library().find("vehicle.lincoln.mkz_2020"),
        Transform(Location(20.0, 0.0, -0.5), Rotation(yaw=90.0)),  # driving to the right
    )
    car.set_simulate_physics(False)
    images = listen(world, "sensor.camera.optical_flow", Transform(), image_size_x=40,
                    image_size_y=30)  # fmt: skip
    world.tick()
    car.set_location(Location(20.0, 0.25, -0.5))  # 0.25 m to the right in a tick
    world.tick()
    flow = _flow(images[-1])
    face = 20.0 - car.bounding_box.extent.y  # its side toward the camera, D metres away
    # a point on the car moved 0.25 m right at depth D: u - u0 = f * 0.25 / D, x = 0.25 / D
    assert abs(flow[15, 20, 0] - 0.25 / face) < 1e-5 and abs(flow[15, 20, 1]) < 1e-6
    assert abs(flow[2, 20, 0]) < 1e-6  # the wall above it stood still


def test_dvs_events_of_one_brightening_pixel():
    # L from 0.0 to 0.75 with C = 0.3: levels 0.3 and 0.6 (float32, as CARLA's) are crossed at
    # 0.4 and 0.8 of the 50 ms between the measurements; the reference ends at 0.6
    state = _State(np.array([0.0, 0.5], np.float32), now_ns=1_000_000_000)
    levels = np.array([0.75, 0.5], np.float32)
    events = dvs_events(state, levels, 1_050_000_000, (0.3, 0.3), (0.0, 0.0), 0, None, 2)
    crossing = [float(np.float32(0.3) * np.float32(m)) for m in (1, 2)]
    times = [1_000_000_000 + int(c * 50_000_000 / float(np.float32(0.75))) for c in crossing]
    assert times == [1_020_000_000, 1_040_000_001]  # 0.6 in float32 is 0.60000002
    assert events.tolist() == [(0, 0, times[0], True), (0, 0, times[1], True)]
    assert state.reference[0] == np.float32(0.6) and state.reference[1] == np.float32(0.5)
    # darker by 0.1: the first level 0.6 - 0.3 = 0.3 is past 0.65, so nothing fires
    assert len(dvs_events(state, np.array([0.65, 0.5], np.float32), 1_100_000_000,
                          (0.3, 0.3), (0.0, 0.0), 0, None, 2)) == 0  # fmt: skip


def test_the_refractory_period_drops_close_events():
    state = _State(np.array([0.0], np.float32), now_ns=0)
    events = dvs_events(state, np.array([0.75], np.float32), 50_000_000, (0.3, 0.3), (0.0, 0.0),
                        15_000_000, None, 1)  # fmt: skip
    # events at 20 ms and 40 ms: 20 ms apart, over the 15 ms period: both
    assert events["t"].tolist() == [20_000_000, 40_000_001]
    state = _State(np.array([0.0], np.float32), now_ns=0)
    events = dvs_events(state, np.array([0.75], np.float32), 50_000_000, (0.3, 0.3), (0.0, 0.0),
                        25_000_000, None, 1)  # fmt: skip
    assert events["t"].tolist() == [20_000_000]  # the second is 20 ms after: dropped


def test_a_dvs_fires_when_the_sun_comes_up():
    world = scene_world(box((10.0, 0.0, 0.0), (1.0, 5.0, 5.0), 3, STATIC_INSTANCE_BASE))
    events = listen(world, "sensor.camera.dvs", Transform(), image_size_x=16, image_size_y=12)
    world.set_weather(WeatherParameters(sun_altitude_angle=-10.0))
    world.tick()  # the first picture only sets the references
    world.tick()  # nothing changed: no events, nothing delivered
    assert events == []
    world.set_weather(WeatherParameters(sun_altitude_angle=60.0))
    world.tick()
    assert len(events) == 1
    received = events[0].events()
    assert received["pol"].all() and len(received) > 0
    assert (np.diff(received["t"]) >= 0).all()  # sorted by time
    # the data's time is the client's (CARLA's float32 steps): 3 x float32(0.05)
    assert events[0].timestamp == world.get_snapshot().timestamp.elapsed_seconds
    assert events[0].timestamp == 0.05000000074505806 + 0.05000000074505806 + 0.05000000074505806
