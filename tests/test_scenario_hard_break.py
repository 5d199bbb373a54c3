"""HardBreakRoute on town_small's top road: the background car ahead of the ego brakes
hard when the ego reaches the trigger, stays stopped 10 s, then drives on; the autopilot
ego stops behind it without a collision; two runs give identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [100.0, 1.75, 0.0]]
TRIGGER_X = 30.0
SCENARIOS = [{"type": "HardBreakRoute", "trigger": {"x": TRIGGER_X, "y": 1.75, "yaw": 0.0}}]
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hard_break")
    return [run_scenario_route(folder / str(k), "hb", WAYPOINTS, SCENARIOS) for k in range(2)]


def test_the_car_ahead_brakes_hard_at_the_trigger_and_drives_on_after_10_s(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    first = trace.others[0]
    ahead = [s for s in first.values() if s.role == "background" and s.x > 20.0 and s.y > 0.5]
    leader = min(ahead, key=lambda s: s.x)  # the nearest background car ahead in the lane
    speeds = [s.speed if s else None for s in trace.of(leader.id)]
    # the trigger: the ego's route point reaches x = 29 (the first point < 2 m from x = 30)
    start = next(i for i, e in enumerate(trace.ego) if e.x >= TRIGGER_X - 1.0 - 0.5)
    assert speeds[start] > 4.0  # driving when the scenario starts
    stopped = next(i for i in range(start, len(speeds)) if speeds[i] < 0.1)
    assert (stopped - start) * TICK <= 1.5  # a hard brake: about 6 m/s gone in under 1.5 s
    assert all(v < 0.1 for v in speeds[stopped : start + int(9.5 / TICK)])  # held ~10 s
    assert max(speeds[start + int(10.5 / TICK) :]) > 2.0  # and going again
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    ego_stop = min(e.speed for e in trace.ego[stopped : start + int(9.5 / TICK)])
    assert ego_stop < 0.1  # the ego stopped behind it


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
