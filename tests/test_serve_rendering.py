"""Cameras, LiDARs and radar through `lockstep serve` with CARLA's real client: every
measurement reaches the client's listen() in CARLA's serialisation and reads back as CARLA's
Image, LidarMeasurement, RadarMeasurement... with the bytes lockstep's in-process sensors
make for the same steps (the renderer gives the same bytes in every process)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from serve_helpers import carla_client_or_skip, output, run_client, served

from runner.carla.client import Client, configure
from world import Location, Rotation, Transform, VehicleControl

SENSORS = {
    "sensor.camera.rgb": {"image_size_x": "64", "image_size_y": "48", "fov": "90"},
    "sensor.camera.depth": {"image_size_x": "32", "image_size_y": "24"},
    "sensor.camera.semantic_segmentation": {"image_size_x": "32", "image_size_y": "24"},
    "sensor.camera.instance_segmentation": {"image_size_x": "32", "image_size_y": "24"},
    "sensor.camera.normals": {"image_size_x": "32", "image_size_y": "24"},
    "sensor.camera.optical_flow": {"image_size_x": "32", "image_size_y": "24"},
    "sensor.camera.dvs": {"image_size_x": "32", "image_size_y": "24"},
    "sensor.lidar.ray_cast": {"channels": "8", "points_per_second": "4000", "range": "40"},
    "sensor.lidar.ray_cast_semantic": {"channels": "4", "points_per_second": "2000"},
    "sensor.other.radar": {"points_per_second": "400"},
}
TICKS = 4

SCRIPT = """
import hashlib, json, sys, time, carla
sensors_asked = json.loads(sys.argv[2])
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(60.0)
world = client.reload_world()
print("frame", world.get_snapshot().frame)
library = world.get_blueprint_library()
point = world.get_map().get_spawn_points()[0]
car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), point)
mount = carla.Transform(carla.Location(x=1.5, z=2.0))
got, sensors = {}, []  # CARLA's client stops a sensor whose Python object is collected
for name in sorted(sensors_asked):
    blueprint = library.find(name)
    for key, value in sensors_asked[name].items():
        blueprint.set_attribute(key, value)
    sensors.append(world.spawn_actor(blueprint, mount, attach_to=car))
    got[name] = []
    sensors[-1].listen(got[name].append)
car.apply_control(carla.VehicleControl(throttle=0.6))
for _ in range(TICKS):
    world.tick()
# a measurement a tick, but none from DVS on its first (no earlier picture to compare): the
# test compares the counts with lockstep's in-process sensors
need = {name: TICKS - 1 if name.endswith(".dvs") else TICKS for name in got}
deadline = time.time() + 30.0
while time.time() < deadline and any(len(got[n]) < need[n] for n in got):
    time.sleep(0.01)
for name in sorted(got):
    for data in got[name]:
        raw = hashlib.sha256(bytes(data.raw_data)).hexdigest()[:16]
        shape = ""
        if hasattr(data, "width"):
            shape = "%d %d %.6g" % (data.width, data.height, data.fov)
        elif hasattr(data, "channels"):
            counts = [data.get_point_count(c) for c in range(data.channels)]
            shape = "%d %.6g %s" % (data.channels, data.horizontal_angle, counts)
        print(name, data.frame, type(data).__name__, shape, raw)
""".replace("TICKS", str(TICKS))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    carla_client_or_skip()
    with served(tmp_path_factory.mktemp("serve"), "--sync") as process:
        yield process


@pytest.mark.parametrize("chunk", [0, 1])
def test_rendering_sensors_reach_the_client_as_carla_s_data(server, tmp_path, chunk):
    names = sorted(SENSORS)[chunk::2]
    asked = {n: SENSORS[n] for n in names}
    out = output(run_client(tmp_path, server.port, SCRIPT, json.dumps(asked))).splitlines()
    frame = int(out[0].split()[1])
    configure()
    world = Client("127.0.0.1", 1).get_world()
    for _ in range(frame):
        world.tick()
    library = world.get_blueprint_library()
    p = world.get_map().get_spawn_points()[0]
    loc = [float(np.float32(v)) for v in (p.location.x, p.location.y, p.location.z)]
    rot = [float(np.float32(v)) for v in (p.rotation.pitch, p.rotation.yaw, p.rotation.roll)]
    start = Transform(Location(*loc), Rotation(*rot))
    car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), start)
    got = {}
    for name in names:
        blueprint = library.find(name)
        for key, value in asked[name].items():
            blueprint.set_attribute(key, value)
        sensor = world.spawn_actor(blueprint, Transform(Location(1.5, 0.0, 2.0)), car)
        got[name] = []
        sensor.listen(got[name].append)
    car.apply_control(VehicleControl(throttle=0.6))
    for _ in range(TICKS):
        world.tick()
    expected = []
    for name in names:
        for data in got[name]:
            raw = hashlib.sha256(bytes(data.raw_data)).hexdigest()[:16]
            shape = ""
            if hasattr(data, "width"):
                shape = f"{data.width} {data.height} {float(np.float32(data.fov)):.6g}"
            elif hasattr(data, "channels"):
                counts = [data.get_point_count(c) for c in range(data.channels)]
                shape = f"{data.channels} {float(np.float32(data.horizontal_angle)):.6g} {counts}"
            expected.append(f"{name} {data.frame} {type(data).__name__} {shape} {raw}")
    # every sensor gives a measurement a tick; DVS none on its first, as the script expects
    for name in names:
        count = TICKS - 1 if name.endswith(".dvs") else TICKS
        assert sum(line.startswith(name + " ") for line in expected) == count
    assert out[1:] == expected
