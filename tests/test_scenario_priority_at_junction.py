"""PriorityAtJunction on town_small's crossroads with lights (junction 17, centre
(100, -100), half sizes 9 x 9 m): the autopilot ego drives south straight through it on
lane x = 101.75. Without the scenario its light is red when it arrives and it stands at
its line (seed 11's light cycle); with it, the ego's light is frozen green from the trigger
(every other one red) and the ego drives through without stopping (the background car
ahead of it turns off in the junction, so the ego slows down but never stands). Two runs
give identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[101.75, -55.0, 0.0], [101.75, -140.0, 0.0]]
SCENARIO = [{"type": "PriorityAtJunction", "trigger": {"x": 101.75, "y": -58.0, "yaw": -90.0}}]
ENTRY_Y, EXIT_Y = -91.0, -109.0  # the junction's box in y
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("priority")
    plain = run_scenario_route(folder / "plain", "paj", WAYPOINTS, [], route_seconds=12.0)
    with_it = [
        run_scenario_route(folder / str(k), "paj", WAYPOINTS, SCENARIO, route_seconds=20.0)
        for k in range(2)
    ]
    return plain, with_it


def test_without_the_scenario_the_ego_waits_at_red(runs):
    (_, trace, _), _ = runs
    standing = [e for e in trace.ego if e.speed < 0.1 and ENTRY_Y < e.y < -80.0]
    assert len(standing) * TICK > 3.0


def test_with_it_the_ego_drives_through_on_green_without_stopping(runs):
    _, ((outcome, trace, _), _) = runs
    assert outcome.failure.value == "none", outcome.message
    assert "ROUTE_COMPLETION" in outcome.events
    approach = [e for e in trace.ego if EXIT_Y < e.y < -70.0]
    # never standing (a background car ahead turning off in the junction may slow it)
    assert approach and min(e.speed for e in approach) > 0.5
    assert trace.ego[-1].y < EXIT_Y


def test_two_runs_identical_logs(runs):
    _, ((_, _, log1), (_, _, log2)) = runs
    assert compare_logs(log1, log2) is None
