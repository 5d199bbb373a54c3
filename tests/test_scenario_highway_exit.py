"""HighwayExit on Town04's bridge (road 39, westbound, z = 11): the ego starts in the
third lane and takes the exit ramp (road 33) at junction 1176, crossing the rightmost
lane, where a flow drives from x = 51 on road 39 to road 40 past the junction at
8 m/s. The flow's lane is filled at the trigger and fed at the source at the drawn
gaps; its vehicles go at the sink; the scenario (and the flow) ends once the ego is
through the junction onto the ramp. Two runs give identical logs. Town04 takes a few
seconds to load: slow."""

from __future__ import annotations

import pytest
from flow_traces import gaps_at_spawn, scenario_samples, spawned_at
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

SOURCE = (51.36, 6.29)  # road 39 lane -4, s = 15
SINK = (-150.80, 5.74)  # road 40 lane -4, s = 30
GAPS = (25.0, 40.0)
FLOW_SPEED = 8.0  # m/s
STEP = FLOW_SPEED * 0.05
WAYPOINTS = [[61.34, 9.83, 11.0], [-118.69, -53.15, 7.22]]  # road 39 lane -3 to road 33
SCENARIOS = [
    {
        "type": "HighwayExit",
        "trigger": {"x": 51.34, "y": 9.79, "z": 11.0, "yaw": 180.0},
        "start_actor_flow": {"x": SOURCE[0], "y": SOURCE[1], "z": 11.0},
        "end_actor_flow": {"x": SINK[0], "y": SINK[1], "z": 7.28},
        "flow_speed": FLOW_SPEED,
        "source_dist_interval": list(GAPS),
    }
]
RAMP_Y = -18.14  # road 33 lane 2 at s = 160: on the ramp, out of the junction
HIGHWAY_Y = 3.0  # south of the rightmost lane's edge: the ego has left the highway


@pytest.fixture(scope="module")
def runs(tmp_path_factory, shared):
    folder = tmp_path_factory.mktemp("highway_exit")
    town04 = str(shared / "maps" / "carla" / "Town04.xodr")
    return [
        run_scenario_route(
            folder / str(k), "hex", WAYPOINTS, SCENARIOS, map_path=town04, route_seconds=60.0
        )
        for k in range(2)
    ]


pytestmark = pytest.mark.slow


def test_the_flow_runs_on_the_lane_the_ego_crosses(runs):
    outcome, trace, _ = runs[0]
    samples = scenario_samples(trace)
    first = min(s[0][0] for s in samples.values())
    initial = [i for i, s in samples.items() if s[0][0] == first]
    assert len(initial) >= 3  # the lane filled at the trigger
    later = spawned_at(samples, *SOURCE, after=first)
    assert len(later) >= 2
    for gap in gaps_at_spawn(trace, later, samples, *SOURCE):
        assert GAPS[0] - 2 * STEP <= gap <= GAPS[1] + 2 * STEP
    ego_off = next(k for k, e in enumerate(trace.ego) if e.y < HIGHWAY_Y)
    for s in samples.values():  # gone at the sink, unless the scenario ended first
        if s[-1][0] < ego_off:
            assert abs(s[-1][1] - SINK[0]) < 2.0 + STEP
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_the_ego_takes_the_exit_and_the_flow_ends_once_it_is_through(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    samples = scenario_samples(trace)
    ego_off = next(k for k, e in enumerate(trace.ego) if e.y < HIGHWAY_Y)
    on_ramp = next(k for k, e in enumerate(trace.ego) if e.y < RAMP_Y)
    last = max(s[-1][0] for s in samples.values())
    assert ego_off <= last <= on_ramp + 2


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
