"""ConstructionObstacle and ConstructionObstacleTwoWays on town_small's top road (one 3.5 m
lane each way). Trigger at x = 30, `distance` 30: the site's point is x = 60 on the lane
centre y = 1.75, so (ScenarioRunner's layout, direction right) the warning board stands
5 m before it (x = 55), the debris 2 m past it (x = 62), four cones 2 m apart along the
lane from x = 62 at 0.85 * 3.5 / 2 = 1.4875 m left of the centre (y = 0.2625), then three
1 m apart across it at x = 68 (y = 1.2625, 2.2625, 3.2625); the construction sign on the
sidewalk at the trigger (y = 4.5 + 0.3 * 3.5). The autopilot agent does not overtake: it
stops before the board and the route ends on its time limit with the lane still blocked
(acceptable: the blocked lane, and the two-ways type's oncoming flow, define the
scenario). Two runs give identical logs."""

from __future__ import annotations

import pytest
from flow_checks import check_oncoming_flow
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [90.0, 1.75, 0.0]]
TRIGGER = {"x": 30.0, "y": 1.75, "yaw": 0.0}
GAP = 35.0
CONE_Y = 1.75 - 0.85 * 3.5 / 2
EXPECTED = sorted(
    [
        ("static.prop.warningconstruction", 30.0, 4.5 + 0.3 * 3.5),
        ("static.prop.trafficwarning", 55.0, 1.75),
        ("static.prop.dirtdebris02", 62.0, 1.75),
        *(("static.prop.constructioncone", x, CONE_Y) for x in (62.0, 64.0, 66.0, 68.0)),
        *(("static.prop.constructioncone", 68.0, CONE_Y + k) for k in (1.0, 2.0, 3.0)),
    ]
)


def _scenario(kind: str, **params) -> list[dict]:
    return [{"type": kind, "trigger": TRIGGER, "distance": 30.0, **params}]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("construction")
    one_way = run_scenario_route(
        folder / "one", "co", WAYPOINTS, _scenario("ConstructionObstacle"), route_seconds=12.0
    )
    two_ways = [
        run_scenario_route(
            folder / str(k),
            "cot",
            WAYPOINTS,
            _scenario("ConstructionObstacleTwoWays", frequency=[GAP, GAP]),
            route_seconds=18.0,
        )
        for k in range(2)
    ]
    return one_way, two_ways


def _check_blocked(outcome, trace):
    assert outcome.failure.value == "none", outcome.message
    assert outcome.stop_reason == "route_seconds"
    props = {i: s for i, s in trace.others[-1].items() if s.type_id.startswith("static.prop.")}
    found = sorted((s.type_id, s.x, s.y) for s in props.values())
    assert [f[0] for f in found] == [e[0] for e in EXPECTED]
    for (_, x, y), (_, ex, ey) in zip(found, EXPECTED, strict=True):
        assert (x, y) == (pytest.approx(ex, abs=0.02), pytest.approx(ey, abs=0.02))
    for actor_id in props:  # nothing of the site moves
        samples = [s for s in trace.of(actor_id) if s is not None]
        assert max(abs(s.x - samples[0].x) + abs(s.y - samples[0].y) for s in samples) < 0.01
    # the ego stops before the board (2.37 m deep, turned across the lane) and stays
    last = trace.ego[-1]
    assert max(e.x for e in trace.ego) < 55.0 - 1.2 and last.speed < 0.1
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_construction_blocks_the_lane(runs):
    _check_blocked(*runs[0][:2])


def test_two_ways_blocks_the_lane_and_sends_oncoming_traffic(runs):
    outcome, trace, _ = runs[1][0]
    _check_blocked(outcome, trace)
    # the flow starts 5 s after the ego (triggered at x = 29) comes within 30 m of x = 60
    near_tick = next(i for i, e in enumerate(trace.ego) if e.x > 30.0)
    check_oncoming_flow(trace, -1.75, near_tick, 5.0, GAP)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[1][0][2], runs[1][1][2]) is None
