"""HighwayExit on town_small: a flow drives west at 8 m/s on the top road's westbound
lane from x = 180 through the T junction at (100, 0) to x = 35, and the ego, in that
lane, takes the junction's north arm off it (its "exit"), so it has to get through the
flow and out of it. The flow's lane is filled at the trigger and fed at the source at
the drawn gaps; its vehicles go at the sink; the scenario (and the flow) ends once the
ego is through the junction. Two runs give identical logs.

The autopilot agent keeps to its lanes (no lane changes), so the ego starts in the
flow's lane rather than crossing into it from a lane beside."""

from __future__ import annotations

import pytest
from flow_traces import gaps_at_spawn, scenario_samples, spawned_at
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

SOURCE = (180.0, -1.75)  # road 2, westbound
SINK = (35.0, -1.75)  # road 1, westbound
GAPS = (25.0, 40.0)
FLOW_SPEED = 8.0  # m/s
STEP = FLOW_SPEED * 0.05
WAYPOINTS = [[150.0, -1.75, 0.0], [101.75, -50.0, 0.0]]  # west, then right onto the north arm
SCENARIOS = [
    {
        "type": "HighwayExit",
        "trigger": {"x": 140.0, "y": -1.75, "yaw": 180.0},
        "start_actor_flow": {"x": SOURCE[0], "y": SOURCE[1], "z": 0.0},
        "end_actor_flow": {"x": SINK[0], "y": SINK[1], "z": 0.0},
        "flow_speed": FLOW_SPEED,
        "source_dist_interval": list(GAPS),
    }
]
ARM_Y = -9.0  # the north arm (road 9) starts 9 m from the junction's centre


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("highway_exit")
    return [
        run_scenario_route(folder / str(k), "hex", WAYPOINTS, SCENARIOS, route_seconds=60.0)
        for k in range(2)
    ]


def _out_of_junction(trace) -> int:
    return next(k for k, e in enumerate(trace.ego) if e.y < ARM_Y and e.x > 100.0)


def test_the_flow_runs_on_the_lane_the_ego_exits_from(runs):
    outcome, trace, _ = runs[0]
    samples = scenario_samples(trace)
    first = min(s[0][0] for s in samples.values())
    initial = [i for i, s in samples.items() if s[0][0] == first]
    assert len(initial) >= 2  # the lane filled at the trigger
    later = spawned_at(samples, *SOURCE, after=first)
    assert len(later) >= 2
    for gap in gaps_at_spawn(trace, later, samples, *SOURCE):
        assert GAPS[0] - 2 * STEP <= gap <= GAPS[1] + 2 * STEP
    end = _out_of_junction(trace)
    for s in samples.values():  # gone at the sink, unless the scenario ended first
        if s[-1][0] < end - 1:
            assert abs(s[-1][1] - SINK[0]) < 2.0 + STEP
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_the_ego_takes_the_exit_and_the_flow_ends_once_it_is_through(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    assert not [e for e in outcome.events if e.startswith("ROUTE_DEVIATION")]
    samples = scenario_samples(trace)
    end = _out_of_junction(trace)
    last = max(s[-1][0] for s in samples.values())
    assert end - 3 <= last <= end + 3


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
