"""`lockstep serve` driven by CARLA's real client: world, settings, map, blueprints, spawn,
control, synchronous ticks, the snapshot's fields, traffic lights, errors.

Expected values come from lockstep's in-process world doing the same steps (the server
must carry them over the wire unchanged, as float32 where CARLA's types are float32), from
CARLA's own texts, and from numbers set by the script.
"""

from __future__ import annotations

import numpy as np
import pytest
from serve_helpers import carla_client_or_skip, output, run_client, served

from runner.carla.client import Client, configure
from world import Location, Rotation, Transform, VehicleControl

CAR = "vehicle.lincoln.mkz_2017"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    carla_client_or_skip()
    with served(tmp_path_factory.mktemp("serve"), "--sync") as process:
        yield process


def _f32(x: float) -> str:
    return f"{float(np.float32(x)):.9g}"


ROUND_TRIP = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
print("version", client.get_server_version())
settings = world.get_settings()
print("settings", settings.synchronous_mode, settings.fixed_delta_seconds, settings.substepping)
carla_map = world.get_map()
points = carla_map.get_spawn_points()
print("map", carla_map.name, len(points))
library = world.get_blueprint_library()
wheels = library.find("vehicle.lincoln.mkz_2017").get_attribute("number_of_wheels")
print("blueprints", len(library), wheels.as_int())
frame = world.get_snapshot().frame
print("frame", frame)
car = world.spawn_actor(library.find("vehicle.lincoln.mkz_2017"), points[0])
car.apply_control(carla.VehicleControl(throttle=0.5, steer=0.25))
for _ in range(20):
    world.tick()
t, v = car.get_transform(), car.get_velocity()
print("pose", *["%.9g" % x for x in (t.location.x, t.location.y, t.location.z, t.rotation.yaw)])
print("velocity", *["%.9g" % x for x in (v.x, v.y, v.z)])
c = car.get_control()
print("control", c.throttle, c.steer, c.brake, c.hand_brake, c.gear)
print("after", world.get_snapshot().frame, car.id in [a.id for a in world.get_actors()])
print("destroyed", car.destroy())
"""


def test_a_synchronous_round_trip_carries_lockstep_s_world(server, tmp_path):
    lines = dict(
        line.split(" ", 1)
        for line in output(run_client(tmp_path, server.port, ROUND_TRIP)).splitlines()
    )
    assert lines["version"] == "0.9.16"
    assert lines["settings"] == "True 0.05 True"
    configure()
    world = Client("127.0.0.1", 1).get_world()
    points = world.get_map().get_spawn_points()
    assert lines["map"] == f"Carla/Maps/town_small {len(points)}"
    library = world.get_blueprint_library()
    assert lines["blueprints"] == f"{len(library)} 4"
    frame = int(lines["frame"])
    # the same steps in-process: the spawn point as the client sent it back (float32), the
    # same control, the same number of ticks before and after
    for _ in range(frame):
        world.tick()
    p = points[0]
    f = [float(np.float32(x)) for x in (p.location.x, p.location.y, p.location.z)]
    r = [float(np.float32(x)) for x in (p.rotation.pitch, p.rotation.yaw, p.rotation.roll)]
    car = world.spawn_actor(library.find(CAR), Transform(Location(*f), Rotation(*r)))
    car.apply_control(VehicleControl(throttle=0.5, steer=0.25))
    for _ in range(20):
        world.tick()
    t, v = car.get_transform(), car.get_velocity()
    assert lines["pose"].split() == [
        _f32(x) for x in (t.location.x, t.location.y, t.location.z, t.rotation.yaw)
    ]
    assert lines["velocity"].split() == [_f32(x) for x in (v.x, v.y, v.z)]
    gear = car.get_control().gear
    assert lines["control"] == f"0.5 0.25 0.0 False {gear}"
    assert lines["after"] == f"{frame + 20} True"
    assert lines["destroyed"] == "True"


LIGHTS = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
for _ in range(137):
    world.tick()
print("frame", world.get_snapshot().frame)
for light in sorted(world.get_actors().filter("traffic.traffic_light"), key=lambda a: a.id):
    print("light", light.id, light.get_opendrive_id(), light.get_state(), light.get_pole_index(),
          light.get_green_time(), light.get_yellow_time(), light.get_red_time(),
          "%.6f" % light.get_elapsed_time(), light.is_frozen())
for sign in sorted(world.get_actors().filter("traffic.s*"), key=lambda a: a.id):
    b = sign.trigger_volume
    values = (b.location.x, b.location.y, b.extent.x, b.extent.y)
    print("sign", sign.id, sign.type_id, *["%.4f" % x for x in values])
"""


def test_traffic_lights_and_signs_read_through_the_snapshot_and_actor_records(server, tmp_path):
    out = output(run_client(tmp_path, server.port, LIGHTS)).splitlines()
    frame = int(out[0].split()[1])
    configure()
    world = Client("127.0.0.1", 1).get_world()
    for _ in range(frame):
        world.tick()
    expected = []
    for light in sorted(world.get_actors().filter("traffic.traffic_light"), key=lambda a: a.id):
        expected.append(
            f"light {light.id} {light.get_opendrive_id()} {light.get_state()} "
            f"{light.get_pole_index()} {float(np.float32(light.get_green_time()))} "
            f"{float(np.float32(light.get_yellow_time()))} "
            f"{float(np.float32(light.get_red_time()))} "
            f"{float(np.float32(light.get_elapsed_time())):.6f} {light.is_frozen()}"
        )
    for sign in sorted(world.get_actors().filter("traffic.s*"), key=lambda a: a.id):
        b = sign.trigger_volume
        values = (b.location.x, b.location.y, b.extent.x, b.extent.y)
        expected.append(f"sign {sign.id} {sign.type_id} " + " ".join(f"{x:.4f}" for x in values))
    assert len(expected) > 10
    assert out[1:] == expected


ERRORS = """
import sys, carla
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
point = world.get_map().get_spawn_points()[3]
blueprint = world.get_blueprint_library().find("vehicle.tesla.model3")
first = world.spawn_actor(blueprint, point)
print("second", world.try_spawn_actor(blueprint, point))
try:
    world.spawn_actor(blueprint, point)
except RuntimeError as exc:
    print("error", exc)
try:
    client.load_world("NoSuchTown")
except RuntimeError as exc:
    print("load", exc)
# is_alive reads the last snapshot the client got (an actor missing from it has an
# uninitialised state in CARLA's client): one step carries the car
world.tick()
print("alive", first.is_alive)
"""


def test_refusals_come_back_as_carla_s_errors_and_the_server_goes_on(server, tmp_path):
    out = output(run_client(tmp_path, server.port, ERRORS)).splitlines()
    assert out == [
        "second None",
        "error Spawn failed because of collision at spawn position",
        "load Map 'NoSuchTown' not found",
        "alive True",
    ]
    assert server.alive()


BATCH = """
import sys, carla
from carla import command as c
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.reload_world()
points = world.get_map().get_spawn_points()
library = world.get_blueprint_library()
car = library.find("vehicle.tesla.model3")
walker = library.find("walker.pedestrian.0001")
spawned = client.apply_batch_sync(
    [c.SpawnActor(car, points[i]) for i in (0, 5, 10, 15)]
    + [c.SpawnActor(walker, carla.Transform(carla.Location(x=60.0, y=40.0, z=1.0)))]
)
a, b, d, e, w = [r.actor_id for r in spawned]
physics = world.get_actor(a).get_physics_control()
physics.mass = 2345.0
moved = carla.Transform(carla.Location(x=30.0, y=-1.75, z=0.5), carla.Rotation(yaw=180.0))
lights = carla.VehicleLightState(carla.VehicleLightState.Position | carla.VehicleLightState.Brake)
batch = [
    c.ApplyVehicleControl(a, carla.VehicleControl(throttle=0.25, steer=-0.5, brake=0.125,
                                                  hand_brake=True, manual_gear_shift=True, gear=3)),
    c.SetVehicleLightState(a, lights),
    c.ApplyVehiclePhysicsControl(a, physics),
    c.ApplyTransform(b, moved),
    c.SetSimulatePhysics(b, False),
    c.ApplyWalkerControl(w, carla.WalkerControl(carla.Vector3D(0.0, 1.0, 0.0), 1.5, False)),
    c.ApplyTargetVelocity(d, carla.Vector3D(3.0, 0.0, 0.0)),
    c.SetEnableGravity(d, False),
    c.ApplyImpulse(d, carla.Vector3D(0.0, 0.0, 0.0)),
    c.ApplyTorque(d, carla.Vector3D(0.0, 0.0, 0.0)),
    c.DestroyActor(e),
    c.DestroyActor(99999),
    c.SpawnActor(car, points[20]).then(c.SetSimulatePhysics(c.FutureActor, False)),
]
responses = client.apply_batch_sync(batch, True)
for r in responses:
    print("response", r.actor_id if not r.error else 0, r.error)
car_a = world.get_actor(a)
k = car_a.get_control()
print("control", k.throttle, k.steer, k.brake, k.hand_brake, k.manual_gear_shift)
print("lights", int(car_a.get_light_state()))
print("mass", car_a.get_physics_control().mass)
t = world.get_actor(b).get_transform()
print("moved", t.location.x, t.location.y, t.rotation.yaw)
print("walker", world.get_actor(w).get_control().speed)
print("gone", world.get_actor(e) is None or not world.get_actor(e).is_alive)
"""


def test_a_batch_runs_every_kind_of_command_and_answers_each(server, tmp_path):
    out = output(run_client(tmp_path, server.port, BATCH)).splitlines()
    responses = [line.split(" ", 2) for line in out if line.startswith("response")]
    assert len(responses) == 13
    errors = [r[2] for r in responses if r[2]]
    assert errors == ["unable to find actor 99999"]
    assert all(int(r[1]) > 0 for r in responses if not r[2])
    rest = out[len(responses) :]
    assert rest == [
        "control 0.25 -0.5 0.125 True True",
        "lights 9",  # Position | Brake
        "mass 2345.0",
        "moved 30.0 -1.75 180.0",
        "walker 1.5",
        "gone True",
    ]
