"""AccidentTwoWays on town_small's top road (one 3.5 m lane each way): with distance 25
from the trigger at x = 30, the police car at x = 55 and the crashed cars at x = 65 and
71, 1.05 m right of the lane centre (y = 2.8). The autopilot agent does not overtake: it
waits behind the police car and the route ends on its time limit with the lane still
blocked (acceptable: the blocked lane and the oncoming flow define the scenario). 5 s after
the ego comes within 50 m of the first crashed car (at the trigger already) the oncoming
flow starts on the lane left of the accident (y = -1.75), a car each `frequency` = 35 m.
Two runs give identical logs."""

from __future__ import annotations

import pytest
from flow_checks import check_oncoming_flow
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [100.0, 1.75, 0.0]]
TRIGGER_X = 30.0
GAP = 35.0
SCENARIOS = [
    {
        "type": "AccidentTwoWays",
        "trigger": {"x": TRIGGER_X, "y": 1.75, "yaw": 0.0},
        "distance": 25,
        "frequency": [GAP, GAP],
    }
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("accident_two_ways")
    return [
        run_scenario_route(folder / str(k), "acc2", WAYPOINTS, SCENARIOS, route_seconds=18.0)
        for k in range(2)
    ]


def test_the_lane_stays_blocked_and_oncoming_traffic_flows(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    assert outcome.stop_reason == "route_seconds"
    parked = {i: s for i, s in trace.others[-1].items() if s.role == "scenario" and s.y > 0.0}
    places = sorted((round(s.x, 1), round(s.y, 2)) for s in parked.values())
    assert places == [(30.0, 5.55), (55.0, 2.8), (65.0, 2.8), (71.0, 2.8)]
    for actor_id in parked:
        samples = [s for s in trace.of(actor_id) if s is not None]
        assert max(abs(s.x - samples[0].x) + abs(s.y - samples[0].y) for s in samples) < 0.01
    last = trace.ego[-1]
    assert 45.0 < last.x < 53.0 and last.speed < 0.1
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    trigger_tick = next(i for i, e in enumerate(trace.ego) if e.x >= TRIGGER_X - 1.5)
    check_oncoming_flow(trace, -1.75, trigger_tick, 5.0, GAP)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
