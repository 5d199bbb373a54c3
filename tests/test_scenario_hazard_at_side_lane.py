"""HazardAtSideLane and HazardAtSideLaneTwoWays on town_small's top road (one 3.5 m lane
each way). Trigger at x = 30, `distance` 25: bicycles at x = 55 and 64 (9 m further),
0.55 * 3.5 / 2 = 0.9625 m right of the lane centre (y = 2.7125). From the trigger each
rides at `bicycle_speed` 10 km/h along the lane at that offset for
`bicycle_drive_distance` 20 m and stops. The autopilot agent does not overtake: it
follows them and stops behind (acceptable: the bicycles at the lane's side, and the
two-ways type's oncoming flow every `frequency` = 35 m from 5 s after the ego comes within
50 m of the first bicycle, define the scenario). Two runs give identical logs."""

from __future__ import annotations

import pytest
from flow_checks import check_oncoming_flow
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [90.0, 1.75, 0.0]]
TRIGGER = {"x": 30.0, "y": 1.75, "yaw": 0.0}
PARAMS = {"distance": 25.0, "bicycle_drive_distance": 20.0}
GAP = 35.0
SIDE_Y = 1.75 + 0.55 * 3.5 / 2
SPEED = 10.0 / 3.6
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hazard")
    one_way = run_scenario_route(
        folder / "one",
        "hz",
        WAYPOINTS,
        [{"type": "HazardAtSideLane", "trigger": TRIGGER, **PARAMS}],
        route_seconds=14.0,
    )
    scenario = {"type": "HazardAtSideLaneTwoWays", "trigger": TRIGGER, **PARAMS, "frequency": GAP}
    two_ways = [
        run_scenario_route(folder / str(k), "hzt", WAYPOINTS, [scenario], route_seconds=16.0)
        for k in range(2)
    ]
    return one_way, two_ways


def _check_bicycles(outcome, trace) -> None:
    assert outcome.failure.value == "none", outcome.message
    bicycles = sorted(
        {
            s.id: s for o in trace.others for s in o.values() if s.role == "scenario" and s.y > 0
        }.values(),
        key=lambda s: s.id,
    )
    assert len(bicycles) == 2
    assert all(s.type_id.split(".")[-1] in ("crossbike", "century", "omafiets") for s in bicycles)
    trigger_tick = next(i for i, e in enumerate(trace.ego) if e.x >= TRIGGER["x"] - 1.5)
    for bicycle, start_x in zip(bicycles, (55.0, 64.0), strict=True):
        track = [s for s in trace.of(bicycle.id) if s is not None]
        assert track[0].x == pytest.approx(start_x, abs=0.05)
        assert all(s.y == pytest.approx(SIDE_Y, abs=0.05) for s in track)  # at the side
        riding = [s.speed for s in track[trigger_tick + 10 : trigger_tick + int(6.0 / TICK)]]
        assert min(riding) == pytest.approx(SPEED, abs=0.05)
        assert max(riding) == pytest.approx(SPEED, abs=0.05)
        assert track[-1].speed < 0.1  # stopped after its 20 m
        assert track[-1].x == pytest.approx(start_x + 20.0, abs=0.5)
    # the ego stays behind the first bicycle (its rear ~0.8 m behind its centre)
    first = [s for s in trace.of(bicycles[0].id)]
    assert all(e.x < b.x - 2.0 for e, b in zip(trace.ego, first, strict=True) if b is not None)
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_bicycles_ride_at_the_lane_side(runs):
    _check_bicycles(*runs[0][:2])


def test_two_ways_bicycles_and_oncoming_traffic(runs):
    outcome, trace, _ = runs[1][0]
    _check_bicycles(outcome, trace)
    trigger_tick = next(i for i, e in enumerate(trace.ego) if e.x >= TRIGGER["x"] - 1.5)
    check_oncoming_flow(trace, -1.75, trigger_tick, 5.0, GAP)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[1][0][2], runs[1][1][2]) is None
