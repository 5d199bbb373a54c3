"""HighwayCutIn on town_small: the ego drives east along the top road through the T
junction at (100, 0); at the trigger a car appears on the junction's north arm (its
"on-ramp") and drives to 10 m past the junction's exit on the ego's lane, timed to get
there when the ego reaches the exit, then keeps 80 % of the ego's speed in front of it
for 5 s and goes. The car ends up in the ego's lane in front of it; two runs give
identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

LANE_Y = 1.75  # the eastbound lane of roads 1 and 2
EXIT_X = 109.0  # the junction's exit on the ego's road (road 2 starts there)
ON_RAMP = {"x": 98.25, "y": -40.0, "z": 0.0}  # the north arm's lane towards the junction
WAYPOINTS = [[20.0, LANE_Y, 0.0], [170.0, LANE_Y, 0.0]]
SCENARIOS = [
    {
        "type": "HighwayCutIn",
        "trigger": {"x": 30.0, "y": LANE_Y, "yaw": 0.0},
        "other_actor_location": ON_RAMP,
    }
]
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("highway_cut_in")
    return [run_scenario_route(folder / str(k), "hci", WAYPOINTS, SCENARIOS) for k in range(2)]


def _cut_in(trace) -> list[tuple[int, float, float, float]]:
    """The cut-in car's (tick, x, y, speed) samples."""
    return [
        (k, s.x, s.y, s.speed)
        for k, frame in enumerate(trace.others)
        for s in frame.values()
        if s.role == "scenario"
    ]


def test_the_car_appears_on_the_on_ramp_at_the_trigger(runs):
    _, trace, _ = runs[0]
    samples = _cut_in(trace)
    tick, x, y, _ = samples[0]
    assert abs(x - ON_RAMP["x"]) < 0.5 and abs(y - ON_RAMP["y"]) < 0.5
    # the trigger: the ego's route point reaches x = 29 (the first plan point < 2 m away)
    assert trace.ego[tick].x >= 28.0 and trace.ego[tick - 2].x < 29.5


def test_the_car_cuts_in_front_of_the_ego_in_its_lane_then_goes(runs):
    outcome, trace, _ = runs[0]
    samples = _cut_in(trace)
    in_front = [
        (k, x - trace.ego[k].x)
        for k, x, y, _ in samples
        if abs(y - LANE_Y) < 0.5 and x > EXIT_X and 0.0 < x - trace.ego[k].x < 40.0
    ]
    assert len(in_front) * TICK >= 3.0  # seconds in the ego's lane ahead of it
    last = samples[-1][0]
    assert last < len(trace.others) - 1  # destroyed before the route ended
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
