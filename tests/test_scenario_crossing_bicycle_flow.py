"""CrossingBicycleFlow on town_small's T-junction without lights (junction 14: centre
(100, -3.6), half sizes 9 x 5.4 m). No map here has a bike lane, so the flow rides the
west-going driving lane (y = -1.75) from start_actor_flow (160, -1.75) straight through
the junction; the autopilot ego comes east along the top road (y = 1.75) and turns left
across it into the side road (x = 101.75). What defines it: the flow is bicycles, one
crosses the junction before the ego enters it while the ego stands waiting at its entry,
and the ego then completes its turn. Two runs give identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[50.0, 1.75, 0.0], [101.75, -50.0, 0.0]]
SCENARIO = [
    {
        "type": "CrossingBicycleFlow",
        "trigger": {"x": 60.0, "y": 1.75, "yaw": 0.0},
        "start_actor_flow": {"x": 160.0, "y": -1.75, "z": 0.0},
    }
]
BOX = (100.0, -3.6, 9.0, 5.4)
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bicycles")
    return [run_scenario_route(folder / str(k), "cbf", WAYPOINTS, SCENARIO) for k in range(2)]


def _inside(s) -> bool:
    cx, cy, ex, ey = BOX
    return abs(s.x - cx) <= ex and abs(s.y - cy) <= ey


def test_the_ego_waits_for_a_bicycle_crossing_then_turns(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    flow = {s.id: s for o in trace.others for s in o.values() if s.role == "scenario"}
    assert flow and all(s.type_id == "vehicle.diamondback.century" for s in flow.values())
    assert all(abs(s.y + 1.75) < 0.5 for o in trace.others for s in o.values() if s.id in flow)
    ego_in = next(i for i, e in enumerate(trace.ego) if _inside(e))
    crossed = [
        i
        for i in range(ego_in)
        if any(s.id in flow and _inside(s) for s in trace.others[i].values())
    ]
    assert crossed  # a bicycle in the junction before the ego
    waiting = [e for e in trace.ego[crossed[0] : ego_in] if e.speed < 0.1]
    assert len(waiting) * TICK > 1.0  # the ego stood at its entry meanwhile
    last = trace.ego[-1]
    assert abs(last.x - 101.75) < 0.6 and last.y < -40.0


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
