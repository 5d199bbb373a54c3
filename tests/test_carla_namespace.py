"""lockstep's `carla` namespace (runner.carla): Client, batches, on_tick, the debug helper,
the probes, clear errors for what lockstep lacks, yaw in CARLA's range."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runner.carla as carla
from runner.carla.client import configure
from runner.carla.command import DestroyActor, FutureActor, SetAutopilot, SpawnActor

CAR = "vehicle.lincoln.mkz_2017"


@pytest.fixture
def client():
    configure()  # a fresh in-process simulation for each test
    yield carla.Client("localhost", 2000)
    configure()


def test_a_first_get_world_is_lockstep_s_small_town(client):
    world = client.get_world()
    assert world.get_map().name == "town_small"
    assert client.get_world() is world  # one simulation per port
    assert carla.Client("127.0.0.1", 2000).get_world() is world
    assert carla.Client("127.0.0.1", 2001).get_world() is not world


def test_maps_by_name_and_carla_s_error_text(client, shared):
    configure([str(shared / "maps" / "carla")])
    client = carla.Client("localhost", 2000)
    maps = client.get_available_maps()
    assert "/Game/Carla/Maps/Town01" in maps and "/Game/Carla/Maps/town_small" in maps
    world = client.load_world("/Game/Carla/Maps/Town01")
    assert world.get_map().name == "Town01"
    assert client.load_world_if_different("Town01") is None
    with pytest.raises(carla.LockstepError, match=r"^Map 'Town99' not found$"):
        client.load_world("Town99")
    assert client.get_server_version() == client.get_client_version() == "0.9.16"


def test_a_loaded_world_has_carla_s_default_settings_and_ticks_a_twentieth(client):
    world = client.load_world("town_small")
    settings = world.get_settings()
    assert (settings.synchronous_mode, settings.fixed_delta_seconds) == (False, None)
    assert world.tick() == 1
    # the client reads CARLA's float32 step (world.world): float32(0.05)
    assert world.get_snapshot().timestamp.elapsed_seconds == 0.05000000074505806


def test_apply_batch_sync_spawns_on_the_autopilot_as_generate_traffic_does(client):
    world = client.load_world("town_medium")
    blueprint = world.get_blueprint_library().find(CAR)
    spawns = world.get_map().get_spawn_points()
    assert len(spawns) >= 50
    tm = client.get_trafficmanager(8000)
    batch = [SpawnActor(blueprint, t).then(SetAutopilot(FutureActor, True, 8000)) for t in spawns]
    responses = client.apply_batch_sync(batch[:50], True)
    assert [r.has_error() for r in responses] == [False] * 50
    ids = [r.actor_id for r in responses]
    assert len(set(ids)) == 50
    assert all(tm.has_vehicle(world.get_actor(i)) for i in ids)
    # the same spot again, while the first car stands there: CARLA's collision text
    again = client.apply_batch_sync([SpawnActor(blueprint, spawns[0])])
    assert again[0].error == "Spawn failed because of collision at spawn position"
    start = {i: world.get_actor(i).get_location() for i in ids}
    for _ in range(100):
        world.tick()
    moved = sum(world.get_actor(i).get_location().distance(start[i]) > 5.0 for i in ids)
    assert moved >= 40  # most are under way after 5 s (some wait at lights)
    # an id destroyed already: an error in the response, not an exception
    gone = client.apply_batch_sync([DestroyActor(ids[0]), DestroyActor(ids[0])])
    assert not gone[0].has_error() and gone[1].has_error()


def test_on_tick_calls_each_callback_once_per_tick_with_the_snapshot(client):
    world = client.get_world()
    seen: list[tuple[str, int]] = []
    first = world.on_tick(lambda snap: seen.append(("a", snap.frame)))
    world.on_tick(lambda snap: seen.append(("b", snap.timestamp.frame)))
    for _ in range(3):
        world.tick()
    world.remove_on_tick(first)
    world.tick()
    assert seen == [("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3), ("b", 4)]


def test_location_from_a_vector_as_basic_agent_builds_it(client):
    forward = carla.Vector3D(1.0, 0.0, 0.0)
    extent = carla.Vector3D(2.5, 1.0, 0.8)
    location = carla.Location(10.0, 5.0, 0.0)
    location += carla.Location(extent.x * forward)
    assert location == carla.Location(12.5, 5.0, 0.0)
    assert isinstance(location, carla.Location)


def test_yaw_stays_in_carla_s_range_through_turns(client):
    world = client.load_world("town_small")
    spawn = world.get_map().get_spawn_points()[0]
    car = world.spawn_actor(
        world.get_blueprint_library().find(CAR),
        carla.Transform(spawn.location, carla.Rotation(yaw=270.0)),
    )
    assert car.get_transform().rotation.yaw == -90.0  # 270 turned back a whole turn
    car.apply_control(carla.VehicleControl(throttle=0.5, steer=-1.0))
    yaws = []
    for _ in range(400):  # a few full circles to the left
        world.tick()
        yaws.append(car.get_transform().rotation.yaw)
        assert world.get_snapshot().find(car.id).get_transform().rotation.yaw == yaws[-1]
    assert all(-180.0 < y <= 180.0 for y in yaws)
    assert max(yaws) - min(yaws) > 300.0  # it went round


def test_debug_shapes_last_as_carla_s_life_times_say(client):
    world = client.get_world()
    red = carla.Color(255, 0, 0)
    world.debug.draw_point(carla.Location(1, 2, 3), size=0.2, color=red)  # one frame
    world.debug.draw_string(carla.Location(0, 0, 1), "goal", life_time=0.0)  # for good
    world.debug.draw_box(
        carla.BoundingBox(carla.Location(5, 5, 1), carla.Vector3D(1, 1, 1)),
        carla.Rotation(yaw=30.0),
        life_time=1.0,
    )  # 1 s: 20 ticks of 0.05 s
    kinds = [str(s.kind) for s in world.debug.shapes]
    assert kinds == ["Point", "String", "Box"]
    world.tick()
    assert [str(s.kind) for s in world.debug.shapes] == ["Point", "String", "Box"]
    world.tick()
    assert [str(s.kind) for s in world.debug.shapes] == ["String", "Box"]
    for _ in range(19):
        world.tick()
    assert [str(s.kind) for s in world.debug.shapes] == ["String"]
    shape = world.debug.shapes[0]
    assert (shape.text, shape.frame, shape.color) == ("goal", 0, (255, 0, 0, 255))


def test_names_lockstep_lacks_are_clear_errors(client):
    world = client.get_world()
    car = world.spawn_actor(
        world.get_blueprint_library().find(CAR), world.get_map().get_spawn_points()[0]
    )
    # a class lockstep lacks is a stand-in: isinstance is False, making or reading one raises
    assert not isinstance(car, carla.Osm2Odr)
    assert carla.libcarla.Osm2Odr is carla.Osm2Odr
    with pytest.raises(carla.NotInLockstepError, match=r"^carla\.Osm2Odr is not implemented"):
        carla.Osm2Odr()
    with pytest.raises(
        carla.NotInLockstepError, match=r"^carla\.Osm2Odr\.convert is not implemented"
    ):
        carla.Osm2Odr.convert  # noqa: B018
    with pytest.raises(
        carla.NotInLockstepError, match=r"^carla\.Vehicle\.enable_carsim is not implemented"
    ):
        car.enable_carsim("file.par")
    with pytest.raises(AttributeError):  # an AttributeError, so hasattr answers plainly
        world.load_map_layer(carla.MapLayer.All)
    assert not hasattr(car, "get_failure_state") or callable(car.get_failure_state)
    assert hasattr(car, "apply_control")
    with pytest.raises(AttributeError, match="no attribute 'Nonsense'"):
        carla.Nonsense  # noqa: B018


def test_ground_projection_and_rays(client):
    world = client.load_world("town_small")
    spawn = world.get_map().get_spawn_points()[0]
    x, y = spawn.location.x, spawn.location.y
    ground = world.get_map().ground(np.array([[x, y, 5.0]])).z[0]
    below = world.ground_projection(carla.Location(x, y, ground + 5.0), 20.0)
    assert below.label == carla.CityObjectLabel.Roads
    assert math.isclose(below.location.z, ground, abs_tol=1e-6)
    assert world.ground_projection(carla.Location(x, y, ground + 5.0), 4.0) is None
    car = world.spawn_actor(world.get_blueprint_library().find(CAR), spawn)
    box = car.bounding_box
    heading = spawn.rotation.get_forward_vector()
    # a ray along the car's axis from 10 m behind it meets its rear face first
    back = spawn.location - heading * 10.0
    start = carla.Location(back.x, back.y, ground + box.location.z + 0.01)
    hit = world.project_point(start, heading, 30.0)
    assert hit.label == carla.CityObjectLabel.Car
    rear = 10.0 - (box.extent.x - box.location.x)  # metres from the start to the rear face
    assert math.isclose(hit.location.distance(start), rear, abs_tol=1e-6)
    lights = world.get_level_bbs(carla.CityObjectLabel.TrafficLight)
    assert len(lights) == len(world.get_actors().filter("traffic.traffic_light"))
    assert world.get_level_bbs(carla.CityObjectLabel.Buildings) == []


def test_generated_towns_allow_no_lane_change_across_the_centre_line(client):
    world = client.load_world("town_small")
    driving = [w for w in world.get_map().generate_waypoints(5.0) if not w.is_junction]
    assert driving
    for wp in driving:
        # one lane each way: the only neighbour across a line is the oncoming lane
        assert wp.lane_change == carla.LaneChange.NONE, (wp.road_id, wp.lane_id, wp.s)


def test_a_client_records_a_run_and_replays_it_into_a_new_world(client, tmp_path):
    world = client.load_world("town_small")
    spawn = world.get_map().get_spawn_points()[0]
    car = world.spawn_actor(world.get_blueprint_library().find(CAR), spawn)
    log = tmp_path / "drive.log"
    client.start_recorder(str(log))
    car.apply_control(carla.VehicleControl(throttle=0.6))
    for _ in range(40):
        world.tick()
    client.stop_recorder()
    end = car.get_location()
    assert end.distance(spawn.location) > 2.0
    replay_world = client.load_world("town_small")
    text = client.replay_file(str(log), 0.0, 0.0, 0)
    assert text.startswith(f"Replaying File: {log}\nTotal time recorded: ")
    for _ in range(60):
        replay_world.tick()
    replayed = replay_world.get_actors().filter(CAR)
    assert len(replayed) == 1
    # the replay ends on the log's last frame but one (CARLA never applies the last)
    assert replayed[0].get_location().distance(end) < 0.5
