"""Automatic lane changes on a hand-made two-lane one-way road behind a slow leader.

The road runs along +x for 600 m with two driving lanes on its right, -1 (centre 1.75 m right
of the reference line: y = +1.75 in CARLA's frame) and -2 (y = +5.25), both in the road's
direction. The leader drives at a desired 10 km/h (2.78 m/s); the follower, 40 m behind, wishes
70 % of the 30 km/h default limit, 5.83 m/s: more than LANE_CHANGE_GAIN (2 m/s) faster, and the
leader is within LANE_CHANGE_REACH (50 m), so with auto_lane_change the follower takes the lane
on its right (-2) at once and passes; without it, it follows.
"""

from __future__ import annotations

import numpy as np
import pytest
from world_helpers import blueprint, straight_road

from world import Map, World, WorldSettings
from world.autopilot import LANE_CHANGE_GAIN, LANE_CHANGE_MIN_GAP, LANE_CHANGE_REACH
from world.geometry import Location, Rotation, Transform
from world.traffic_manager import DEFAULT_AUTO_LANE_CHANGE

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
        for x in np.arange(10.0, 400.0, 12.0).tolist():
            world.spawn_actor(CAR, Transform(Location(x, LANE_2_Y, 0.1), Rotation()))
    tm = world.get_trafficmanager()
    for car in (leader, follower):
        car.set_autopilot(True)
    tm.set_desired_speed(leader, leader_kmh)
    tm.auto_lane_change(follower, auto)
    return world, tm, leader, follower


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
