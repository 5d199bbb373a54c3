"""InterurbanActorFlow and InterurbanAdvancedActorFlow on town_small's T junction at
(100, 0), a flow driving west on the top road from x = 180 to x = 35 (no vehicles placed
ahead of time: the flow starts at the trigger).

InterurbanActorFlow: the ego comes from the west and turns left onto the north arm,
across the flow; the scenario ends (the flow's vehicles go) once the ego is out of the
junction. InterurbanAdvancedActorFlow: the ego comes down the north arm and turns left
(east), across the first flow, into a second flow from the lane left of the first's
sink (x = 35 eastbound) to the lane left of its source (x = 180); it ends when the ego
is past x = 180. Two runs of each give identical logs."""

from __future__ import annotations

import pytest
from flow_traces import gaps_at_spawn, scenario_samples, spawned_at
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WEST, EAST = -1.75, 1.75  # the top road's lanes
SOURCE_X, SINK_X = 180.0, 35.0
GAPS = (20.0, 30.0)
FLOW_SPEED = 8.0  # m/s
STEP = FLOW_SPEED * 0.05
FLOW = {
    "start_actor_flow": {"x": SOURCE_X, "y": WEST, "z": 0.0},
    "end_actor_flow": {"x": SINK_X, "y": WEST, "z": 0.0},
    "flow_speed": FLOW_SPEED,
    "source_dist_interval": list(GAPS),
}
JUNCTION_EDGE_Y = -9.0  # the north arm (road 9) starts 9 m from the junction's centre
CASES = {
    "basic": (
        [[20.0, EAST, 0.0], [101.75, -50.0, 0.0]],
        {"type": "InterurbanActorFlow", "trigger": {"x": 30.0, "y": EAST, "yaw": 0.0}},
    ),
    "advanced": (
        [[98.25, -60.0, 0.0], [188.0, EAST, 0.0]],
        {"type": "InterurbanAdvancedActorFlow", "trigger": {"x": 98.25, "y": -50.0, "yaw": 90.0}},
    ),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def runs(request, tmp_path_factory):
    waypoints, scenario = CASES[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    entry = [{**scenario, **FLOW}]
    runs = [
        run_scenario_route(folder / str(k), "iaf", waypoints, entry, route_seconds=60.0)
        for k in range(2)
    ]
    return request.param, runs


def test_the_flows_start_at_the_trigger_and_spawn_at_their_sources_at_the_drawn_gaps(runs):
    case, ((outcome, trace, _), _) = runs
    samples = scenario_samples(trace)
    sources = [(SOURCE_X, WEST)] + ([(SINK_X, EAST)] if case == "advanced" else [])
    assert {len(s) for s in samples.values()}  # some flow vehicles
    first = min(s[0][0] for s in samples.values())
    assert all(spawned_at(samples, x, y) for x, y in sources)
    # every vehicle came from a source: no vehicles placed ahead of time
    assert sum(len(spawned_at(samples, x, y)) for x, y in sources) == len(samples)
    for x, y in sources:
        later = spawned_at(samples, x, y, after=first)
        assert len(later) >= 2
        for gap in gaps_at_spawn(trace, later[1:], samples, x, y):
            assert GAPS[0] - 2 * STEP <= gap <= GAPS[1] + 2 * STEP
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_the_flows_end_when_the_ego_is_through(runs):
    case, ((outcome, trace, _), _) = runs
    samples = scenario_samples(trace)
    if case == "basic":  # out of the junction onto the north arm
        end = next(k for k, e in enumerate(trace.ego) if e.y < JUNCTION_EDGE_Y and e.x > 100.0)
    else:  # past the second flow's sink
        end = next(k for k, e in enumerate(trace.ego) if e.x > SOURCE_X and abs(e.y - EAST) < 1)
    last = max(s[-1][0] for s in samples.values())
    assert end - 3 <= last <= end + 3
    assert outcome.failure.value == "none", outcome.message


def test_two_runs_identical_logs(runs):
    _, ((_, _, log1), (_, _, log2)) = runs
    assert compare_logs(log1, log2) is None
