"""CARLA 0.9.16's call signatures (runner/carla/reference.py, generated from CARLA's PythonAPI):
every implemented call takes CARLA's parameters by CARLA's keyword names, the batch,
recorder and replayer calls in every keyword form, and the deprecated names CARLA keeps."""

from __future__ import annotations

import ast
import importlib.metadata
import inspect

import pytest

import runner.carla as carla
from runner.carla import command
from runner.carla.binding import bind_carla
from runner.carla.client import Client, configure
from runner.carla.missing import MissingMember
from runner.carla.reference import COMMAND_API, SIGNATURES

CAR = "vehicle.lincoln.mkz_2020"

# Defaults that differ in spelling only: CARLA's WorldSettings takes 0.0 for "no fixed step",
# and its setter stores that as None (World.cpp), lockstep's default None.
SAME_MEANING = {("WorldSettings.__init__", "fixed_delta_seconds"): (0.0, None)}


def _parameter(text: str) -> tuple[str, str | None]:
    name, _, default = text.partition("=")
    return name, (default if default else None)


def _implemented_calls():
    for key, overloads in sorted(SIGNATURES.items()):
        class_name, member = key.split(".")
        space = command if class_name in COMMAND_API else carla
        cls = space.__dict__.get(class_name)
        if not isinstance(cls, type):
            continue
        attr = inspect.getattr_static(cls, member, None)
        if attr is None or isinstance(attr, MissingMember | property):
            continue
        fn = cls if member == "__init__" else getattr(cls, member)
        if not callable(fn):
            continue
        signature = inspect.signature(fn)
        parameters = list(signature.parameters.values())
        if member != "__init__" and parameters and parameters[0].name == "self":
            signature = signature.replace(parameters=parameters[1:])
        for overload in overloads:
            if overload:  # an overload without keyword names takes positions only
                yield key, overload, signature


CALLS = list(_implemented_calls())


def test_the_reference_has_the_signatures_the_issue_names():
    # read from CARLA 0.9.16's bindings (PythonAPI/carla/source/libcarla/Client.cpp)
    assert SIGNATURES["Client.apply_batch_sync"] == (("commands", "do_tick=False"),)
    assert SIGNATURES["Client.start_recorder"] == (
        ("name", "additional_data=False", "stop_replayer=True"),
    )
    assert SIGNATURES["Client.replay_file"][0][:6] == (
        "name",
        "time_start",
        "duration",
        "follow_id",
        "replay_sensors=False",
        "replay_weather=False",
    )
    assert len(CALLS) > 150


@pytest.mark.parametrize("key, overload, signature", CALLS, ids=[c[0] for c in CALLS])
def test_every_implemented_call_takes_carla_s_keywords_and_defaults(key, overload, signature):
    every = {_parameter(p)[0]: object() for p in overload}
    required = {_parameter(p)[0]: object() for p in overload if _parameter(p)[1] is None}
    signature.bind(**every)
    signature.bind(**required)
    for text in overload:
        name, default = _parameter(text)
        if default is None or default.startswith("<"):
            continue  # a C++ object as default: the behaviour tests cover it
        ours = signature.parameters[name].default
        carla_value = ast.literal_eval(default)
        if (key, name) in SAME_MEANING:
            assert (carla_value, ours) == SAME_MEANING[(key, name)]
        else:
            assert ours == carla_value, f"{key}({name}=...): CARLA's default {default}"


@pytest.fixture
def client():
    configure()
    yield Client("localhost", 2000)
    configure()


def _vehicle_batch(world, count):
    blueprint = world.get_blueprint_library().find(CAR)
    return [command.SpawnActor(blueprint, t) for t in world.get_map().get_spawn_points()[:count]]


def test_apply_batch_and_apply_batch_sync_in_each_keyword_form(client):
    world = client.load_world("town_small")
    frame = world.get_snapshot().frame
    assert client.apply_batch(_vehicle_batch(world, 1)) is None
    client.apply_batch(commands=[], do_tick=True)
    assert world.get_snapshot().frame == frame + 1
    responses = client.apply_batch_sync(_vehicle_batch(world, 3)[1:], True)
    assert world.get_snapshot().frame == frame + 2
    responses += client.apply_batch_sync(commands=[], do_tick=False)
    assert world.get_snapshot().frame == frame + 2
    assert [r.has_error() for r in responses] == [False, False]


def test_start_recorder_in_each_keyword_form(client, tmp_path):
    world = client.load_world("town_small")
    for i, call in enumerate(
        [
            lambda name: client.start_recorder(name),
            lambda name: client.start_recorder(name, True),
            lambda name: client.start_recorder(name=name, additional_data=False),
            lambda name: client.start_recorder(name, additional_data=True, stop_replayer=False),
        ]
    ):
        path = tmp_path / f"run{i}.log"
        assert call(str(path)) == str(path)
        world.tick()
        client.stop_recorder()
        info = client.show_recorder_file_info(name=str(path), show_all=False)
        assert info.splitlines()[1] == "Map: town_small"


def test_replay_file_in_each_0916_keyword_form(client, tmp_path):
    world = client.load_world("town_small")
    client.apply_batch_sync(_vehicle_batch(world, 1), True)
    log = str(tmp_path / "run.log")
    client.start_recorder(log)
    for _ in range(10):
        world.tick()
    client.stop_recorder()
    offset = carla.Transform(carla.Location(-10, 0, 5), carla.Rotation(-25, 0, 0))
    texts = [
        client.replay_file(log, 0.0, 0.0, 0),
        client.replay_file(log, 0.0, 0.0, 0, False),
        client.replay_file(log, 0.0, 0.0, 0, False, True, offset, ""),
        client.replay_file(
            name=log,
            time_start=0.0,
            duration=0.0,
            follow_id=0,
            replay_sensors=False,
            replay_weather=False,
            offset=offset,
            map_override="",
        ),
        client.replay_file(log, 0.0, 0.0, 0, map_override=""),
    ]
    # CARLA's replayer text (recorder.Replayer): "Replaying File: <name>" first
    assert all(text.startswith(f"Replaying File: {log}\n") for text in texts)
    client.stop_replayer(keep_actors=False)


def test_the_deprecated_names_carla_keeps(client):
    world = client.load_world("town_small")
    world.tick()
    snapshot = world.get_snapshot()
    stamp = snapshot.timestamp
    assert (snapshot.frame_count, snapshot.elapsed_seconds) == (1, stamp.elapsed_seconds)
    # (CARLA's delta: float32(0.05), world.world's docstring)
    assert (snapshot.delta_seconds, snapshot.platform_timestamp) == (0.05000000074505806, 0.0)
    assert stamp.frame_count == 1
    data = carla.SensorData(7, 0.35, carla.Transform())
    assert data.frame_number == 7


def test_get_actors_keeps_the_order_of_the_ids_given(client):
    world = client.load_world("town_small")
    ids = [r.actor_id for r in client.apply_batch_sync(_vehicle_batch(world, 3))]
    order = [ids[2], ids[0], 99999, ids[1]]
    assert [a.id for a in world.get_actors(order)] == [ids[2], ids[0], ids[1]]


def test_a_control_takes_a_script_s_own_attribute_and_carla_s_timestamp():
    control = carla.VehicleControl(throttle=0.5, timestamp=1.5)
    control.manual_by_script = True  # scenario_runner hangs one on a control
    assert (control.timestamp, control.manual_by_script) == (1.5, True)
    walker = carla.WalkerControl(speed=1.0, timestamp=2.0)
    assert walker.timestamp == 2.0


def test_transform_moves_a_list_of_points_in_place():
    t = carla.Transform(carla.Location(1.0, 2.0, 0.0), carla.Rotation(yaw=90.0))
    points = [carla.Location(1.0, 0.0, 0.0), carla.Location(0.0, 0.0, 1.0)]
    assert t.transform(points) is None
    # yaw 90: forward x -> y; (1, 0, 0) -> (0, 1, 0) + (1, 2, 0)
    assert points[0].x == pytest.approx(1.0, abs=1e-12)
    assert points[0].y == pytest.approx(3.0, abs=1e-12)
    assert (points[1].x, points[1].y, points[1].z) == pytest.approx((1.0, 2.0, 1.0))


def test_make_unit_vector_leaves_a_vector_shorter_than_epsilon_as_it_is():
    tiny = carla.Vector3D(1e-9, 0.0, 0.0)
    assert tiny.make_unit_vector() == carla.Vector3D(1e-9, 0.0, 0.0)
    assert carla.Vector3D(3.0, 4.0, 0.0).make_unit_vector() == carla.Vector3D(0.6, 0.8, 0.0)


def test_a_failing_follow_up_does_not_fail_its_spawn_and_all_act_on_the_new_actor(client):
    world = client.load_world("town_small")
    blueprint = world.get_blueprint_library().find(CAR)
    spot = world.get_map().get_spawn_points()[0]
    spawn = (
        command.SpawnActor(blueprint, spot)
        .then(command.ApplyWalkerControl(command.FutureActor, carla.WalkerControl()))
        .then(command.SetSimulatePhysics(actor_id=12345, enabled=False))
    )
    (response,) = client.apply_batch_sync([spawn])
    # a walker's control on a vehicle fails on its own...
    assert command.run_batch(
        world, [command.ApplyWalkerControl(response.actor_id, carla.WalkerControl())]
    )[0].has_error()
    # ...but not the spawn's response, and CARLA's server points every follow-up at the new
    # actor, whatever id it was made with (CarlaServer.cpp's SpawnActor)
    assert not response.has_error()
    actors = world.state_tables().actors
    assert not actors.simulate_physics[response.actor_id - 1]


def test_the_carla_distribution_reports_carla_s_version():
    bind_carla()
    assert importlib.metadata.version("carla") == "0.9.16"
    assert importlib.metadata.metadata("carla")["Version"] == "0.9.16"


def test_start_recorder_on_a_folder_that_is_not_there_answers_empty_as_carla(client, tmp_path):
    client.load_world("town_small")
    # CARLA's recorder answers "" when it cannot open the file, and records nothing
    assert client.start_recorder(str(tmp_path / "no" / "such" / "run.log")) == ""
    client.stop_recorder()
