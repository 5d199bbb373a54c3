"""Autopilot vehicles yield at junctions to vehicles they do not drive (an ego car).

All on town_small's four-way crossroads with lights (junction 4 of its lane paths): the
autopilot car comes along approach lane ('3', 0, -1) and turns right ("Right"); the
plain vehicle, held by its hand brake, stands on another approach or inside the junction.
The lights are frozen (green unless said; the car's own always green), so only the yield
rule can stop it at the entry. Which approaches conflict is read from the map's
lane paths (junction lanes whose centre lines pass within 2.5 m), not assumed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from world_helpers import blueprint

from world import Map, TrafficLightState, World, WorldSettings
from world.autopilot import STOP_LINE_GAP, STOP_YIELD
from world.controls import VehicleControl
from world.geometry import Location, Rotation, Transform

CAR = blueprint("vehicle.lincoln.mkz_2017")  # half length 2.45 m
TOWN_SMALL = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"
TICKS = 300  # 15 s: the car starts 30 m before the entry and, free, is through by then


def _pose(paths, path: int, d: float) -> Transform:
    point, tangent = paths.at(np.array([path]), np.array([d]))
    yaw = float(np.degrees(np.arctan2(tangent[0, 1], tangent[0, 0])))
    return Transform(Location(*map(float, point[0] + [0, 0, 0.5])), Rotation(0, yaw, 0))


def _scene(light: TrafficLightState = TrafficLightState.Green):
    world = World(Map.from_file(TOWN_SMALL))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    for traffic_light in world.get_actors().filter("traffic.traffic_light*"):
        stops = [(str(w.road_id), w.lane_id) for w in traffic_light.get_stop_waypoints()]
        # the car's own light (on road 3, lane -1) is always green
        traffic_light.set_state(TrafficLightState.Green if ("3", -1) in stops else light)
    world.freeze_all_traffic_lights(True)
    tm = world.get_trafficmanager()
    paths = tm.fleet.paths
    lane = {key: p for p, key in enumerate(paths.keys)}
    approach = lane[("3", 0, -1)]
    right = next(s for s in paths.successors[approach] if paths.turn_angle(s) > 45.0)
    return world, tm, paths, lane, approach, right


def _any_conflict(paths, approach: int, junction_lane: int) -> bool:
    return any(paths.conflicts[junction_lane, s] for s in paths.successors[approach])


def _ego(world, pose: Transform):
    ego = world.spawn_actor(CAR, pose)
    ego.apply_control(VehicleControl(hand_brake=True, brake=1.0))
    return ego


def _drive(world, tm, paths, approach: int, right: int):
    """Runs the autopilot car from 30 m before its entry; returns (entered the right turn,
    its gap front bumper to entry at the end, its speed, its stop reason, whether it was
    ever yielding)."""
    car = world.spawn_actor(CAR, _pose(paths, approach, paths.length[approach] - 30.0))
    car.set_autopilot(True)
    tm.set_route(car, ["Right"])
    entered = yielded = False
    for _ in range(TICKS):
        world.tick()
        entered |= int(tm.fleet.route[0, 0]) == right
        yielded |= int(tm.fleet.reason[0]) == STOP_YIELD
    fleet = tm.fleet
    gap = paths.length[approach] - fleet.arc[0] - 2.45 if fleet.route[0, 0] == approach else -1
    v = car.get_velocity()
    return entered, gap, float(np.hypot(v.x, v.y)), int(fleet.reason[0]), yielded


def _assert_waits_at_entry(result) -> None:
    entered, gap, speed, reason, _ = result
    assert not entered
    assert reason == STOP_YIELD
    assert speed < 0.1
    # it stops with its front bumper STOP_LINE_GAP (1.5 m) before the junction entry
    assert abs(gap - STOP_LINE_GAP) < 0.5


def test_without_an_ego_the_car_turns_through_the_junction():
    world, tm, paths, _, approach, right = _scene()
    entered, _, _, _, _ = _drive(world, tm, paths, approach, right)
    assert entered


def test_waits_for_an_ego_nearer_the_entry_on_a_conflicting_approach():
    # lane ('4', 0, 1) comes from the car's left: its straight lane crosses the right turn's
    # exit. The ego's centre is 3 m before its entry, the car's stops 2.45 + 1.5 = 3.95 m
    # before its own, so the ego stays nearer.
    world, tm, paths, lane, approach, right = _scene()
    other = lane[("4", 0, 1)]
    assert _any_conflict(paths, other, right)
    _ego(world, _pose(paths, other, paths.length[other] - 3.0))
    _assert_waits_at_entry(_drive(world, tm, paths, approach, right))


def test_goes_past_an_ego_on_an_approach_without_conflicting_lanes():
    # lane ('9', 0, -1) comes from the car's right: none of its junction lanes (straight on,
    # left, right) comes within 2.5 m of the right turn, which keeps to the near corner.
    world, tm, paths, lane, approach, right = _scene()
    other = lane[("9", 0, -1)]
    assert paths.junction[other] < 0 and not _any_conflict(paths, other, right)
    _ego(world, _pose(paths, other, paths.length[other] - 3.0))
    entered, _, _, _, _ = _drive(world, tm, paths, approach, right)
    assert entered


@pytest.mark.parametrize(
    ("light", "yields"), [(TrafficLightState.Green, True), (TrafficLightState.Red, False)]
)
def test_an_ego_stopped_in_a_red_lights_box_is_held(light, yields):
    # The conflicting approach again, the ego's centre 5 m before its entry: in its light's
    # box, which lies 5.5-8.5 m before the entry on this map (7 m, +-1.5 m; the ego's body
    # reaches 7.45 m). Green, the ego is free: the car yields while it is further from its
    # entry than the ego (from 14 m to 5 m), then, nearer, goes. Red, the stopped ego is
    # held by its light and the car (its own light green) never yields.
    world, tm, paths, lane, approach, right = _scene(light)
    other = lane[("4", 0, 1)]
    ego = _ego(world, _pose(paths, other, paths.length[other] - 5.0))
    world.tick()
    assert ego.is_at_traffic_light()
    assert ego.get_traffic_light_state() == light
    entered, _, _, _, yielded = _drive(world, tm, paths, approach, right)
    assert entered
    assert yielded == yields


def test_waits_for_an_ego_stopped_inside_the_junction_on_a_conflicting_lane():
    # The ego stands on a junction lane of ('10', 0, 1) (from ahead) that conflicts with the
    # right turn, at the point of its middle half furthest from the right turn's centre line
    # (so it is no obstacle on the car's path, only a yield partner).
    world, tm, paths, lane, approach, right = _scene()
    other = lane[("10", 0, 1)]
    crossing = next(s for s in paths.successors[other] if paths.conflicts[right, s])
    turn = paths.points[paths.first[right] : paths.first[right] + paths.count[right], :2]
    arcs = np.linspace(0.25, 0.75, 21) * paths.length[crossing]
    points, _ = paths.at(np.full(len(arcs), crossing), arcs)
    away = np.min(np.linalg.norm(points[:, None, :2] - turn[None, :, :], axis=-1), axis=1)
    pose = _pose(paths, crossing, float(arcs[int(np.argmax(away))]))
    assert away.max() > 5.0  # more than a half length plus the car's half width and margin
    found, _, _ = paths.nearest(
        np.array([[pose.location.x, pose.location.y]]), np.array([pose.rotation.yaw])
    )
    assert int(found[0]) == crossing
    _ego(world, pose)
    _assert_waits_at_entry(_drive(world, tm, paths, approach, right))
