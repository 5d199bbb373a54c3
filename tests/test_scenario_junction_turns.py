"""The junction-turn scenarios on town_small: SignalizedJunctionLeftTurn and
SignalizedJunctionRightTurn at the four-way crossroads with lights (junction 17, centre
(100, -100), half sizes 9 x 9 m), NonSignalizedJunctionLeftTurn and
NonSignalizedJunctionRightTurn at the top road's T-junction without lights (junction 14,
centre (100, -3.6), half sizes 9 x 5.4 m); boxes read from the map's junctions.

The autopilot ego turns; a flow of scenario vehicles drives straight through the junction
from the opposite entry (left turns) or from the ego's left (right turns). What defines
them: a flow vehicle crosses the junction (inside its box, then out on the far side)
before the ego enters it, the ego completes its turn without a collision, and signalized,
the ego's light stays red 5 s after the trigger while the flow's is green, so the ego
stands at its line and enters no earlier. Two runs give identical logs."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

TICK = 0.05
RED_SECONDS = 5.0  # the ego's light is red this long after the trigger


@dataclass(frozen=True)
class Case:
    type_name: str
    waypoints: list
    trigger: dict
    box: tuple[float, float, float, float]  # the junction: centre x, y, half sizes x, y
    flow_far_side: tuple[str, float]  # a coordinate the flow reaches past the junction
    ego_end: tuple[str, float, str, float]  # the ego's lane coordinate, then how far it got
    signalized: bool


SIGNAL_BOX = (100.0, -100.0, 9.0, 9.0)
T_BOX = (100.0, -3.6, 9.0, 5.4)
CASES = {
    # from the south-going lane (x = 101.75) left into the west-going lane (y = -101.75);
    # the flow comes north (x = 98.25) from the opposite entry
    "SignalizedJunctionLeftTurn": Case(
        "SignalizedJunctionLeftTurn",
        [[101.75, -55.0, 0.0], [60.0, -101.75, 0.0]],
        {"x": 101.75, "y": -65.0, "yaw": -90.0},
        SIGNAL_BOX,
        ("y>", -88.0),
        ("y", -101.75, "x<", 70.0),
        True,
    ),
    # right into the east-going lane (y = -98.25), the flow's own lane, coming from the left
    "SignalizedJunctionRightTurn": Case(
        "SignalizedJunctionRightTurn",
        [[101.75, -55.0, 0.0], [150.0, -98.25, 0.0]],
        {"x": 101.75, "y": -65.0, "yaw": -90.0},
        SIGNAL_BOX,
        ("x>", 112.0),
        ("y", -98.25, "x>", 140.0),
        True,
    ),
    # east along the top road (y = 1.75), left into the side road; the flow goes west
    "NonSignalizedJunctionLeftTurn": Case(
        "NonSignalizedJunctionLeftTurn",
        [[50.0, 1.75, 0.0], [101.75, -50.0, 0.0]],
        {"x": 60.0, "y": 1.75, "yaw": 0.0},
        T_BOX,
        ("x<", 88.0),
        ("x", 101.75, "y<", -40.0),
        False,
    ),
    # north up the side road (x = 98.25), right into the west-going lane, the flow's lane
    "NonSignalizedJunctionRightTurn": Case(
        "NonSignalizedJunctionRightTurn",
        [[98.25, -50.0, 0.0], [50.0, -1.75, 0.0]],
        {"x": 98.25, "y": -40.0, "yaw": 90.0},
        T_BOX,
        ("x<", 88.0),
        ("y", -1.75, "x<", 60.0),
        False,
    ),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def runs(request, tmp_path_factory):
    case = CASES[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    scenario = [{"type": case.type_name, "trigger": case.trigger}]
    return case, [
        run_scenario_route(folder / str(k), "turn", case.waypoints, scenario) for k in range(2)
    ]


def _inside(box, s) -> bool:
    cx, cy, ex, ey = box
    return abs(s.x - cx) <= ex and abs(s.y - cy) <= ey


def _beyond(rule: tuple[str, float], s) -> bool:
    (axis, sign), value = rule[0], rule[1]
    got = s.x if axis == "x" else s.y
    return got > value if sign == ">" else got < value


def test_a_flow_vehicle_crosses_the_junction_before_the_ego_turns(runs):
    case, ((outcome, trace, _), _) = runs
    assert outcome.failure.value == "none", outcome.message
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    ego_in = next(i for i, e in enumerate(trace.ego) if _inside(case.box, e))
    crossed = []
    for frame in trace.others[:ego_in]:
        for s in frame.values():
            if s.role == "scenario" and _inside(case.box, s):
                later = [t for t in trace.of(s.id)[ego_in:] if t is not None]
                if any(_beyond(case.flow_far_side, t) for t in later) or not later:
                    crossed.append(s.id)
    assert crossed, "no flow vehicle went through the junction before the ego entered it"
    # the ego turned: it ends on its exit lane, well past the junction
    lane_axis, lane_value, far_rule, far_value = case.ego_end
    last = trace.ego[-1]
    assert abs((last.x if lane_axis == "x" else last.y) - lane_value) < 0.6
    assert _beyond((far_rule, far_value), last)


def test_signalized_the_ego_waits_at_red_for_5_s(runs):
    case, ((_, trace, _), _) = runs
    if not case.signalized:
        pytest.skip("no lights at this junction")
    tx, ty = case.trigger["x"], case.trigger["y"]
    near = [((e.x - tx) ** 2 + (e.y - ty) ** 2) ** 0.5 for e in trace.ego]
    start = next(i for i, d in enumerate(near) if d < 1.5)  # the route point at the trigger
    ego_in = next(i for i, e in enumerate(trace.ego) if _inside(case.box, e))
    assert (ego_in - start) * TICK >= RED_SECONDS
    assert min(e.speed for e in trace.ego[start:ego_in]) < 0.1  # it stood at its line


def test_two_runs_identical_logs(runs):
    _, ((_, _, log1), (_, _, log2)) = runs
    assert compare_logs(log1, log2) is None
