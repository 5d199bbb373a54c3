"""The background's knobs, turned during one run on Town04's highway (the road of
test_background_road.py), each checked from the trace against what it says:

- clear_ahead(0, 100) at tick 200: from then until the ego's route point is past that
  stretch, no background car within 1.5 m of the route's points on it (its lane) ahead of
  the ego (5 m on: the ego's own length; cars behind it follow it onto what it passed);
- remove_lane (the lane two left of the ego's) at tick 300, readd_lane at tick 600: from
  the next upkeep no background car goes the ego's way on that lane, until after tick
  600, when cars come back on it;
- set_opposite_flow(active=False) at tick 400, active again at tick 700: no oncoming car
  appears meanwhile, and they appear again after;
- stop_front_vehicles at tick 800 (the cars on the route ahead within 60 m) and
  start_front_vehicles at tick 900: they stand within 1.5 s and until tick 900, then
  drive on."""

from __future__ import annotations

import math

import pytest
from background_checks import UPKEEP_EVERY, RouteGeometry, first_seen
from background_runs import run_background
from test_background_road import KEY_POINTS, TOWN

TICKS = 1000
CLEAR_AT, LANE_OFF, OPPOSITE_OFF, LANE_ON, OPPOSITE_ON = 200, 300, 400, 600, 700
STOP_AT, START_AT = 800, 900
CLEARED = 100  # m of the route ahead
REMOVED_LANE = -2


def _turn_knobs(run, k: int) -> None:
    bg = run.background
    notes = run.__dict__.setdefault("notes", {})
    if k == CLEAR_AT:
        notes["cleared_from"] = run.ego_trace[k][2]
        bg.clear_ahead(0.0, CLEARED)
    elif k == LANE_OFF:
        ego = run.world.get_map().get_waypoint(run.ego.get_location())
        bg.remove_lane(ego.get_left_lane().get_left_lane())
    elif k == OPPOSITE_OFF:
        bg.set_opposite_flow(active=False)
    elif k == LANE_ON:
        bg.readd_lane(REMOVED_LANE)
    elif k == OPPOSITE_ON:
        bg.set_opposite_flow(active=True)
    elif k == STOP_AT:
        notes["stopped"] = [a.id for a in bg.stop_front_vehicles()]
    elif k == START_AT:
        bg.start_front_vehicles()


@pytest.fixture(scope="module")
def run(shared):
    waypoints = [[x, y, 0.0] for x, y in KEY_POINTS]
    return run_background(str(shared / TOWN), waypoints, TICKS, on_tick=_turn_knobs)


@pytest.fixture(scope="module")
def geometry(run):
    return RouteGeometry(run.plan, 3.5)


def test_a_cleared_stretch_stays_clear_until_the_ego_is_past_it(run, geometry):
    first = run.notes["cleared_from"]
    checked = 0
    for k in range(CLEAR_AT + 1, TICKS):
        ego_index = run.ego_trace[k][2]
        if ego_index + 5 > first + CLEARED:
            break
        points = geometry.points[max(first, ego_index + 5) : first + CLEARED + 1]
        for car in run.frames[k].values():
            gaps = [math.hypot(car.x - px, car.y - py) for px, py in points]
            assert min(gaps) > 1.5, (k, car.id)
        checked += 1
    assert checked > 100


def test_a_removed_lane_stays_empty_until_added_again(run, geometry):
    def on_lane(k: int) -> list[int]:
        out = []
        for car in run.frames[k].values():
            where = geometry.where(car.x, car.y, car.yaw)
            if where.same_way and where.lane == REMOVED_LANE:
                out.append(car.id)
        return out

    for k in range(LANE_OFF + UPKEEP_EVERY, LANE_ON, UPKEEP_EVERY):
        assert on_lane(k) == [], k
    assert any(on_lane(k) for k in range(LANE_ON + UPKEEP_EVERY, TICKS, UPKEEP_EVERY))


def test_oncoming_traffic_stops_and_starts_again(run, geometry):
    oncoming = []
    for actor_id, k in first_seen(run.frames).items():
        car = run.frames[k][actor_id]
        if geometry.where(car.x, car.y, car.yaw).opposite_way:
            oncoming.append(k)
    assert any(k < OPPOSITE_OFF for k in oncoming)
    assert not [k for k in oncoming if OPPOSITE_OFF < k <= OPPOSITE_ON]
    assert any(k > OPPOSITE_ON for k in oncoming)


def test_front_vehicles_stop_and_start_again(run):
    stopped = run.notes["stopped"]
    assert stopped
    for actor_id in stopped:
        speeds = [f[actor_id].speed for f in run.frames[STOP_AT:] if actor_id in f]
        assert all(v < 0.1 for v in speeds[30 : START_AT - STOP_AT])  # within 1.5 s
        assert max(speeds[START_AT - STOP_AT :]) > 1.0
