"""Sensors, the recorder and the replayer through `lockstep serve` with CARLA's real client;
and the same script run twice giving the same log, byte for byte.

Sensor values are compared with lockstep's in-process sensors doing the same steps (the
server must carry them in CARLA's serialisation unchanged, float32 where CARLA's fields are
float32); query texts with lockstep's own CLI on the same log.
"""

from __future__ import annotations

import numpy as np
import pytest
from serve_helpers import carla_client_or_skip, output, run_client, served

from runner.carla.client import Client, configure
from runner.cli import main as lockstep
from runner.log_compare import compare_logs
from world import Location, Rotation, Transform, VehicleControl


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    carla_client_or_skip()
    with served(tmp_path_factory.mktemp("serve"), "--sync") as process:
        yield process


CRASH = """
import sys, time, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
print("frame", world.get_snapshot().frame)
point = world.get_map().get_spawn_points()[0]
library = world.get_blueprint_library()
ahead = carla.Transform(point.location + point.get_forward_vector() * 15.0, point.rotation)
car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), point)
other = world.spawn_actor(library.find("vehicle.tesla.model3"), ahead)
mount = carla.Transform(carla.Location(x=2.5, z=1.0))
sensors = {
    name: world.spawn_actor(library.find("sensor.other." + name), mount, attach_to=car)
    for name in ("collision", "imu", "gnss", "obstacle")
}
got = {name: [] for name in sensors}
for name, sensor in sensors.items():
    sensor.listen(got[name].append)
car.apply_control(carla.VehicleControl(throttle=1.0))
for _ in range(60):
    world.tick()
deadline = time.time() + 10.0
while time.time() < deadline and (len(got["imu"]) < 60 or not got["collision"]):
    time.sleep(0.01)
first = got["collision"][0]
print("collision", first.frame, first.actor.id == car.id, first.other_actor.id == other.id,
      "%.9g %.9g %.9g" % (first.normal_impulse.x, first.normal_impulse.y, first.normal_impulse.z))
imu = got["imu"][-1]
print("imu", imu.frame, "%.9g %.9g %.9g" % (imu.accelerometer.x, imu.accelerometer.y,
      imu.accelerometer.z), "%.9g" % imu.compass)
gnss = got["gnss"][-1]
print("gnss", gnss.frame, "%.12g %.12g %.12g" % (gnss.latitude, gnss.longitude, gnss.altitude))
seen = got["obstacle"][0]
print("obstacle", seen.frame, seen.other_actor.id == other.id, "%.9g" % seen.distance)
print("counts", len(got["imu"]), len(got["gnss"]))
for sensor in sensors.values():
    sensor.stop()
"""


def _f(x: float) -> str:
    return f"{float(np.float32(x)):.9g}"


def test_sensor_data_arrives_in_carla_s_serialisation(server, tmp_path):
    out = output(run_client(tmp_path, server.port, CRASH)).splitlines()
    frame = int(out[0].split()[1])
    configure()
    world = Client("127.0.0.1", 1).get_world()
    for _ in range(frame):
        world.tick()
    point = world.get_map().get_spawn_points()[0]
    loc = [float(np.float32(v)) for v in (point.location.x, point.location.y, point.location.z)]
    rot = [float(np.float32(v)) for v in (point.rotation.pitch, point.rotation.yaw)]
    start = Transform(Location(*loc), Rotation(rot[0], rot[1], 0.0))
    forward = start.rotation.get_forward_vector()
    ahead = [float(np.float32(a + 15.0 * f)) for a, f in zip(loc, forward, strict=True)]
    library = world.get_blueprint_library()
    car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), start)
    world.spawn_actor(
        library.find("vehicle.tesla.model3"), Transform(Location(*ahead), start.rotation)
    )
    got: dict[str, list] = {}
    for name in ("collision", "imu", "gnss", "obstacle"):
        sensor = world.spawn_actor(
            library.find("sensor.other." + name), Transform(Location(2.5, 0.0, 1.0)), car
        )
        got[name] = []
        sensor.listen(got[name].append)
    car.apply_control(VehicleControl(throttle=1.0))
    for _ in range(60):
        world.tick()
    first = got["collision"][0]
    impulse = first.normal_impulse
    assert (
        out[1]
        == f"collision {first.frame} True True {_f(impulse.x)} {_f(impulse.y)} {_f(impulse.z)}"
    )
    imu = got["imu"][-1]
    a = imu.accelerometer
    assert out[2] == f"imu {imu.frame} {_f(a.x)} {_f(a.y)} {_f(a.z)} {_f(imu.compass)}"
    gnss = got["gnss"][-1]
    assert (
        out[3]
        == f"gnss {gnss.frame} {gnss.latitude:.12g} {gnss.longitude:.12g} {gnss.altitude:.12g}"
    )
    seen = got["obstacle"][0]
    assert out[4] == f"obstacle {seen.frame} True {_f(seen.distance)}"
    assert out[5] == "counts 60 60"


RECORD = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
print("recording", client.start_recorder(sys.argv[2], True))
point = world.get_map().get_spawn_points()[0]
library = world.get_blueprint_library()
ahead = carla.Transform(point.location + point.get_forward_vector() * 12.0, point.rotation)
car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), point)
other = world.spawn_actor(library.find("vehicle.tesla.model3"), ahead)
walker = world.spawn_actor(library.find("walker.pedestrian.0002"),
                           carla.Transform(carla.Location(x=60.0, y=40.0, z=1.0)))
walker.apply_control(carla.WalkerControl(carla.Vector3D(1.0, 0.0, 0.0), 1.2))
car.apply_control(carla.VehicleControl(throttle=0.8))
for _ in range(80):
    world.tick()
client.stop_recorder()
print("car", car.id)
"""


def test_the_recorder_records_what_the_client_does_and_its_queries_read_it(
    server, tmp_path, capsys
):
    log = tmp_path / "drive.log"
    out = output(run_client(tmp_path, server.port, RECORD, str(log))).splitlines()
    assert out[0] == f"recording {log}"
    info = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
print(client.show_recorder_file_info(sys.argv[2], True), end="")
print(client.show_recorder_collisions(sys.argv[2], "v", "a"), end="")
print(client.show_recorder_actors_blocked(sys.argv[2], 1.0, 1.0), end="")
"""
    served_text = output(run_client(tmp_path, server.port, info, str(log)))
    capsys.readouterr()
    assert lockstep(["info", "-f", str(log), "-a"]) == 0
    assert lockstep(["collisions", "-f", str(log), "-t", "va"]) == 0
    assert lockstep(["blocked", "-f", str(log), "--time", "1", "--distance", "1"]) == 0
    cli_text = capsys.readouterr().out
    assert served_text == cli_text
    assert "vehicle.lincoln.mkz_2017" in served_text


def test_the_same_script_twice_gives_the_same_log(server, tmp_path):
    first, second = tmp_path / "one.log", tmp_path / "two.log"
    for log in (first, second):  # each script's last line comes after stop_recorder
        assert output(run_client(tmp_path, server.port, RECORD, str(log))).startswith(
            f"recording {log}\ncar "
        )
    assert first.read_bytes() != second.read_bytes()  # the dates and platform times differ
    assert compare_logs(first, second) is None


REPLAY = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
print(client.replay_file(sys.argv[2], 0.0, 0.0, 0), end="")
for _ in range(100):
    world.tick()
cars = world.get_actors().filter("vehicle.*")
print("cars", sorted(c.type_id for c in cars))
"""


def test_replay_file_plays_a_log_through_the_client(server, tmp_path):
    log = tmp_path / "drive.log"
    assert "\ncar " in output(run_client(tmp_path, server.port, RECORD, str(log)))
    out = output(run_client(tmp_path, server.port, REPLAY, str(log)))
    assert out.startswith(f"Replaying File: {log}\n")
    assert out.splitlines()[-1] == "cars ['vehicle.lincoln.mkz_2017', 'vehicle.tesla.model3']"


DRAW = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
client.start_recorder(sys.argv[2])
debug = world.debug
debug.draw_point(carla.Location(1, 2, 3), 0.25, carla.Color(0, 255, 0), 2.0)
debug.draw_line(carla.Location(0, 0, 1), carla.Location(10, 0, 1), 0.5, carla.Color(0, 0, 255), 2.0)
red = carla.Color(255, 0, 0)
debug.draw_arrow(carla.Location(0, 0, 1), carla.Location(0, 5, 1), 0.1, 0.3, red, 2.0)
box = carla.BoundingBox(carla.Location(5, 5, 1), carla.Vector3D(2, 1, 0.5))
debug.draw_box(box, carla.Rotation(yaw=30), 0.05, carla.Color(255, 255, 0), 2.0)
debug.draw_string(carla.Location(1, 1, 2), "crossing", False, carla.Color(255, 255, 255), 2.0)
for _ in range(3):
    world.tick()
client.stop_recorder()
print("stopped")
"""


def test_debug_drawings_of_a_client_reach_the_recording_s_sidecar(server, tmp_path):
    from recorder.logfile.debug_sidecar import read_sidecar, sidecar_path

    log = tmp_path / "draw.log"
    assert output(run_client(tmp_path, server.port, DRAW, str(log))) == "stopped\n"
    drawn = read_sidecar(sidecar_path(log))
    assert [d.kind for d in drawn] == ["point", "line", "arrow", "box", "string"]
    assert drawn[0].points == ((1.0, 2.0, 3.0),) and drawn[0].color == (0, 255, 0, 255)
    assert drawn[0].thickness == 0.25
    assert drawn[1].points == ((0.0, 0.0, 1.0), (10.0, 0.0, 1.0)) and drawn[1].thickness == 0.5
    assert drawn[2].arrow_size == pytest.approx(0.3)
    assert drawn[3].extent == (2.0, 1.0, 0.5) and drawn[3].yaw == 30.0
    assert drawn[4].text == "crossing"
    assert "does not serve" not in server.log()
