"""CARLA's world-level light calls on World, and the light, sign and sensor handle methods."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.traffic_helpers import blueprint, world_on
from world.actors.vehicle_state import ActorType
from world.actors.vehicle_state import TrafficLightState as S
from world.errors import WorldError
from world.geometry import Location, Rotation, Transform
from world.handles import Sensor, TrafficLight, TrafficSign
from world.map.flat_map import FlatMap
from world.map.map import Map
from world.settings import WorldSettings
from world.world import World


@pytest.fixture(scope="module")
def town01_path(shared):
    return shared / "maps/carla/Town01.xodr"


@pytest.fixture(scope="module")
def town01_map(town01_path):
    return Map.from_file(town01_path)


def test_map_lights_and_signs_get_the_traffic_handles(town01_map):
    world = world_on(town01_map)
    kinds = world._actors.kind[: world._actors.n]
    for actor in world.get_actors():
        if int(kinds[actor.id - 1]) == ActorType.TrafficLight:
            assert type(actor) is TrafficLight
        elif int(kinds[actor.id - 1]) == ActorType.TrafficSign:
            assert type(actor) is TrafficSign
    assert len(world.get_actors().filter("traffic.traffic_light")) == 36


def test_freeze_all_then_tick_keeps_the_elapsed_time(town01_map):
    # 4 ticks of 0.25 s: 1.0 s into green. Frozen, 10 more ticks change nothing; thawed, one
    # more tick adds 0.25 s.
    world = world_on(town01_map, dt=0.25)
    light = world.get_actor(2)
    for _ in range(4):
        world.tick()
    assert light.get_elapsed_time() == 1.0
    world.freeze_all_traffic_lights(True)
    assert all(a.is_frozen() for a in world.get_actors().filter("traffic.traffic_light"))
    for _ in range(10):
        world.tick()
    assert light.get_elapsed_time() == 1.0 and light.state == S.Green
    world.freeze_all_traffic_lights(False)
    assert not light.is_frozen()
    world.tick()
    assert light.get_elapsed_time() == 1.25


def test_set_green_time_changes_the_stage_length(town01_map):
    # Green 2 s with 0.25 s ticks: tick 8 reaches 2.0 s (not past it), tick 9 turns yellow.
    # The controller of light 2 (signal 361, ctrl396) holds only that light; light 5 is in
    # another junction and keeps its state for these 2.25 s (its stages are 10/3/2 s).
    world = world_on(town01_map, dt=0.25)
    light, other = world.get_actor(2), world.get_actor(5)
    before = other.get_state()
    light.set_green_time(2.0)
    assert light.get_green_time() == 2.0 and other.get_green_time() == 10.0
    for _ in range(8):
        world.tick()
    assert light.get_state() == S.Green and light.get_elapsed_time() == 2.0
    world.tick()
    assert light.get_state() == S.Yellow and light.get_elapsed_time() == 0.0
    assert other.get_state() == before
    light.set_yellow_time(0.5)
    light.set_red_time(1.5)
    assert (light.get_yellow_time(), light.get_red_time()) == (0.5, 1.5)


def test_reset_group_and_reset_all(town01_map):
    # Tick 41 of 0.25 s: light 2 (first controller of junction 26) turns yellow. reset_group
    # starts the group again: light 2 green at 0 s, lights 3 and 4 (next controllers) red.
    world = world_on(town01_map, dt=0.25)
    light = world.get_actor(2)
    for _ in range(41):
        world.tick()
    assert light.get_state() == S.Yellow
    light.reset_group()
    assert [a.get_state() for a in light.get_group_traffic_lights()] == [S.Green, S.Red, S.Red]
    assert light.get_elapsed_time() == 0.0
    world.get_actor(3).set_state(S.Green)
    world.reset_all_traffic_lights()
    assert world.get_actor(3).get_state() == S.Red


def _junction_signals(path) -> dict[str, list[str]]:
    """From the file alone: each junction's light signal ids, through its controllers."""
    root = ET.parse(path).getroot()
    controls = {
        c.get("id"): [k.get("signalId") for k in c.findall("control")]
        for c in root.findall("controller")
    }
    out = {}
    for junction in root.findall("junction"):
        ids = []
        for ref in junction.findall("controller"):
            for signal in controls[ref.get("id")]:
                if signal not in ids:
                    ids.append(signal)
        if ids:
            out[junction.get("id")] = ids
    return out


def test_lights_in_junction_are_the_junction_group(town01_map, town01_path):
    world = world_on(town01_map)
    expected = _junction_signals(town01_path)
    assert len(expected) == 12  # Town01's signalled junctions
    total = 0
    for junction_id, signals in expected.items():
        found = world.get_traffic_lights_in_junction(int(junction_id))
        assert sorted(a.get_opendrive_id() for a in found) == sorted(signals)
        assert [a.id for a in found] == sorted(a.id for a in found)
        assert found[0].get_group_traffic_lights() == found
        total += len(found)
    assert total == 36
    assert world.get_traffic_lights_in_junction(999) == []


def test_light_lookups_by_landmark_and_opendrive_id(town01_map):
    world = world_on(town01_map)
    landmarks = town01_map.get_all_landmarks_from_id("361")
    assert landmarks
    assert all(world.get_traffic_light(lm).id == 2 for lm in landmarks)
    assert world.get_traffic_light_from_opendrive_id("no such signal") is None


def test_light_boxes_are_the_light_actor_box_in_the_world_frame(town01_map):
    world = world_on(town01_map)
    light = world.get_actor(2)
    (box,) = light.get_light_boxes()
    assert box.location.distance(light.get_location()) < 1e-9
    assert (box.extent.x, box.extent.y, box.extent.z) == (0.3, 0.3, 2.5)
    assert box.rotation.yaw == light.get_transform().rotation.yaw


def test_a_sensor_is_listening_toggles():
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    sensor = world.spawn_actor(blueprint("sensor.other.collision"), Transform(Location(0, 0, 1)))
    assert isinstance(sensor, Sensor)
    assert not sensor.is_listening()
    sensor.listen(print)
    assert sensor.is_listening()
    sensor.stop()
    assert not sensor.is_listening()
    sensor.listen(print)
    sensor.destroy()
    assert not sensor.is_listening()
    with pytest.raises(WorldError, match="destroyed"):
        sensor.listen(print)


def test_a_world_without_traffic_says_so():
    def one_light(world: World) -> None:
        world.register_static_actor(
            "traffic.traffic_light", ActorType.TrafficLight, Transform(Location(), Rotation())
        )

    world = World(FlatMap(), static_actor_providers=[one_light])
    light = world.get_actor(2)
    assert isinstance(light, TrafficLight)
    with pytest.raises(WorldError, match="no traffic system"):
        light.get_state()
    with pytest.raises(WorldError, match="no traffic system"):
        world.freeze_all_traffic_lights(True)
    # The default world on a FlatMap has a traffic system with no lights.
    flat = World(FlatMap())
    assert flat.get_traffic_lights_in_junction(0) == []
    assert [a.type_id for a in flat.get_actors()] == ["spectator"]
