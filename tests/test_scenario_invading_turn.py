"""InvadingTurn on town_medium's rounded north-west corner (road 41, one 3.5 m lane each
way): the ego drives west on the top road (y = -1.75) into the corner, a right turn,
towards the west road going south. Trigger at x = 50, `distance` 40: the flow's source is
on the oncoming lane 70 m ahead, in the corner. Oncoming cars spawn there one whenever
the last is 40 m away and drive at the ego's speed limit, their centre offset + 3.5 / 2 -
0.7 = 1.3 m left of their lane's centre, so a car's side (about 0.9 m from its centre)
reaches 1.3 + 0.9 - 1.75 = 0.45 m into the ego's lane: `offset` (0.25 m) plus what its half
width passes ScenarioRunner's 0.7 m. The autopilot ego gets through without a collision;
the scenario ends when it is past the source and takes the flow away. Two runs give
identical logs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs
from world import Map
from world.geometry import Location

TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
WAYPOINTS = [[60.0, -1.75, 0.0], [1.75, -50.0, 0.0]]
SCENARIOS = [
    {"type": "InvadingTurn", "trigger": {"x": 50.0, "y": -1.75, "yaw": 180.0}, "distance": 40}
]
INVADE = -(0.25 + 3.5 / 2 - 0.7)  # m right of the lane centre: 1.3 m to the left
GAP = 40.0
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("invading")
    return [
        run_scenario_route(
            folder / str(k), "inv", WAYPOINTS, SCENARIOS, map_path=str(TOWN), route_seconds=20.0
        )
        for k in range(2)
    ]


def _lateral(world_map, sample) -> tuple[float, int]:
    """m right of the nearest lane centre, and that lane's road."""
    wp = world_map.get_waypoint(Location(sample.x, sample.y, 0.0))
    tf = wp.transform
    right = tf.get_right_vector()
    return (sample.x - tf.location.x) * right.x + (sample.y - tf.location.y) * right.y, wp.road_id


@pytest.mark.slow
def test_oncoming_cars_cut_into_the_ego_lane_on_the_curve(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    world_map = Map.from_file(TOWN)
    flow = sorted(
        {
            s.id
            for o in trace.others
            for s in o.values()
            if s.type_id.startswith("vehicle.") and s.role == "scenario"
        }
    )
    assert len(flow) >= 2
    on_curve = 0
    for actor_id in flow:
        track = [(i, s) for i, s in enumerate(trace.of(actor_id)) if s is not None]
        for _, sample in track[10:]:  # once it has settled from its spawn drop
            offset, road = _lateral(world_map, sample)
            assert offset == pytest.approx(INVADE, abs=0.15)
            on_curve += road == 41
    assert on_curve > 40  # samples in the corner itself
    first = [s for s in trace.of(flow[0])]
    second_tick = next(i for i, o in enumerate(trace.others) if flow[1] in o)
    source = next(s for s in first if s is not None)
    leader = first[second_tick - 1]
    assert math.hypot(leader.x - source.x, leader.y - source.y) == pytest.approx(GAP, abs=1.0)
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    # past the source the scenario ends: the flow goes with it
    assert not any(s.role == "scenario" for s in trace.others[-1].values())


@pytest.mark.slow
def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
