"""The background's road bubble and oncoming lanes on Town04's highway (four lanes each
way, 3.5 m wide, no junction with choices on the way), the autopilot ego on the outer
lane for 50 s (about 300 m). Checked at every upkeep (each 0.5 s, the trace taken right
after it), from the trace alone:

- on each lane of the ego's direction, at most 2 background cars ahead of the ego and 2
  behind, none further than the outer radius plus a spacing ahead (30 + 15 + 15 m +
  1.7 m per m/s of the ego) nor further than the radius behind (45 m + 1.7 m per m/s);
- the bubble is kept full as the ego drives: at nine upkeeps in ten or more, each lane
  holds its 2 cars ahead and 2 behind;
- every car appears at least 15 m from the ego, with no other actor within 6 m ahead or
  behind it on its lane (2 m either side of its line) nor within 2.5 m;
- cars go only at an upkeep, and a road car that goes was the front-most or the rear-most
  of its lane (out of the bubble, or one over the count);
- oncoming cars appear ahead of the ego on the opposite lanes and go once they are 80 m
  behind it;
- two runs give identical logs."""

from __future__ import annotations

import math

import pytest
from background_checks import (
    CLEARANCE,
    LANE_BAND,
    NEAR_CLEARANCE,
    SAFE_DISTANCE,
    UPKEEP_EVERY,
    RouteGeometry,
    first_seen,
    last_seen,
    radii,
)
from background_runs import run_background

from runner.log_compare import compare_logs

TOWN = "maps/carla/Town04.xodr"
KEY_POINTS = [(-390.8, 422.6), (-353.1, 433.1), (-321.4, 436.0), (-277.3, 435.9)]
KEY_POINTS += [(-226.7, 435.7), (-177.3, 434.6), (-146.1, 429.2), (-112.9, 417.9)]
KEY_POINTS += [(-82.2, 401.6)]
TICKS = 1000
LANES = (-3, -2, -1, 0)  # the route runs on the outermost lane; the others are left of it
ONCOMING_REACH = 80.0  # m: oncoming cars further behind the ego go


@pytest.fixture(scope="module")
def runs(shared, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bg_road")
    waypoints = [[x, y, 0.0] for x, y in KEY_POINTS]
    return [
        run_background(str(shared / TOWN), waypoints, TICKS, log=folder / f"r{k}.log")
        for k in range(2)
    ]


@pytest.fixture(scope="module")
def geometry(runs):
    return RouteGeometry(runs[0].plan, 3.5)


def _upkeeps(run):
    """The traced upkeeps with the ego far enough inside the route for the bubble (about
    60 m behind and 75 m ahead of it) to lie on the route."""
    last = len(run.plan) - 80
    for k in range(UPKEEP_EVERY, len(run.frames), UPKEEP_EVERY):
        if 60 <= run.ego_trace[k][2] <= last:
            yield k


def test_each_lane_keeps_within_the_bubble(runs, geometry):
    run = runs[0]
    checked = 0
    for k in _upkeeps(run):
        _, _, index, speed = run.ego_trace[k]
        ego_arc = float(geometry.accum[index])
        _, outer, behind = radii(speed)
        counts = {lane: [0, 0] for lane in LANES}
        for car in run.frames[k].values():
            where = geometry.where(car.x, car.y, car.yaw)
            if not where.same_way or where.lane not in counts:
                continue
            rel = where.arc - ego_arc
            assert -behind - 0.5 <= rel <= outer + 15.0 + 0.5, (k, car.id, rel)
            counts[where.lane][0 if rel >= 0.0 else 1] += 1
        for lane, (ahead, back) in counts.items():
            assert ahead <= 2 and back <= 2, (k, lane, ahead, back)
        checked += 1
    assert checked > 40


def test_the_bubble_is_kept_full_as_the_ego_drives(runs, geometry):
    run = runs[0]
    travelled = run.ego_trace[-1][2] - run.ego_trace[0][2]
    assert travelled > 250  # m of route
    full = slots = 0
    for k in _upkeeps(run):
        _, _, index, _ = run.ego_trace[k]
        counts = {lane: [0, 0] for lane in LANES}
        for car in run.frames[k].values():
            where = geometry.where(car.x, car.y, car.yaw)
            if where.same_way and where.lane in counts:
                counts[where.lane][0 if where.arc >= geometry.accum[index] else 1] += 1
        full += sum(ahead == 2 and back == 2 for ahead, back in counts.values())
        slots += len(counts)
    assert full >= 0.9 * slots, (full, slots)


def test_cars_appear_away_from_the_ego_and_from_other_actors(runs):
    run = runs[0]
    for actor_id, k in first_seen(run.frames).items():
        car = run.frames[k][actor_id]
        ego_x, ego_y, _, _ = run.ego_trace[k]
        assert math.hypot(car.x - ego_x, car.y - ego_y) >= SAFE_DISTANCE - 0.1
        if k == 0:
            continue  # the start's cars, a spacing apart
        born = [i for i, kk in first_seen(run.frames).items() if kk == k]
        heading = math.radians(car.yaw)
        others = [(o.x, o.y) for o in run.frames[k].values() if o.id not in born]
        for x, y in [*others, (ego_x, ego_y)]:
            along = (x - car.x) * math.cos(heading) + (y - car.y) * math.sin(heading)
            across = (y - car.y) * math.cos(heading) - (x - car.x) * math.sin(heading)
            assert not (abs(along) < CLEARANCE and abs(across) < LANE_BAND)
            assert math.hypot(along, across) >= NEAR_CLEARANCE


def test_road_cars_go_only_at_an_upkeep_as_their_lane_s_first_or_last(runs, geometry):
    run = runs[0]
    last = last_seen(run.frames)
    gone = 0
    for actor_id, k in last.items():
        if k == len(run.frames) - 1:
            continue
        assert (k + 1) % UPKEEP_EVERY == 0  # it was there until the next upkeep
        car = run.frames[k][actor_id]
        where = geometry.where(car.x, car.y, car.yaw)
        if not where.same_way or where.lane not in LANES:
            continue
        lane_arcs = []
        for other in run.frames[k].values():
            there = geometry.where(other.x, other.y, other.yaw)
            if there.same_way and there.lane == where.lane:
                lane_arcs.append(there.arc)
        assert where.arc in (max(lane_arcs), min(lane_arcs)), (actor_id, k)
        gone += 1
    assert gone > 5


def test_oncoming_cars_come_from_ahead_and_go_behind(runs, geometry):
    run = runs[0]
    oncoming = 0
    for actor_id, k in first_seen(run.frames).items():
        car = run.frames[k][actor_id]
        where = geometry.where(car.x, car.y, car.yaw)
        if where.opposite_way:
            oncoming += 1
            assert where.arc - geometry.accum[run.ego_trace[k][2]] > 20.0  # ahead of the ego
    assert oncoming >= 10
    for k in _upkeeps(run):
        index = run.ego_trace[k][2]
        point = geometry.points[index]
        heading = math.radians(geometry.yaw[index])
        for car in run.frames[k].values():
            if not geometry.where(car.x, car.y, car.yaw).opposite_way:
                continue
            dx, dy = car.x - point[0], car.y - point[1]
            behind = dx * math.cos(heading) + dy * math.sin(heading) < -0.17
            assert not (behind and math.hypot(dx, dy) > ONCOMING_REACH + 0.5), (k, car.id)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0].log, runs[1].log) is None
