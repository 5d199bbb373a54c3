"""ParkedObstacle and ParkedObstacleTwoWays on town_small's top road (one 3.5 m lane each
way). The trigger is at x = 30 and `distance` 30, so the car parks at x = 60, 0.7 of half
the lane width (1.225 m) right of the lane centre y = 1.75, and the warning sign stands on
the sidewalk (2 m wide, centre y = 4.5) a further 0.3 * 3.5 m out. The autopilot agent does
not overtake: it stops behind the car and the route ends on its time limit with the lane
still blocked (acceptable: the scenario's defining fact is the blocked lane, and the
oncoming flow of the two-ways type). Two runs give identical logs."""

from __future__ import annotations

import pytest
from flow_checks import check_oncoming_flow
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [90.0, 1.75, 0.0]]
TRIGGER = {"x": 30.0, "y": 1.75, "yaw": 0.0}
CAR_X, CAR_Y = 60.0, 1.75 + 0.7 * 3.5 / 2
SIGN_Y = 4.5 + 0.3 * 3.5
GAP = 35.0  # m, the two-ways flow's frequency [35, 35]


def _scenario(kind: str, **params) -> list[dict]:
    return [{"type": kind, "trigger": TRIGGER, "distance": 30.0, **params}]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parked")
    one_way = run_scenario_route(
        folder / "one", "po", WAYPOINTS, _scenario("ParkedObstacle"), route_seconds=16.0
    )
    two_ways = [
        run_scenario_route(
            folder / str(k),
            "pot",
            WAYPOINTS,
            _scenario("ParkedObstacleTwoWays", frequency=[GAP, GAP]),
            route_seconds=20.0,
        )
        for k in range(2)
    ]
    return one_way, two_ways


def _parked(trace):
    cars = [s for s in trace.others[-1].values() if s.role == "scenario no lights"]
    assert len(cars) == 1
    return cars[0]


def _check_blocked(outcome, trace):
    assert outcome.failure.value == "none", outcome.message
    car = _parked(trace)
    assert car.x == pytest.approx(CAR_X, abs=0.05)
    assert car.y == pytest.approx(CAR_Y, abs=0.05)
    # parked the whole time: it never moves from its place
    track = [s for s in trace.of(car.id) if s is not None]
    assert max(abs(s.x - CAR_X) + abs(s.y - CAR_Y) for s in track) < 0.05
    signs = [s for s in trace.others[-1].values() if s.type_id == "static.prop.warningaccident"]
    assert [round(s.x, 1) for s in signs] == [30.0]
    assert signs[0].y == pytest.approx(SIGN_Y, abs=0.05)
    # the ego stops behind it and stays there: the lane stays blocked to the route's end
    assert max(e.x for e in trace.ego) < CAR_X - 4.0
    assert trace.ego[-1].speed < 0.1
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_parked_obstacle_blocks_the_lane(runs):
    outcome, trace, _ = runs[0]
    _check_blocked(outcome, trace)


def test_two_ways_blocks_the_lane_and_sends_oncoming_traffic(runs):
    outcome, trace, _ = runs[1][0]
    _check_blocked(outcome, trace)
    # the flow starts 5 s after the ego comes within 50 m of the car (it already is at
    # the trigger, x = 29); each next car spawns when the last is GAP m from the source
    trigger_tick = next(i for i, e in enumerate(trace.ego) if e.x >= TRIGGER["x"] - 1.5)
    check_oncoming_flow(trace, -1.75, trigger_tick, 5.0, GAP)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[1][0][2], runs[1][1][2]) is None
