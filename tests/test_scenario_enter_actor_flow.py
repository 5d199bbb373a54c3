"""EnterActorFlow on town_small: the ego comes down the north arm of the T junction at
(100, 0) and turns right (west) into a flow driving west from x = 180 to x = 35 on the
top road's westbound lane. The flow's stretch is filled at the trigger, then a vehicle
spawns at the source each time the last one is a gap from `source_dist_interval` away;
each is destroyed within 2 m of the sink; the scenario (and the flow) ends when the ego
comes within 2 m of the sink. Two runs give identical logs."""

from __future__ import annotations

import itertools

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

SOURCE_X, SINK_X, LANE_Y = 180.0, 35.0, -1.75  # the westbound lane of roads 2 and 1
GAPS = (25.0, 40.0)
FLOW_SPEED = 8.0  # m/s
WAYPOINTS = [[98.25, -60.0, 0.0], [25.0, -1.75, 0.0]]
SCENARIOS = [
    {
        "type": "EnterActorFlow",
        "trigger": {"x": 98.25, "y": -50.0, "yaw": 90.0},
        "start_actor_flow": {"x": SOURCE_X, "y": LANE_Y, "z": 0.0},
        "end_actor_flow": {"x": SINK_X, "y": LANE_Y, "z": 0.0},
        "flow_speed": FLOW_SPEED,
        "source_dist_interval": list(GAPS),
    }
]
STEP = FLOW_SPEED * 0.05  # m a flow car moves in a tick


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("enter_actor_flow")
    return [
        run_scenario_route(folder / str(k), "eaf", WAYPOINTS, SCENARIOS, route_seconds=60.0)
        for k in range(2)
    ]


def _flow(trace) -> dict[int, list[tuple[int, float, float]]]:
    """Each flow vehicle's (tick, x, y) samples."""
    seen: dict[int, list[tuple[int, float, float]]] = {}
    for k, frame in enumerate(trace.others):
        for sample in frame.values():
            if sample.role == "scenario":
                seen.setdefault(sample.id, []).append((k, sample.x, sample.y))
    return seen


def test_the_flow_fills_its_lane_then_spawns_at_the_source_at_the_drawn_gaps(runs):
    _outcome, trace, _ = runs[0]
    flow = _flow(trace)
    first_tick = min(s[0][0] for s in flow.values())
    initial = sorted(i for i, s in flow.items() if s[0][0] == first_tick)
    sourced = sorted(i for i, s in flow.items() if s[0][0] > first_tick)
    assert len(initial) >= 3 and len(sourced) >= 3
    # the initial vehicles: along the lane between source and sink, a gap apart
    xs = sorted(flow[i][0][1] for i in initial)
    assert all(abs(flow[i][0][2] - LANE_Y) < 0.5 for i in initial)
    assert xs[0] > SINK_X and xs[-1] < SOURCE_X
    for near, far in itertools.pairwise(xs):
        assert GAPS[0] - 2.0 <= far - near <= GAPS[1] + 2.0  # 2 m: the walk's step
    # each later vehicle appears at the source when the one nearest it is a gap away
    for vehicle in sourced:
        tick, x, y = flow[vehicle][0]
        assert abs(x - SOURCE_X) < 1.0 and abs(y - LANE_Y) < 0.5
        before = [o for o in trace.others[tick - 1].values() if o.role == "scenario"]
        gap = min(SOURCE_X - o.x for o in before)
        assert GAPS[0] - 2 * STEP <= gap <= GAPS[1] + 2 * STEP


def test_flow_vehicles_go_at_the_sink_and_the_flow_ends_when_the_ego_reaches_it(runs):
    outcome, trace, _ = runs[0]
    flow = _flow(trace)
    ego_at_sink = next(
        k for k, e in enumerate(trace.ego) if abs(e.x - SINK_X) < 2.0 and abs(e.y - LANE_Y) < 1.0
    )
    for samples in flow.values():
        last_tick, x, _ = samples[-1]
        if last_tick < ego_at_sink - 1:
            assert abs(x - SINK_X) < 2.0 + STEP  # destroyed at the sink
    assert not [
        k
        for k in range(ego_at_sink + 3, len(trace.others))
        for s in trace.others[k].values()
        if s.role == "scenario"
    ]
    assert outcome.failure.value == "none", outcome.message


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
