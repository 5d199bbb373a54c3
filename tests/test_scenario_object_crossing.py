"""DynamicObjectCrossing on town_small's top road (distance 30 from the trigger at x = 30):
the vending machine stands on the sidewalk centre at x = 60 (y = 4.5), the walker behind it
at x = 60 + half the machine's length + 0.5 m; it starts when the ego is 2.1 s from the
crossing point (60, 1.75), walks at 2 m/s toward the road for twice its distance to that
point, through the ego's lane (y 0..3.5) ahead of the ego, then both go. Two runs give
identical logs."""

from __future__ import annotations

import math

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [100.0, 1.75, 0.0]]
TRIGGER = {"x": 30.0, "y": 1.75, "yaw": 0.0}
SCENARIOS = [{"type": "DynamicObjectCrossing", "trigger": TRIGGER, "distance": 30}]
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("crossing")
    return [
        run_scenario_route(folder / str(k), "doc", WAYPOINTS, SCENARIOS, route_seconds=14.0)
        for k in range(2)
    ]


def test_the_walker_crosses_the_ego_lane_in_front_of_it(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    first = {s.type_id.split(".")[0]: s for s in trace.others[5].values() if s.role == "scenario"}
    blocker, walker = first["static"], first["walker"]
    assert (blocker.x, blocker.y) == (60.0, 4.5)
    assert blocker.type_id == "static.prop.vendingmachine"
    assert 60.5 < walker.x < 61.5 and walker.y == 4.5
    samples = trace.of(walker.id)
    # it is spawned 1.2 m up and drops onto the sidewalk first: its start is its first step
    start = next(i for i, s in enumerate(samples) if s is not None and s.y < 4.5 - 0.05)
    ego = trace.ego[start - 1]  # the tick the trigger was seen
    time_to_arrival = math.hypot(60.0 - ego.x, 1.75 - ego.y) / ego.speed
    assert 2.1 - 0.1 <= time_to_arrival < 2.1 + 0.1  # one tick's travel of slack
    moving = [s for s in samples[start:] if s is not None]
    # 2 * 3.19 m (its distance to (60, 1.75, 0), 1.35 m up) at 2 m/s: about 3.2 s of walking
    assert abs(len(moving) * TICK - 3.2) <= 0.15
    in_lane = [i for i in range(start, len(samples)) if samples[i] and 0.0 < samples[i].y < 3.5]
    assert in_lane  # it walked through the ego's lane ...
    assert all(trace.ego[i].x < samples[i].x for i in in_lane[:5])  # ... ahead of the ego
    assert moving[-1].y < -1.5  # across the ego's lane and into the other one
    assert all(s is None for s in samples[start + len(moving) + 1 :])  # then gone


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
