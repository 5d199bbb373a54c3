"""MergerIntoSlowTraffic and MergerIntoSlowTrafficV2 on town_small: the ego comes down the
north arm of the T junction at (100, 0) and turns right (west) into a slow flow (4 m/s)
on the top road's westbound lane, from x = 180 to x = 35, filled at the trigger. After
merging the ego drives behind the flow's vehicles at their pace; the flow ends when the
ego comes within 2 m of the sink. Two runs give identical logs."""

from __future__ import annotations

import pytest
from flow_traces import scenario_samples
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

SOURCE_X, SINK_X, LANE_Y = 180.0, 35.0, -1.75
FLOW_SPEED = 4.0  # m/s
WAYPOINTS = [[98.25, -60.0, 0.0], [25.0, LANE_Y, 0.0]]
STRETCH = (48.0, 70.0)  # x past the junction, the last car ahead short of the sink


def _scenario(type_name: str) -> dict:
    return {
        "type": type_name,
        "trigger": {"x": 98.25, "y": -50.0, "yaw": 90.0},
        "start_actor_flow": {"x": SOURCE_X, "y": LANE_Y, "z": 0.0},
        "end_actor_flow": {"x": SINK_X, "y": LANE_Y, "z": 0.0},
        "flow_speed": FLOW_SPEED,
        "source_dist_interval": [15.0, 25.0],
    }


@pytest.fixture(scope="module", params=["MergerIntoSlowTraffic", "MergerIntoSlowTrafficV2"])
def runs(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    entry = [_scenario(request.param)]
    return [
        run_scenario_route(folder / str(k), "mst", WAYPOINTS, entry, route_seconds=90.0)
        for k in range(2)
    ]


def test_the_ego_drives_behind_the_slow_flow_after_merging(runs):
    outcome, trace, _ = runs[0]
    ticks = [
        k
        for k, e in enumerate(trace.ego)
        if STRETCH[0] <= e.x <= STRETCH[1] and abs(e.y - LANE_Y) < 0.5
    ]
    assert ticks
    for k in ticks:  # a flow vehicle ahead in the lane, within 30 m
        ego = trace.ego[k]
        ahead = [
            ego.x - s.x
            for s in trace.others[k].values()
            if s.role == "scenario" and abs(s.y - LANE_Y) < 0.5 and 0.0 < ego.x - s.x < 30.0
        ]
        assert ahead, k
    seconds = (ticks[-1] - ticks[0]) * 0.05
    average = (STRETCH[1] - STRETCH[0]) / seconds
    assert average < 1.3 * FLOW_SPEED  # held to the flow's pace
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_the_flow_ends_when_the_ego_reaches_the_sink(runs):
    outcome, trace, _ = runs[0]
    at_sink = next(
        k for k, e in enumerate(trace.ego) if abs(e.x - SINK_X) < 2.0 and abs(e.y - LANE_Y) < 1.0
    )
    last = max(s[-1][0] for s in scenario_samples(trace).values())
    assert at_sink - 3 <= last <= at_sink + 3
    assert outcome.failure.value == "none", outcome.message


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
