"""EnterActorFlowV2 against EnterActorFlow, same route and parameters, on a town generated
as town_small (seed 7, 2 x 2 blocks of 100 m) but with two lanes each way.

Worked from the generator's rules (tests/test_towngen.py): the streets' centre lines run
along the grid lines, here x = 100 and y = 0 at the T junction (100, 0); lanes are 3.5 m
wide, so each direction's lane centres lie 1.75 and 5.25 m from the centre line. The
westbound lanes of the top road are at y = -1.75 (the leftmost) and y = -5.25; the north
arm's lanes towards the junction at x = 100 - 1.75 = 98.25 and 100 - 5.25 = 94.75 (the
right turn's lane). The junction reaches 9 + (2 - 1) * 3.5 = 12.5 m along each arm, and the
top road runs straight on through it on the same lane index.

The flow goes west from x = 180 to x = 35 on the outer westbound lane (y = -5.25); the ego
comes down the north arm on x = 94.75 and turns right into it. EnterActorFlow runs a flow
on each westbound lane (both y values); V2 only the one from the source lane, its vehicles
spawning at the source and going at the sink. Two V2 runs give identical logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from flow_traces import scenario_samples
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs
from world.map.towngen import generate_town

INNER_Y, OUTER_Y = -1.75, -5.25  # the westbound lanes' centres
SOURCE_X, SINK_X = 180.0, 35.0
FLOW_SPEED = 8.0  # m/s
STEP = FLOW_SPEED * 0.05  # m a flow car moves in a tick
LANE_TOLERANCE = 0.5  # m off a lane centre (the lanes are 3.5 m apart)
WAYPOINTS = [[94.75, -60.0, 0.0], [25.0, OUTER_Y, 0.0]]


def _scenarios(type_name: str) -> list[dict]:
    return [
        {
            "type": type_name,
            "trigger": {"x": 94.75, "y": -50.0, "yaw": 90.0},
            "start_actor_flow": {"x": SOURCE_X, "y": OUTER_Y, "z": 0.0},
            "end_actor_flow": {"x": SINK_X, "y": OUTER_Y, "z": 0.0},
            "flow_speed": FLOW_SPEED,
            "source_dist_interval": [25.0, 40.0],
        }
    ]


@pytest.fixture(scope="module")
def town(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("two_lanes") / "town_two_lanes.xodr"
    path.write_text(generate_town(7, 2, 2, 100.0, 2, name="town_two_lanes"))
    return path


def _run(folder: Path, type_name: str, town: Path):
    return run_scenario_route(
        folder, "eaf", WAYPOINTS, _scenarios(type_name), map_path=str(town), route_seconds=60.0
    )


@pytest.fixture(scope="module")
def v2_runs(tmp_path_factory, town):
    folder = tmp_path_factory.mktemp("enter_actor_flow_v2")
    return [_run(folder / str(k), "EnterActorFlowV2", town) for k in range(2)]


@pytest.fixture(scope="module")
def v1_run(tmp_path_factory, town):
    return _run(tmp_path_factory.mktemp("enter_actor_flow") / "0", "EnterActorFlow", town)


def _lane_of(y: float) -> float | None:
    """The westbound lane centre within LANE_TOLERANCE of `y`, if any."""
    return next((c for c in (INNER_Y, OUTER_Y) if abs(y - c) < LANE_TOLERANCE), None)


def test_v2_runs_one_flow_on_the_source_lane_only(v2_runs):
    outcome, trace, _ = v2_runs[0]
    flow = scenario_samples(trace)
    assert len(flow) >= 5
    for samples in flow.values():
        assert all(abs(y - OUTER_Y) < LANE_TOLERANCE for _, _, y, _ in samples)
    assert outcome.failure.value == "none", outcome.message


def test_enter_actor_flow_runs_a_flow_on_every_lane_of_the_direction(v1_run):
    outcome, trace, _ = v1_run
    flow = scenario_samples(trace)
    lanes: dict[float, list[int]] = {INNER_Y: [], OUTER_Y: []}
    # where each vehicle appears, not its whole drive: the autopilot puts a car placed in
    # the junction at (96, -5.25) on the north arm's right turn into the inner lane (its
    # nearest centre point, 0.42 m off and 47 degrees from the car's heading, beats the
    # straight lane's 0.5 m), and that car leaves the outer lane
    for vehicle, samples in flow.items():
        lane = _lane_of(samples[0][2])
        assert lane is not None
        lanes[lane].append(vehicle)
    first_tick = min(s[0][0] for s in flow.values())
    for lane, vehicles in lanes.items():
        assert len(vehicles) >= 3
        sourced = [flow[v][0] for v in vehicles if flow[v][0][0] > first_tick]
        assert sourced  # and each lane's flow spawns at its own source, (180, lane)
        assert all(abs(x - SOURCE_X) < 1.0 and _lane_of(y) == lane for _, x, y, _ in sourced)
    assert outcome.failure.value == "none", outcome.message


def test_v2_spawns_at_the_source_and_vehicles_go_at_the_sink(v2_runs):
    _, trace, _ = v2_runs[0]
    flow = scenario_samples(trace)
    first_tick = min(s[0][0] for s in flow.values())
    sourced = [v for v, s in flow.items() if s[0][0] > first_tick]
    assert len(sourced) >= 2
    for vehicle in sourced:
        _, x, y, _ = flow[vehicle][0]
        assert abs(x - SOURCE_X) < 1.0 and abs(y - OUTER_Y) < LANE_TOLERANCE
    ego_at_sink = next(
        k
        for k, e in enumerate(trace.ego)
        if abs(e.x - SINK_X) < 2.0 and abs(e.y - OUTER_Y) < LANE_TOLERANCE
    )
    gone = [s[-1] for s in flow.values() if s[-1][0] < ego_at_sink - 1]
    assert gone  # some left before the scenario ended: those went at the sink
    assert all(abs(x - SINK_X) < 2.0 + STEP for _, x, _, _ in gone)


def test_two_v2_runs_identical_logs(v2_runs):
    assert compare_logs(v2_runs[0][2], v2_runs[1][2]) is None
