"""Autopilot vehicles yield at junctions to vehicles they do not drive (an ego car).

All on town_small's four-way crossroads with lights (junction 4 of its lane paths): the
autopilot car comes along approach lane ('3', 0, -1) and turns right ("Right"); the
plain vehicle either drives toward the junction at a constant speed or stands (held by
its hand brake) on another approach or inside the junction. The lights are frozen (green
unless said; the car's own always green), so only the yield rule can stop it at the entry.
Which approaches conflict is read from the map's lane paths (junction lanes whose centre
lines pass within 2.5 m), not assumed. The rules (docs/autopilot.md, Yielding): within
14 m of its entry the car waits for a vehicle inside the junction on a conflicting lane,
and for one approaching on a conflicting lane nearer its entry, unless that one is stopped
(below 0.5 m/s). Nor does it go in while a car stands just after the junction on its exit
lane (Junction exits: CARLA's SafeAfterJunction).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from world_helpers import blueprint

from world import Map, TrafficLightState, World, WorldSettings
from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform, Vector3D
from world.traffic.autopilot.fleet import STOP_LINE_GAP, STOP_YIELD

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
    return any(paths.conflict(junction_lane, s) for s in paths.successors[approach])


def _parked(world, pose: Transform):
    ego = world.spawn_actor(CAR, pose)
    ego.apply_control(VehicleControl(hand_brake=True, brake=1.0))
    return ego


def _moving(world, pose: Transform, speed: float):
    """A plain vehicle driving straight ahead at `speed` m/s (constant velocity, no control)."""
    ego = world.spawn_actor(CAR, pose)
    ego.enable_constant_velocity(Vector3D(speed, 0.0, 0.0))
    return ego


@dataclass
class Drive:
    """What the autopilot car did: the tick it entered the right turn and the first tick it
    was yielding (None: never), its gap front bumper to entry at the end (-1 once past it),
    its final speed and stop reason, and the ticks the other vehicle's centre was first on a
    junction lane and first off it again (None: never)."""

    entered_at: int | None
    yielded_at: int | None
    gap: float
    speed: float
    reason: int
    ego_entered_at: int | None
    ego_left_at: int | None


def _in_junction(paths, actor) -> bool:
    place = actor.get_transform()
    found, _, lateral = paths.nearest(
        np.array([[place.location.x, place.location.y]]), np.array([place.rotation.yaw])
    )
    return bool(lateral[0] < 6.0 and paths.junction[int(found[0])] >= 0)


def _drive(world, tm, paths, approach: int, right: int, ego=None, ticks: int = TICKS) -> Drive:
    """Runs the autopilot car from 30 m before its entry for `ticks` ticks."""
    car = world.spawn_actor(CAR, _pose(paths, approach, paths.length[approach] - 30.0))
    car.set_autopilot(True)
    tm.set_route(car, ["Right"])
    entered_at = yielded_at = ego_entered_at = ego_left_at = None
    for tick in range(ticks):
        world.tick()
        if entered_at is None and int(tm.fleet.route[0, 0]) == right:
            entered_at = tick
        if yielded_at is None and int(tm.fleet.reason[0]) == STOP_YIELD:
            yielded_at = tick
        if ego is not None and ego_left_at is None:
            inside = _in_junction(paths, ego)
            if ego_entered_at is None and inside:
                ego_entered_at = tick
            elif ego_entered_at is not None and not inside:
                ego_left_at = tick
    fleet = tm.fleet
    gap = paths.length[approach] - fleet.arc[0] - 2.45 if fleet.route[0, 0] == approach else -1
    v = car.get_velocity()
    speed = float(np.hypot(v.x, v.y))
    reason = int(fleet.reason[0])
    return Drive(entered_at, yielded_at, gap, speed, reason, ego_entered_at, ego_left_at)


def _assert_waits_at_entry(result: Drive) -> None:
    assert result.entered_at is None
    assert result.reason == STOP_YIELD
    assert result.speed < 0.1
    # it stops with its front bumper STOP_LINE_GAP (1.5 m) before the junction entry
    assert abs(result.gap - STOP_LINE_GAP) < 0.5


def test_without_an_ego_the_car_turns_through_the_junction():
    world, tm, paths, _, approach, right = _scene()
    result = _drive(world, tm, paths, approach, right)
    assert result.entered_at is not None
    assert result.yielded_at is None


def test_yields_to_an_ego_driving_toward_the_junction_on_a_conflicting_approach():
    # lane ('10', 0, 1) comes from the car's left (it heads +y, the car +x): its straight
    # lane ends on the right turn's exit road. The ego starts 20 m before its entry at 4 m/s:
    # its centre enters at 20 / 4 = 5 s. The car starts at rest 30 m before its entry and
    # drives at most 30 km/h x 0.7 = 5.8 m/s, so at any t it is at least 30 - 5.8 t from its
    # entry, more than the ego's 20 - 4 t until t = 5.6 s: the ego is nearer all the while it
    # approaches, so the car yields once within 14 m of its entry (after (30 - 14) / 5.83 =
    # 2.74 s at the earliest), before the ego is inside. Then, the ego inside on that
    # conflicting straight lane, the car keeps waiting: it enters only after the ego left.
    world, tm, paths, lane, approach, right = _scene()
    other = lane[("10", 0, 1)]
    straight = next(s for s in paths.successors[other] if abs(paths.turn_angle(s)) < 10.0)
    assert paths.conflict(right, straight)
    ego = _moving(world, _pose(paths, other, paths.length[other] - 20.0), 4.0)
    result = _drive(world, tm, paths, approach, right, ego, ticks=2 * TICKS)
    assert result.yielded_at is not None and result.ego_entered_at is not None
    assert (result.yielded_at + 1) * 0.05 >= 16.0 / (30.0 / 3.6 * 0.7)
    assert result.yielded_at < result.ego_entered_at
    assert result.ego_left_at is not None and result.entered_at is not None
    assert result.entered_at > result.ego_left_at


def test_goes_past_an_ego_driving_on_an_approach_without_conflicting_lanes():
    # lane ('9', 0, -1) comes from the car's right: none of its junction lanes (straight on,
    # left, right) comes within 2.5 m of the right turn, which keeps to the near corner, so
    # the ego driving toward the junction as above is never a yield partner.
    world, tm, paths, lane, approach, right = _scene()
    other = lane[("9", 0, -1)]
    assert paths.junction[other] < 0 and not _any_conflict(paths, other, right)
    ego = _moving(world, _pose(paths, other, paths.length[other] - 20.0), 4.0)
    result = _drive(world, tm, paths, approach, right, ego)
    assert result.ego_entered_at is not None  # it did drive into the junction
    assert result.entered_at is not None
    assert result.yielded_at is None


@pytest.mark.parametrize("key", [("10", 0, 1), ("4", 0, 1)])
def test_goes_past_a_car_parked_near_the_entry_on_a_conflicting_approach(key):
    # Conflicting approaches: ('10', 0, 1) from the car's left (its straight lane ends on the
    # right turn's exit road) and ('4', 0, 1) from ahead (its left turn does). A hand-braked
    # car's centre 3 m before that entry is nearer than the car will be (the car's centre
    # stops 2.45 + 1.5 = 3.95 m before its own entry), but stopped (0 m/s < 0.5 m/s) before
    # the junction, so no yield partner: the car turns through without ever yielding (the
    # parked car stands on its own approach, off the right turn's path).
    world, tm, paths, lane, approach, right = _scene()
    other = lane[key]
    assert _any_conflict(paths, other, right)
    _parked(world, _pose(paths, other, paths.length[other] - 3.0))
    result = _drive(world, tm, paths, approach, right)
    assert result.entered_at is not None
    assert result.yielded_at is None


@pytest.mark.parametrize("light", [TrafficLightState.Green, TrafficLightState.Red])
def test_an_ego_stopped_before_the_junction_is_no_partner_whatever_its_light(light):
    # The conflicting approach from ahead ('4', 0, 1), the stopped ego's centre 5 m before its
    # entry: in its light's box, which lies 5.5-8.5 m before the entry on this map (7 m,
    # +-1.5 m; the ego's body reaches 7.45 m). Stopped before the junction it is no yield
    # partner, its light green or red: the car (its own light green) never yields.
    world, tm, paths, lane, approach, right = _scene(light)
    other = lane[("4", 0, 1)]
    ego = _parked(world, _pose(paths, other, paths.length[other] - 5.0))
    world.tick()
    assert ego.is_at_traffic_light()
    assert ego.get_traffic_light_state() == light
    result = _drive(world, tm, paths, approach, right)
    assert result.entered_at is not None
    assert result.yielded_at is None


def test_waits_for_an_ego_stopped_inside_the_junction_on_a_conflicting_lane():
    # The ego stands on a junction lane of ('10', 0, 1) (from the left) that conflicts with the
    # right turn, at the point of its middle half furthest from the right turn's centre line
    # (so it is no obstacle on the car's path, only a yield partner); inside the junction,
    # stopped or not, it makes the car wait.
    world, tm, paths, lane, approach, right = _scene()
    other = lane[("10", 0, 1)]
    crossing = next(s for s in paths.successors[other] if paths.conflict(right, s))
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
    _parked(world, pose)
    _assert_waits_at_entry(_drive(world, tm, paths, approach, right))


def _exit_lane(paths, right: int) -> int:
    """The lane after the right turn, and a check that the turn is no short junction (its
    ends at least 8 m apart in a straight line, CARLA's MIN_JUNCTION_LENGTH)."""
    (exit_lane,) = paths.successors[right]
    begin = paths.points[paths.first[right], :2]
    end = paths.points[paths.first[exit_lane], :2]
    assert np.linalg.norm(end - begin) >= 8.0
    assert paths.length[exit_lane] > 10.0 and paths.junction[exit_lane] < 0
    return exit_lane


def test_waits_at_the_entry_while_a_car_stands_just_after_the_junction():
    # CARLA's SafeAfterJunction (docs/autopilot.md, Junction exits): the safe point lies 4 m
    # along the exit lane, the middle of that stretch 2 m along it. A hand-braked car's
    # centre 2.5 m along the exit lane is past the junction's end, before the safe point,
    # 0.5 m from the middle (< 4 m) and stopped (< 5 km/h): the exit is blocked, so the car
    # stops at its line (front bumper 1.5 m before the entry) instead of turning in behind it
    # (the parked car's rear, 2.5 - 2.45 = 0.05 m along the exit, leaves no room after the
    # turn: without the rule the car would stand inside the junction).
    world, tm, paths, _, approach, right = _scene()
    exit_lane = _exit_lane(paths, right)
    _parked(world, _pose(paths, exit_lane, 2.5))
    _assert_waits_at_entry(_drive(world, tm, paths, approach, right))


def test_goes_in_when_the_car_after_the_junction_stands_beyond_the_safe_point():
    # The same car's centre 6.5 m along the exit lane: past the safe point (4 m) and 4.5 m
    # from the middle of the stretch (> 4 m): no blocker, so the car turns in (and then waits
    # behind it, its front 2.5 m behind the parked car's rear at 4.05 m).
    world, tm, paths, _, approach, right = _scene()
    exit_lane = _exit_lane(paths, right)
    _parked(world, _pose(paths, exit_lane, 6.5))
    result = _drive(world, tm, paths, approach, right)
    assert result.entered_at is not None
    assert result.yielded_at is None


def test_turns_go_first_come_first_served_when_the_lights_turn_green():
    # First come, first served (docs/autopilot.md, Yielding). Every light red and frozen: the
    # van (vehicle.mercedes.sprinter, half length 2.96 m) turning right from ('3', 0, -1)
    # starts 30 m before its entry, the car (half length 2.45 m) going straight on from
    # ('10', 0, 1), whose straight lane conflicts with the right turn, 60 m before its own.
    # At most 5.8 m/s, the car is within 14 m of its entry no sooner than (60 - 14) / 5.83 =
    # 7.9 s; the van is there by about 4 s (16 m from rest), so it waits near its entry the
    # longer. After 20 s both stand at their lines, held by the reds: the van's centre
    # 1.5 + 2.96 = 4.46 m before its entry, the car's 1.5 + 2.45 = 3.95 m (the nearer).
    # Then every light turns green: the van, near its entry the longest, goes first and the
    # car gives way to it ('nearer its entry' would have sent the car first).
    world = World(Map.from_file(TOWN_SMALL))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    lights = list(world.get_actors().filter("traffic.traffic_light*"))
    for traffic_light in lights:
        traffic_light.set_state(TrafficLightState.Red)
    world.freeze_all_traffic_lights(True)
    tm = world.get_trafficmanager()
    paths = tm.fleet.paths
    lane = {key: p for p, key in enumerate(paths.keys)}
    approach, other = lane[("3", 0, -1)], lane[("10", 0, 1)]
    right = next(s for s in paths.successors[approach] if paths.turn_angle(s) > 45.0)
    straight = next(s for s in paths.successors[other] if abs(paths.turn_angle(s)) < 10.0)
    assert paths.conflict(right, straight)
    van = world.spawn_actor(
        blueprint("vehicle.mercedes.sprinter"),
        _pose(paths, approach, paths.length[approach] - 30.0),
    )
    car = world.spawn_actor(CAR, _pose(paths, other, paths.length[other] - 60.0))
    for vehicle, route in ((van, "Right"), (car, "Straight")):
        vehicle.set_autopilot(True)
        tm.set_route(vehicle, [route])
    for _ in range(400):
        world.tick()
    assert np.all(tm.fleet.route[:, 0] == [approach, other])  # both still before the junction
    gaps = paths.length[[approach, other]] - tm.fleet.arc
    assert np.allclose(gaps, [1.5 + 2.96, 1.5 + 2.45], atol=0.2)
    for traffic_light in lights:
        traffic_light.set_state(TrafficLightState.Green)
    entered, car_yielded = {}, False
    for tick in range(200):
        world.tick()
        car_yielded = car_yielded or int(tm.fleet.reason[1]) == STOP_YIELD
        for row, junction_lane in ((0, right), (1, straight)):
            if row not in entered and int(tm.fleet.route[row, 0]) == junction_lane:
                entered[row] = tick
    assert 0 in entered
    assert entered[0] < entered.get(1, 200)
    assert car_yielded
    assert int(tm.fleet.reason[0]) != STOP_YIELD
