"""Accident on town_small's top road: with distance 25 from the trigger at x = 30, a
police car at x = 55, crashed cars 10 m and 6 m further (x = 65, 71), all shifted
0.6 * 3.5 / 2 = 1.05 m right of the lane centre (y = 1.75 + 1.05 = 2.8) and the warning
sign past the lane on the sidewalk (y = 4.5 + 0.3 * 3.5 = 5.55). The lane stays blocked:
nothing of the accident moves, the autopilot ego (no lane changes) waits behind the police
car; the background cars on that stretch are gone. Two runs give identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [100.0, 1.75, 0.0]]
SCENARIOS = [{"type": "Accident", "trigger": {"x": 30.0, "y": 1.75, "yaw": 0.0}, "distance": 25}]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("accident")
    return [
        run_scenario_route(folder / str(k), "acc", WAYPOINTS, SCENARIOS, route_seconds=12.0)
        for k in range(2)
    ]


def test_the_blocked_lane_stays_blocked(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    assert outcome.stop_reason == "route_seconds"
    scenario = {i: s for i, s in trace.others[-1].items() if s.role == "scenario"}
    places = sorted((round(s.x, 1), round(s.y, 2), s.type_id) for s in scenario.values())
    assert [p[:2] for p in places] == [(30.0, 5.55), (55.0, 2.8), (65.0, 2.8), (71.0, 2.8)]
    assert places[0][2] == "static.prop.warningaccident"
    assert places[1][2] == "vehicle.dodge.charger_police_2020"
    for actor_id in scenario:
        samples = [s for s in trace.of(actor_id) if s is not None]
        first = samples[0]  # they drop from 0.5 m onto the road, then never move in x-y
        assert max(abs(s.x - first.x) + abs(s.y - first.y) for s in samples) < 0.01
        assert samples[-1].speed < 0.01
    # the ego stops behind the police car (its rear at 55 - half a car) and stays there
    last = trace.ego[-1]
    assert 45.0 < last.x < 53.0 and last.speed < 0.1
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    background = [s for s in trace.others[-1].values() if s.role == "background"]
    assert not [s for s in background if 50.0 < s.x < 100.0 and s.y > 0.0]


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
