"""Automatic lane changes on a hand-made two-lane one-way road behind a slow leader.

The road runs along +x for 600 m with two driving lanes on its right, -1 (centre 1.75 m right
of the reference line: y = +1.75 in CARLA's frame) and -2 (y = +5.25), both in the road's
direction. The leader drives at a desired 10 km/h (2.78 m/s); the follower, 40 m behind, wishes
70 % of the 30 km/h default limit, 5.83 m/s: more than LANE_CHANGE_GAIN (2 m/s) faster, and the
leader is within LANE_CHANGE_REACH (50 m), so with auto_lane_change the follower takes the lane
on its right (-2) at once and passes; without it, it follows.

A vehicle the manager does not drive is a leader too, at its measured speed: a hand-braked
car (0 m/s) or an ego held at 2 m/s, 30 m ahead of the follower (x = 50 against 20), is
more than 2 m/s slower than the follower's 5.83 m/s, within 50 m, 30 - 2 x 2.45 = 25.1 m away
bumper to bumper (at least 10 m), and not held: the road has no lights (its tl_state is
Green) and no junction (its lane runs on 550 m beyond it, more than 30 m). Lane -2 must be
free from 20 - (8 + 1.5 x 5.83) = 3.3 m to 20 + max(30 + 10, 20) = 60 m: it is, unless the
row of parked cars stands in it.
"""

from __future__ import annotations

import numpy as np
import pytest
from world_helpers import blueprint, straight_road

from world import Map, TrafficLightState, World, WorldSettings
from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform, Vector3D
from world.traffic.autopilot.fleet import (
    LANE_CHANGE_AHEAD,
    LANE_CHANGE_BEHIND,
    LANE_CHANGE_BEHIND_TIME,
    LANE_CHANGE_GAIN,
    LANE_CHANGE_MIN_AHEAD,
    LANE_CHANGE_MIN_GAP,
    LANE_CHANGE_REACH,
    LANE_CHANGE_ROOM,
)
from world.traffic.autopilot.kernels import _near_entry
from world.traffic.autopilot.manager import DEFAULT_AUTO_LANE_CHANGE

CAR = blueprint("vehicle.lincoln.mkz_2017")

TWO_LANES = straight_road("two_lane_one_way", left=[], right=[-1, -2])
LANE_1_Y, LANE_2_Y = 1.75, 5.25
SLOW_KMH = 10.0


def scene(auto: bool, parked_beside: bool = False, leader_x: float = 60.0, leader_kmh=SLOW_KMH):
    """World, leader and follower (and the manager); optionally a row of parked cars in -2."""
    world = World(Map("two_lane_one_way", TWO_LANES))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    leader = world.spawn_actor(CAR, Transform(Location(leader_x, LANE_1_Y, 0.1), Rotation()))
    follower = world.spawn_actor(CAR, Transform(Location(20.0, LANE_1_Y, 0.1), Rotation()))
    if parked_beside:
        park_a_row_in_lane_2(world)
    tm = world.get_trafficmanager()
    for car in (leader, follower):
        car.set_autopilot(True)
    tm.set_desired_speed(leader, leader_kmh)
    tm.auto_lane_change(follower, auto)
    return world, tm, leader, follower


def park_a_row_in_lane_2(world) -> None:
    """Cars every 12 m along lane -2, from x = 10 to 394: it is never free beside x = 20."""
    for x in np.arange(10.0, 400.0, 12.0).tolist():
        world.spawn_actor(CAR, Transform(Location(x, LANE_2_Y, 0.1), Rotation()))


def scene_outside_the_fleet(auto: bool, parked_beside: bool = False, ego_speed: float = 0.0):
    """World, a car the manager does not drive at x = 50 in lane -1 (hand-braked when
    ego_speed is 0, else set to that speed by the caller each tick), the autopilot follower
    at x = 20 and the manager; optionally the row of parked cars in -2."""
    world = World(Map("two_lane_one_way", TWO_LANES))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    other = world.spawn_actor(CAR, Transform(Location(OTHER_X, LANE_1_Y, 0.1), Rotation()))
    if ego_speed == 0.0:
        other.apply_control(VehicleControl(hand_brake=True, brake=1.0))
    follower = world.spawn_actor(CAR, Transform(Location(20.0, LANE_1_Y, 0.1), Rotation()))
    if parked_beside:
        park_a_row_in_lane_2(world)
    tm = world.get_trafficmanager()
    follower.set_autopilot(True)
    tm.auto_lane_change(follower, auto)
    return world, tm, other, follower


OTHER_X, EGO_SPEED = 50.0, 2.0
WISH = 0.7 * 30.0 / 3.6  # 70 % of the default 30 km/h limit
HALF_LENGTH = 2.45  # the mkz's half length (4.9 m long)


def lane_of(tm, car) -> int:
    fleet = tm.fleet
    return fleet.paths.keys[int(fleet.route[fleet.slot(car.id - 1), 0])][2]


def test_the_scene_meets_the_rules_worked_in_the_docstring():
    assert LANE_CHANGE_REACH >= 60.0 - 20.0
    assert 0.7 * 30.0 / 3.6 - SLOW_KMH / 3.6 > LANE_CHANGE_GAIN
    assert DEFAULT_AUTO_LANE_CHANGE  # CARLA's default: on


def test_follower_with_auto_lane_change_takes_the_free_lane_and_passes():
    world, tm, leader, follower = scene(auto=True)
    world.tick()
    world.tick()  # decided in the first tick, driven on the new lane from the second
    assert lane_of(tm, follower) == -2
    assert lane_of(tm, leader) == -1
    for _ in range(600):  # 30 s: the follower gains about 3 m/s on the leader
        world.tick()
    assert follower.get_location().x > leader.get_location().x + 10.0
    assert follower.get_location().y == pytest.approx(LANE_2_Y, abs=0.3)
    assert leader.get_location().y == pytest.approx(LANE_1_Y, abs=0.3)
    assert not world.collision_events()


def test_follower_without_auto_lane_change_stays_behind():
    world, tm, leader, follower = scene(auto=False)
    for _ in range(600):
        world.tick()
    assert lane_of(tm, follower) == -1
    assert follower.get_location().x < leader.get_location().x - 4.9
    assert follower.get_location().y == pytest.approx(LANE_1_Y, abs=0.3)
    assert not world.collision_events()


def test_no_lane_change_into_an_occupied_lane():
    # parked cars every 12 m along lane -2: it is never free beside the follower
    world, tm, leader, follower = scene(auto=True, parked_beside=True)
    for _ in range(600):
        world.tick()
        assert lane_of(tm, follower) == -1
    assert follower.get_location().x < leader.get_location().x - 4.9
    assert not world.collision_events()


def test_no_lane_change_close_behind_the_leader():
    # 10 m centre to centre is 5.1 m bumper to bumper for two 4.9 m cars: less than
    # LANE_CHANGE_MIN_GAP (10 m), and the follower only closes in
    assert LANE_CHANGE_MIN_GAP > 10.0 - 4.9
    world, tm, leader, follower = scene(auto=True, leader_x=30.0)
    for _ in range(400):
        world.tick()
        assert lane_of(tm, follower) == -1
    assert follower.get_location().x < leader.get_location().x - 4.9


def test_no_lane_change_behind_a_leader_as_fast_as_wished():
    # the leader drives the follower's own 70 % of 30 km/h: not LANE_CHANGE_GAIN slower once
    # both are under way (a leader still starting off is slower: auto_lane_change is switched
    # on after 10 s)
    world, tm, _, follower = scene(auto=False, leader_kmh=0.7 * 30.0)
    for _ in range(200):
        world.tick()
    tm.auto_lane_change(follower, True)
    for _ in range(400):
        world.tick()
        assert lane_of(tm, follower) == -1


def test_lane_neighbours_on_the_two_lane_road():
    # -1 has -2 on its right and nothing on its left (the centre lane 0 is no lane)
    _, tm, _, _ = scene(auto=False)
    paths = tm.fleet.paths
    one, two = paths.index[("1", 0, -1)], paths.index[("1", 0, -2)]
    assert paths.neighbour[one].tolist() == [two, -1]
    assert paths.neighbour[two].tolist() == [-1, one]


def test_a_car_outside_the_fleet_meets_the_rules_worked_in_the_docstring():
    gap = OTHER_X - 20.0
    assert gap <= LANE_CHANGE_REACH
    assert gap - 2 * HALF_LENGTH >= LANE_CHANGE_MIN_GAP
    assert EGO_SPEED < WISH - LANE_CHANGE_GAIN  # and so is 0 m/s
    assert 600.0 - OTHER_X > LANE_CHANGE_ROOM
    free_from = 20.0 - (LANE_CHANGE_BEHIND + LANE_CHANGE_BEHIND_TIME * WISH)
    assert free_from == pytest.approx(3.25)
    assert 20.0 + max(gap + LANE_CHANGE_AHEAD, LANE_CHANGE_MIN_AHEAD) == 60.0


def test_a_parked_car_ahead_is_passed_in_the_free_lane():
    world, tm, parked, follower = scene_outside_the_fleet(auto=True)
    world.tick()
    world.tick()
    assert lane_of(tm, follower) == -2
    for _ in range(600):
        world.tick()
    assert follower.get_location().x > OTHER_X + 10.0
    assert follower.get_location().y == pytest.approx(LANE_2_Y, abs=0.3)
    assert parked.get_location().x == pytest.approx(OTHER_X, abs=0.1)
    assert not world.collision_events()


def test_a_parked_car_ahead_is_waited_for_without_auto_lane_change():
    world, tm, _, follower = scene_outside_the_fleet(auto=False)
    for _ in range(600):
        world.tick()
        assert lane_of(tm, follower) == -1
    assert follower.get_location().x < OTHER_X - 2 * HALF_LENGTH
    assert follower.get_velocity().length() < 0.1
    assert follower.get_location().y == pytest.approx(LANE_1_Y, abs=0.3)
    assert not world.collision_events()


def test_a_parked_car_ahead_with_the_lane_beside_occupied_is_waited_for():
    world, tm, _, follower = scene_outside_the_fleet(auto=True, parked_beside=True)
    for _ in range(600):
        world.tick()
        assert lane_of(tm, follower) == -1
    assert follower.get_location().x < OTHER_X - 2 * HALF_LENGTH
    assert follower.get_velocity().length() < 0.1
    assert not world.collision_events()


def test_a_slow_ego_ahead_is_passed_in_the_free_lane():
    world, tm, ego, follower = scene_outside_the_fleet(auto=True, ego_speed=EGO_SPEED)
    for tick in range(600):
        ego.set_target_velocity(Vector3D(EGO_SPEED, 0.0, 0.0))
        world.tick()
        if tick == 1:
            assert lane_of(tm, follower) == -2
    assert ego.get_location().x > OTHER_X + 30.0  # it drove on at about 2 m/s
    assert follower.get_location().x > ego.get_location().x + 10.0
    assert follower.get_location().y == pytest.approx(LANE_2_Y, abs=0.3)
    assert not world.collision_events()


def test_a_parked_car_in_a_red_lights_box_holds_the_follower_in_its_queue():
    # what a red light's box does to a vehicle in it (world.traffic.signals.system): its
    # tl_state is Red; the road has no boxes, so nothing sets it back
    world, tm, parked, follower = scene_outside_the_fleet(auto=True)
    world._vehicles.tl_state[parked._vrow] = int(TrafficLightState.Red)
    assert parked.get_traffic_light_state() == TrafficLightState.Red
    for _ in range(400):
        world.tick()
        assert lane_of(tm, follower) == -1
    assert follower.get_location().x < OTHER_X - 2 * HALF_LENGTH
    assert not world.collision_events()


def test_a_junction_entry_within_the_room_ahead_holds_a_leader():
    # lanes 0 (20 m) -> 1 (5 m) -> junction lane 2; lane 3 branches into 4 and 5 (no junction)
    length = np.array([20.0, 5.0, 10.0, 20.0, 50.0, 50.0])
    junction = np.array([-1, -1, 7, -1, -1, -1])
    successor_first = np.array([0, 1, 2, 2, 4, 4, 4])
    successor_flat = np.array([1, 2, 4, 5])
    args = (length, junction, successor_first, successor_flat)
    room = LANE_CHANGE_ROOM
    assert _near_entry(0, 20.0, room, *args)  # 20 + 5 = 25 m to the entry
    assert _near_entry(0, 24.9, room, *args)  # 29.9 m
    assert not _near_entry(0, 25.0, room, *args)  # 30 m: not less than the room
    assert _near_entry(1, 4.0, room, *args)  # on the last lane, 4 m before the entry
    assert not _near_entry(3, 10.0, room, *args)  # a branch without a junction
