"""ParkingExit on town_small's top road (one 3.5 m lane each way, a 2 m sidewalk on the
right, no parking lane: the sidewalk is the lane the ego parks in). Triggered at the
route's first point x = 20: the ego is moved to the sidewalk (centre y = 4.5), wholly off
the driving lane, between parked cars 20 m ahead (x = 40) and 10 m behind (x = 10); a car
beside it on the lane drives off. The autopilot agent pulls out, merges into the lane and
drives past the front car without a collision; the scenario ends (its actors go) once the
ego has driven 20 + 15 = 35 m. Two runs give identical logs."""

from __future__ import annotations

import math

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [90.0, 1.75, 0.0]]
SCENARIOS = [{"type": "ParkingExit", "trigger": {"x": 20.0, "y": 1.75, "yaw": 0.0}}]
LANE_EDGE = 3.5  # y of the driving lane's right border
EGO_HALF_WIDTH = 0.95  # at most, a Lincoln MKZ


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parking_exit")
    return [
        run_scenario_route(folder / str(k), "pe", WAYPOINTS, SCENARIOS, route_seconds=12.0)
        for k in range(2)
    ]


def test_the_ego_starts_parked_and_merges_into_the_lane(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    parked_tick = next(
        i
        for i, o in enumerate(trace.others)
        if any(s.role == "scenario no lights" for s in o.values())
    )
    parked = sorted(
        (s for s in trace.others[parked_tick].values() if s.role == "scenario no lights"),
        key=lambda s: s.x,
    )
    assert [round(s.x, 1) for s in parked] == [10.0, 40.0]
    start = trace.ego[parked_tick]
    assert start.x == pytest.approx(20.0, abs=0.05)
    assert start.y - EGO_HALF_WIDTH > LANE_EDGE and start.y < 5.5  # on the sidewalk
    for car in parked:
        assert car.y == pytest.approx(start.y, abs=0.2)  # the same outer part of the lane
        track = [s for s in trace.of(car.id) if s is not None]
        assert max(abs(s.x - car.x) + abs(s.y - car.y) for s in track) < 0.01
    side = [s for s in trace.others[parked_tick].values() if s.role == "scenario"]
    assert [(round(s.x), round(s.y, 2)) for s in side] == [(20, 1.75)]  # beside the ego
    # the ego pulls out and is in the lane's centre before it passes the front car's rear
    merged = next(i for i, e in enumerate(trace.ego) if i > parked_tick and abs(e.y - 1.75) < 0.3)
    assert trace.ego[merged].x < 40.0
    assert all(abs(e.y - 1.75) < 0.3 for e in trace.ego[merged:] if e.x > 45.0)
    assert max(e.x for e in trace.ego) > 60.0
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    # the scenario ends when the ego has driven 35 m: its actors go on that tick's step
    travelled, end = 0.0, None
    for i in range(parked_tick + 1, len(trace.ego)):
        a, b = trace.ego[i - 1], trace.ego[i]
        travelled += math.hypot(b.x - a.x, b.y - a.y)
        if travelled >= 35.0:
            end = i
            break
    gone = next(
        i
        for i in range(parked_tick, len(trace.others))
        if not any(s.role.startswith("scenario") for s in trace.others[i].values())
    )
    assert end is not None and abs(gone - end) <= 2


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
