"""The autopilot on hand-made roads and the small town: speeds, following, lights, choices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from world_helpers import blueprint, flat_world, straight_road

from world import Map, TrafficLightState, World, WorldError, WorldSettings
from world.actors.vehicle_state import VehicleLightState
from world.geometry import Location, Rotation, Transform
from world.traffic.autopilot.fleet import STOP_LIGHT
from world.traffic.autopilot.manager import DEFAULT_LEADING_DISTANCE

CAR = blueprint("vehicle.lincoln.mkz_2017")
TOWN_SMALL = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"

STRAIGHT = straight_road("long_straight", left=[1], right=[-1])


def straight_world() -> World:
    world = World(Map("long_straight", STRAIGHT))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    return world


def lane_start(x: float) -> Transform:
    """On lane -1 of the straight road (centre 1.75 m right of the reference line: y = +1.75)."""
    return Transform(Location(x, 1.75, 0.1), Rotation(0.0, 0.0, 0.0))


def speed(actor) -> float:
    v = actor.get_velocity()
    return float(np.hypot(v.x, v.y))


def test_default_speed_is_70_percent_of_the_limit():
    # No speed-limit sign: the vehicle's limit is 30 km/h; CARLA's default global
    # difference of 30 % gives 0.7 * 30 / 3.6 = 5.8333 m/s.
    world = straight_world()
    car = world.spawn_actor(CAR, lane_start(10.0))
    car.set_autopilot(True)
    for _ in range(600):  # 30 s, about 160 m
        world.tick()
    assert speed(car) == pytest.approx(0.7 * 30.0 / 3.6, abs=0.25)
    assert abs(car.get_location().y - 1.75) < 0.2


def test_speed_difference_and_desired_speed_knobs():
    world = straight_world()
    slow = world.spawn_actor(CAR, lane_start(10.0))
    fast = world.spawn_actor(CAR, Transform(Location(10.0, -1.75, 0.1), Rotation(0, 180, 0)))
    tm = world.get_trafficmanager()
    for car in (slow, fast):
        car.set_autopilot(True)
    tm.vehicle_percentage_speed_difference(slow, 50.0)  # 15 km/h = 4.1667 m/s
    tm.set_desired_speed(fast, 36.0)  # 10 m/s, going the other way on lane 1
    for _ in range(600):
        world.tick()
    assert speed(slow) == pytest.approx(15.0 / 3.6, abs=0.25)
    # lane 1 ends at x = 0 (the road's start): it stops before the end instead
    assert fast.get_location().x > 0.0


def test_follower_stops_at_the_leading_distance():
    # The leader stands with its hand brake at x = 80; both cars are 4.9 m long, so the
    # bumper gap is 80 - x_follower - 4.9, and it must come to DEFAULT_LEADING_DISTANCE
    # (2.5 m) within 1.0 m.
    world = straight_world()
    leader = world.spawn_actor(CAR, lane_start(80.0))
    from world.actors.controls import VehicleControl

    leader.apply_control(VehicleControl(hand_brake=True, brake=1.0))
    follower = world.spawn_actor(CAR, lane_start(20.0))
    follower.set_autopilot(True)
    for _ in range(500):
        world.tick()
    gap = leader.get_location().x - follower.get_location().x - 4.9
    assert speed(follower) < 0.05
    assert gap == pytest.approx(DEFAULT_LEADING_DISTANCE, abs=1.0)
    assert not world.collision_events()


def test_leading_distance_knob():
    world = straight_world()
    leader = world.spawn_actor(CAR, lane_start(80.0))
    from world.actors.controls import VehicleControl

    leader.apply_control(VehicleControl(hand_brake=True, brake=1.0))
    follower = world.spawn_actor(CAR, lane_start(20.0))
    follower.set_autopilot(True)
    world.get_trafficmanager().distance_to_leading_vehicle(follower, 8.0)
    for _ in range(500):
        world.tick()
    gap = leader.get_location().x - follower.get_location().x - 4.9
    assert gap == pytest.approx(8.0, abs=1.0)


def _town_small() -> World:
    world = World(Map.from_file(TOWN_SMALL))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    return world


def _approach_with_light(world):
    """A lane path with a light's box that is long enough to start 30 m before its end."""
    paths = world.get_trafficmanager().fleet.paths
    for p in np.flatnonzero(paths.light >= 0).tolist():
        if paths.length[p] > 40.0:
            return paths, p, int(paths.light[p])
    raise AssertionError("town_small has no light on a long approach")


def _car_before_red_light(world):
    """A car 35 m before the junction entry of a lane whose light is frozen red: the lane
    paths, the lane, the car and the light."""
    paths, p, light = _approach_with_light(world)
    point, tangent = paths.at(np.array([p]), np.array([paths.length[p] - 35.0]))
    yaw = float(np.degrees(np.arctan2(tangent[0, 1], tangent[0, 0])))
    car = world.spawn_actor(
        CAR, Transform(Location(*map(float, point[0] + [0, 0, 0.5])), Rotation(0, yaw, 0))
    )
    light_actor = world.get_actor(world._traffic.light_ids[light])
    light_actor.set_state(TrafficLightState.Red)
    light_actor.freeze(True)
    return paths, p, car, light_actor


def test_stops_before_a_red_light_and_goes_on_green():
    world = _town_small()
    paths, p, car, light_actor = _car_before_red_light(world)
    car.set_autopilot(True)
    fleet = world.get_trafficmanager().fleet
    for _ in range(400):  # 20 s
        world.tick()
    assert speed(car) < 0.05
    assert int(fleet.route[0, 0]) == p  # still on the approach lane
    assert fleet.reason[0] == STOP_LIGHT
    # its front bumper (2.45 m ahead of the centre) is before the junction entry
    assert fleet.arc[0] + 2.45 < paths.length[p]
    light_actor.set_state(TrafficLightState.Green)
    entered = False
    for _ in range(200):
        world.tick()
        entered |= paths.junction[int(fleet.route[0, 0])] >= 0
    assert entered


def test_a_certain_ignore_set_after_the_autopilot_holds_on_the_lane_it_is_on():
    # the chances are drawn per lane entered; 100 % (or 0 %) must not wait for the next lane:
    # a car put on the autopilot 35 m before a frozen red light, then told to ignore lights,
    # drives into the junction (before, it stopped there as if told nothing)
    world = _town_small()
    paths, _, car, _ = _car_before_red_light(world)
    car.set_autopilot(True)
    tm = world.get_trafficmanager()
    tm.ignore_lights_percentage(car, 100.0)
    fleet = tm.fleet
    entered = False
    for _ in range(200):  # 10 s
        world.tick()
        entered |= paths.junction[int(fleet.route[0, 0])] >= 0
        assert fleet.reason[0] != STOP_LIGHT
    assert entered
    tm.ignore_lights_percentage(car, 0.0)  # and 0 % holds at once too
    assert not fleet.ignore[0, 0]


def _visited(seed: int, ticks: int = 700) -> tuple[list, list]:
    world = _town_small()
    tm = world.get_trafficmanager()
    tm.set_random_device_seed(seed)
    paths = tm.fleet.paths
    p = int(np.flatnonzero((paths.junction < 0) & (paths.length > 60.0))[0])
    point, tangent = paths.at(np.array([p]), np.array([20.0]))
    yaw = float(np.degrees(np.arctan2(tangent[0, 1], tangent[0, 0])))
    car = world.spawn_actor(
        CAR, Transform(Location(*map(float, point[0] + [0, 0, 0.5])), Rotation(0, yaw, 0))
    )
    car.set_autopilot(True)
    tm.ignore_lights_percentage(car, 100.0)  # fewer waits, more junctions in the time
    tm.set_desired_speed(car, 40.0)
    seen, junctions = [], []
    for _ in range(ticks):
        world.tick()
        current = int(tm.fleet.route[0, 0])
        if not seen or seen[-1] != paths.keys[current]:
            seen.append(paths.keys[current])
            if paths.junction[current] >= 0:
                junctions.append(paths.keys[current])
    return seen, junctions


def test_seeded_junction_choices_repeat_and_depend_on_the_seed():
    (first, junctions), (again, _), (other, _) = _visited(3), _visited(3), _visited(4)
    assert len(junctions) >= 3  # it went through several junctions in 35 s
    assert first == again
    assert first != other


def test_autopilot_needs_a_map_with_lanes_and_a_vehicle():
    world = flat_world()
    car = world.spawn_actor(CAR, Transform(Location(0, 0, 0.1)))
    with pytest.raises(WorldError, match="traffic manager"):
        car.set_autopilot(True)
    world = straight_world()
    tm = world.get_trafficmanager()
    with pytest.raises(WorldError, match="percentage"):
        tm.ignore_lights_percentage(world.spawn_actor(CAR, lane_start(10.0)), 120.0)


def test_set_route_turns_right_and_lights_follow_the_controls():
    # "Right" takes the exit whose heading turns most to the right (CARLA's yaw grows toward
    # +y, so a right turn is a positive heading change, about +90 degrees in a grid town).
    world = _town_small()
    tm = world.get_trafficmanager()
    paths = tm.fleet.paths
    p = next(
        q
        for q in np.flatnonzero((paths.junction < 0) & (paths.length > 60.0)).tolist()
        if any(paths.turn_angle(s) > 45.0 for s in paths.successors[q])
    )
    point, tangent = paths.at(np.array([p]), np.array([paths.length[p] - 30.0]))
    yaw = float(np.degrees(np.arctan2(tangent[0, 1], tangent[0, 0])))
    car = world.spawn_actor(
        CAR, Transform(Location(*map(float, point[0] + [0, 0, 0.5])), Rotation(0, yaw, 0))
    )
    car.set_autopilot(True)
    tm.set_route(car, ["Right"])
    tm.ignore_lights_percentage(car, 100.0)
    tm.ignore_signs_percentage(car, 100.0)
    tm.update_vehicle_lights(car, True)
    assert paths.turn_angle(int(tm.fleet.route[0, 1])) > 45.0
    assert tm.has_vehicle(car)
    world.tick()
    lights = car.get_light_state()
    assert lights & VehicleLightState.LowBeam and lights & VehicleLightState.Position
    car.set_autopilot(False)
    assert not tm.has_vehicle(car)


def test_force_lane_change_moves_to_the_right_lane():
    # town_medium has two-lane streets; on a right-hand lane -1 the lane to the right is -2,
    # 3.5 m further out. After 8 s the car drives on the centre of lane -2.
    world = World(Map.from_file(TOWN_SMALL.with_name("town_medium.xodr")))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    tm = world.get_trafficmanager()
    paths = tm.fleet.paths
    p = next(
        q
        for q, key in enumerate(paths.keys)
        if key[2] == -1
        and paths.junction[q] < 0
        and paths.length[q] > 70.0
        and (key[0], key[1], -2) in paths.index
    )
    point, tangent = paths.at(np.array([p]), np.array([10.0]))
    yaw = float(np.degrees(np.arctan2(tangent[0, 1], tangent[0, 0])))
    car = world.spawn_actor(
        CAR, Transform(Location(*map(float, point[0] + [0, 0, 0.5])), Rotation(0, yaw, 0))
    )
    car.set_autopilot(True)
    tm.force_lane_change(car, True)
    right = paths.index[(paths.keys[p][0], paths.keys[p][1], -2)]
    assert int(tm.fleet.route[0, 0]) == right
    for _ in range(160):
        world.tick()
    loc = car.get_location()
    _, lateral = paths.locate(
        np.array([right]), np.array([tm.fleet.arc[0]]), np.array([[loc.x, loc.y]])
    )
    assert lateral[0] < 0.3
