"""Traffic in a world on CARLA's Town01: actors, groups, light boxes acting on vehicles, limits."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.traffic_helpers import blueprint, world_on
from world.actors.vehicle_state import ActorType
from world.actors.vehicle_state import TrafficLightState as S
from world.errors import WorldError
from world.geometry import Location, Transform
from world.map.map import Map
from world.traffic.signals.install import traffic_light_table
from world.traffic.signals.system import BOX_LIGHT, BOX_SPEED

CAR = "vehicle.lincoln.mkz_2017"


@pytest.fixture(scope="module")
def town01_map(shared):
    return Map.from_file(shared / "maps/carla/Town01.xodr")


def test_lights_and_signs_follow_the_spectator(town01_map):
    world = world_on(town01_map)
    actors = world.get_actors()
    assert actors[0].type_id == "spectator"
    assert [a.type_id for a in actors[1:37]] == ["traffic.traffic_light"] * 36
    assert all(a.type_id.startswith("traffic.speed_limit.") for a in actors[37:58])
    assert len(actors) == 58
    assert int(world._actors.kind[1]) == ActorType.TrafficLight
    assert int(world._actors.kind[37]) == ActorType.TrafficSign
    light = actors[1]
    assert light.get_opendrive_id() == "361"  # the first light of junction 26's first controller
    assert world.get_traffic_light_from_opendrive_id("361").id == light.id
    assert [str(a.get_state()) for a in light.get_group_traffic_lights()] == ["Green", "Red", "Red"]
    assert [a.id for a in world.get_traffic_lights_in_junction(26)] == [2, 3, 4]


def test_world_light_turns_yellow_on_tick_41(town01_map):
    world = world_on(town01_map, dt=0.25)
    light = world.get_actor(2)
    for _ in range(40):
        world.tick()
    assert light.get_state() == S.Green and light.get_elapsed_time() == 10.0
    world.tick()
    assert light.get_state() == S.Yellow and light.get_elapsed_time() == 0.0
    light.freeze(True)
    assert world.get_actor(5).is_frozen()  # freezing one light stops all
    for _ in range(100):
        world.tick()
    assert light.get_state() == S.Yellow and light.get_elapsed_time() == 0.0
    world.freeze_all_traffic_lights(False)
    world.reset_all_traffic_lights()
    assert light.get_state() == S.Green


def test_a_vehicle_in_a_light_box_takes_its_state_at_once(town01_map):
    world = world_on(town01_map)
    system = world._traffic.system
    box = next(b for b in world._traffic.boxes if b.kind == BOX_LIGHT)
    light = world.get_actor(world._traffic.light_ids[box.owner])
    place = box.transform
    place.location.z += 0.05
    car = world.spawn_actor(blueprint(CAR), place)
    assert car.get_traffic_light() is None and car.get_traffic_light_state() == S.Green
    world.tick()
    assert car.is_at_traffic_light() and car.get_traffic_light().id == light.id
    assert car.get_traffic_light_state() == light.get_state()
    light.set_state(S.Red)
    assert car.get_traffic_light_state() == S.Red  # reaches the vehicle at once
    light.set_state(S.Yellow)
    assert car.get_traffic_light_state() == S.Yellow
    far = car.get_transform()
    far.location = Location(far.location.x, far.location.y + 40.0, far.location.z)
    car.set_transform(far)
    world.tick()
    assert car.get_traffic_light() is None and not car.is_at_traffic_light()
    assert car.get_traffic_light_state() == S.Green
    assert system.groups.get_state(box.owner) == S.Yellow


def behind(box, metres: float) -> Transform:
    """A pose `metres` behind a box's centre along its lane's travel direction (the box's
    forward), 5 cm up, facing the same way."""
    place = box.transform
    forward = place.get_forward_vector()
    loc = place.location
    at = Location(loc.x - metres * forward.x, loc.y - metres * forward.y, loc.z + 0.05)
    return Transform(at, place.rotation)


def test_a_car_takes_the_light_once_its_front_is_in_the_box(town01_map):
    # The light box is 3 m long (half 1.5 along the lane). The mkz_2017's box: half length
    # 2.4508 about a centre 0.004 m ahead of the origin, so its front is 2.4548 m ahead.
    # Origin 3.5 m behind the box centre (2 m outside the box): the front, 1.045 m behind
    # the centre, is 0.455 m in, and the car takes the light's state. Origin 6 m behind:
    # the front (3.545 m behind) is 2.045 m short, and the car has no light.
    world = world_on(town01_map)
    box = next(b for b in world._traffic.boxes if b.kind == BOX_LIGHT)
    light = world.get_actor(world._traffic.light_ids[box.owner])
    light.set_state(S.Red)
    light.freeze(True)
    near = world.spawn_actor(blueprint(CAR), behind(box, 3.5))
    world.tick()
    assert near.get_traffic_light().id == light.id and near.get_traffic_light_state() == S.Red
    near.set_transform(behind(box, 6.0))
    world.tick()
    assert near.get_traffic_light() is None and near.get_traffic_light_state() == S.Green


def test_speed_limit_is_30_before_any_sign_and_stays_after_leaving(town01_map):
    world = world_on(town01_map)
    box = next(
        b
        for b in world._traffic.boxes
        if b.kind == BOX_SPEED and world._traffic.placement.signs[b.owner].speed_limit == 90.0
    )
    car = world.spawn_actor(blueprint(CAR), box.transform)
    assert car.get_speed_limit() == 30.0
    world.tick()
    assert car.get_speed_limit() == 90.0
    away = car.get_transform()
    away.location = Location(away.location.x, away.location.y + 30.0, away.location.z)
    car.set_transform(away)
    world.tick()
    assert car.get_speed_limit() == 90.0


def test_a_speed_limit_box_reaches_a_car_whose_origin_is_outside(town01_map):
    # Town01's speed-limit boxes are cubes; this one's half size h is read from the box.
    # Origin h + 2 m behind its centre: the car's front (2.4548 m ahead of the origin) is
    # 0.455 m in, so the car gets the limit; h + 4.5 m behind it is 2.045 m short.
    world = world_on(town01_map)
    box = next(
        b
        for b in world._traffic.boxes
        if b.kind == BOX_SPEED and world._traffic.placement.signs[b.owner].speed_limit == 90.0
    )
    short = world.spawn_actor(blueprint(CAR), behind(box, box.extent.x + 4.5))
    world.tick()
    assert short.get_speed_limit() == 30.0
    short.set_transform(behind(box, box.extent.x + 2.0))
    world.tick()
    assert short.get_speed_limit() == 90.0


def light_box_expectations(path) -> tuple[int, dict[str, set[str]]]:
    """From the file alone: how many light boxes (one per driving lane named by a light's
    signal references), and for each junction the roads that enter it."""
    root = ET.parse(path).getroot()
    roads = {r.get("id"): r for r in root.findall("road")}
    lights = {s.get("id") for s in root.iter("signal") if s.get("type") == "1000001"}
    count = 0
    for road in roads.values():
        refs = [r for r in road.iter("signalReference") if r.get("id") in lights]
        refs += [s for s in road.iter("signal") if s.get("id") in lights]
        for ref in refs:
            for v in ref.findall("validity"):
                lo, hi = sorted((int(v.get("fromLane")), int(v.get("toLane"))))
                count += sum(1 for lane in range(lo, hi + 1) if lane != 0)
    entering: dict[str, set[str]] = {}
    for junction in root.findall("junction"):
        entering[junction.get("id")] = {c.get("incomingRoad") for c in junction.iter("connection")}
    return count, entering


@pytest.mark.parametrize("town", ["Town01", "Town04"])
def test_light_boxes_lie_on_driving_lanes_three_metres_before_the_junction(shared, town):
    path = shared / f"maps/carla/{town}.xodr"
    world_map = Map.from_file(path)
    world = world_on(world_map)
    traffic = world._traffic
    expected_count, entering = light_box_expectations(path)
    boxes = [b for b in traffic.boxes if b.kind == BOX_LIGHT]
    assert len(boxes) == expected_count
    odr = world_map.opendrive
    group_junction = traffic.junction_of_group
    for box in boxes:
        wp = world_map.get_waypoint(box.transform.location)
        road = odr.roads[str(wp.road_id)]
        assert road.junction == "-1" and str(wp.lane_type) == "Driving"
        # 3 m from the lane's end toward the junction (lane < 0 ends at s = length), or,
        # on a road shorter than that (Town04 has 1.48 m and 2.2 m ones), 1e-5 m inside
        # its far end.
        end = road.length if wp.lane_id < 0 else 0.0
        assert abs(wp.s - end) == pytest.approx(min(3.0, road.length - 1e-5), abs=1e-6)
        link = road.successor if wp.lane_id < 0 else road.predecessor
        group = traffic.system.groups.group_of(box.owner)
        assert link.element_type == "junction"
        assert link.element_id == group_junction[group]
        assert road.id in entering[link.element_id]
        assert box.extent.x == 1.5 and box.extent.z == 1.0
        assert box.extent.y == pytest.approx(wp.lane_width / 4.0)


def test_trigger_volume_and_lane_waypoints(town01_map):
    world = world_on(town01_map)
    traffic = world._traffic
    light = world.get_actor(traffic.light_ids[0])
    boxes = [b for b in traffic.boxes if b.kind == BOX_LIGHT and b.owner == 0]
    volume = light.trigger_volume
    # The volume is the first box in the light's frame: back in the world it is the box.
    centre = light.get_transform().transform(volume.location)
    assert centre.distance(boxes[0].transform.location) < 1e-9
    assert (volume.extent.x, volume.extent.z) == (1.5, 1.0)
    # Light 361 (actor 2): referenced on junction roads 33 (s = 18.47) and 52 (s = 18.86),
    # lane 1 each (its own signal has validity 0..0, which names no lane).
    lanes = light.get_affected_lane_waypoints()
    assert [(w.road_id, w.lane_id) for w in lanes] == [(33, 1), (52, 1)]
    assert [w.s for w in lanes] == pytest.approx([18.472233411012237, 18.862042494571618])
    # Stop waypoints: sampled through the first box (on road 16, lane 1, 3 m before its end).
    stops = light.get_stop_waypoints()
    assert [(w.road_id, w.lane_id) for w in stops] == [(16, 1)]
    assert light.get_pole_index() == 0
    sign = world.get_actor(traffic.sign_ids[0])
    assert sign.get_opendrive_id() == traffic.placement.signs[0].opendrive_id
    sign_box = next(b for b in traffic.boxes if b.kind == BOX_SPEED and b.owner == 0)
    width = town01_map.get_waypoint(sign_box.transform.location).lane_width
    assert sign.trigger_volume.extent.x == pytest.approx(0.9 * width / 2, abs=1e-9)


def test_sensors_lockstep_does_not_model_say_so(town01_map):
    world = world_on(town01_map)
    v2x = world.spawn_actor(blueprint("sensor.other.v2x"), town01_map.get_spawn_points()[0])
    assert not v2x.is_listening()
    with pytest.raises(WorldError, match="is not modelled by lockstep"):
        v2x.listen(print)


def test_lights_ahead_of_a_waypoint(town01_map):
    # The box of light 362 (signal on road 0, referenced on junction roads 40 and 46, lane -1,
    # at s = 0.6) lies 3 m before road 0's end: the references are 3.6 m ahead, not 1 m.
    world = world_on(town01_map)
    traffic = world._traffic
    light = world.get_traffic_light_from_opendrive_id("362")
    box = next(
        b for b in traffic.boxes if b.kind == BOX_LIGHT and traffic.light_ids[b.owner] == light.id
    )
    wp = town01_map.get_waypoint(box.transform.location)
    assert [a.id for a in world.get_traffic_lights_from_waypoint(wp, 10.0)] == [light.id]
    assert world.get_traffic_lights_from_waypoint(wp, 1.0) == []
    # Everywhere: one actor per distinct light signal the map finds ahead, in its order.
    for box in [b for b in traffic.boxes if b.kind == BOX_LIGHT]:
        wp = town01_map.get_waypoint(box.transform.location)
        ids = []
        for landmark in wp.get_landmarks(30.0):
            if landmark.type == "1000001" and landmark.id not in ids:
                ids.append(landmark.id)
        found = world.get_traffic_lights_from_waypoint(wp, 30.0)
        assert [a.get_opendrive_id() for a in found] == ids
    with pytest.raises(WorldError, match="finite"):
        world.get_traffic_lights_from_waypoint(wp, float("inf"))


def test_light_table_for_the_recorder(town01_map):
    # After 45 ticks of 0.25 s the first controllers are 4 ticks into yellow (elapsed 1.0);
    # the table agrees with each handle, in actor id order.
    world = world_on(town01_map, dt=0.25)
    world.get_actor(2).set_red_time(4.0)
    for _ in range(45):
        world.tick()
    table = traffic_light_table(world)
    assert table.ids.tolist() == list(range(2, 38))
    for k, actor_id in enumerate(table.ids.tolist()):
        light = world.get_actor(actor_id)
        assert table.state[k] == int(light.get_state())
        assert table.elapsed[k] == light.get_elapsed_time()
        assert table.red_time[k] == light.get_red_time()
        assert not table.frozen[k]
    assert table.state[0] == int(S.Yellow) and table.elapsed[0] == 1.0
    assert table.red_time[0] == 4.0 and table.red_time[1] == 2.0
    assert (table.green_time == 10.0).all() and (table.yellow_time == 3.0).all()
