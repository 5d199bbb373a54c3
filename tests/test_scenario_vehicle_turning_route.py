"""VehicleTurningRoute and VehicleTurningRoutePedestrian on town_small's T-junction
without lights (junction 14, its west exit at x = 91): the autopilot ego comes north up
the side road (x = 98.25) and turns right into the west-going lane (centre y = -1.75,
3.5 m wide; sidewalks at y = -4.5 and y = 4.5, read from the map's lanes).

The cyclist waits on the right sidewalk 11 m past the exit (x = 80, y = -4.5); the
pedestrian 0.5 m past it (x = 90.5) on the far sidewalk (y = 4.5), the ego turning right.
Each stands until the ego is within 6 m of its crossing point on the ego's lane or as
many seconds from it as ScenarioRunner gives (1.8 s cyclist, 2.2 s pedestrian), then
moves across at 1.8 m/s: the cyclist twice its 2.75 m to the lane centre, the pedestrian
sidewalk to sidewalk (9 m). Two runs give identical logs. (The autopilot ego does not
brake for the cyclist and hits it: the route's collision test scores that.)"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[98.25, -50.0, 0.0], [40.0, -1.75, 0.0]]
TRIGGER = {"x": 98.25, "y": -47.0, "yaw": 90.0}
LANE_Y, HALF_WIDTH = -1.75, 1.75
SPEED = 1.8
TICK = 0.05


@dataclass(frozen=True)
class Case:
    start: tuple[float, float]  # where it waits
    crossing: tuple[float, float]  # its crossing point on the ego's lane
    reaction: float  # s
    travel: float  # m it moves


CASES = {
    "VehicleTurningRoute": Case((80.0, -4.5), (80.0, LANE_Y), 1.8, 5.5),
    "VehicleTurningRoutePedestrian": Case((90.5, 4.5), (90.5, LANE_Y), 2.2, 9.0),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def runs(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    scenario = [{"type": request.param, "trigger": TRIGGER}]
    return CASES[request.param], [
        run_scenario_route(folder / str(k), "vtr", WAYPOINTS, scenario, route_seconds=25.0)
        for k in range(2)
    ]


def _gap(ego, point) -> float:
    return ((ego.x - point[0]) ** 2 + (ego.y - point[1]) ** 2) ** 0.5


def test_it_waits_for_the_ego_then_crosses_into_the_ego_s_lane(runs):
    case, ((outcome, trace, _), _) = runs
    assert outcome.failure.value == "none", outcome.message
    ids = {s.id for o in trace.others for s in o.values() if s.role == "scenario"}
    assert len(ids) == 1
    adversary = trace.of(ids.pop())
    seen = [i for i, s in enumerate(adversary) if s is not None]
    first = adversary[seen[0]]
    assert abs(first.x - case.start[0]) < 0.6 and abs(first.y - case.start[1]) < 0.6
    settled = seen[int(1.0 / TICK) :]  # once it has dropped onto its place
    start = next(i for i in settled if adversary[i].speed > 1.0)
    ego, before = trace.ego[start - 1], trace.ego[start - 2]

    def due(e) -> bool:
        gap = _gap(e, case.crossing)
        return gap < 6.0 or (e.speed > 0.1 and gap / e.speed < case.reaction)

    assert due(ego) and not due(before)  # it went the tick the ego came near enough
    moving = [adversary[i] for i in seen[seen.index(start) : seen.index(start) + 10]]
    assert all(abs(s.speed - SPEED) < 0.15 for s in moving[1:])
    assert any(abs(adversary[i].y - LANE_Y) < HALF_WIDTH for i in seen)  # in the ego's lane
    if case.travel > 6.0:  # the pedestrian: over to the other sidewalk, then gone
        assert adversary[seen[-1]].y < LANE_Y - HALF_WIDTH
        assert abs((seen[-1] - start) * TICK - case.travel / SPEED) < 0.3
    assert seen[-1] < len(adversary) - 1  # removed afterwards


def test_two_runs_identical_logs(runs):
    _, ((_, _, log1), (_, _, log2)) = runs
    assert compare_logs(log1, log2) is None
