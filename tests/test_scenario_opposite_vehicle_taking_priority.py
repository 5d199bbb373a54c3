"""OppositeVehicleTakingPriority on town_medium's four-way junction without lights
(junction 49: centre (100, -100), half sizes 12.5 x 12.5 m, read from the map). The
autopilot ego drives south through it on lane x = 101.75; an ambulance waits 30 m back
from the entry on its right (the west-going road, its rightmost lane y = -105.25, entry
at x = 113.5, so it waits at x = 143.5), so their paths cross at (101.75, -105.25).

What defines it (ScenarioRunner's rules): the ambulance starts when the ego is 2.2 s
(at its speed) or 12 m from the crossing point, then holds 60 km/h straight through the
junction, never yielding, and crosses the ego's lane while the ego is in the junction;
it is gone 10 m past the junction. Two runs give identical logs. (The autopilot ego,
already inside the junction when the ambulance comes, does not avoid it: the route's
collision test scores that.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

TOWN_MEDIUM = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_medium.xodr"
WAYPOINTS = [[101.75, -62.0, 0.0], [101.75, -135.0, 0.0]]
TRIGGER = {"x": 101.75, "y": -64.0, "z": 3.6, "yaw": -90.0}  # the road is 3.6 m up here
CROSSING = (101.75, -105.25)
BOX = (100.0, -100.0, 12.5, 12.5)
SPEED = 60.0 / 3.6
SYNC_TIME, TRIGGER_DISTANCE = 2.2, 12.0


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ovtp")
    scenario = [{"type": "OppositeVehicleTakingPriority", "trigger": TRIGGER}]
    return [
        run_scenario_route(
            folder / str(k),
            "ovtp",
            WAYPOINTS,
            scenario,
            map_path=str(TOWN_MEDIUM),
            route_seconds=20.0,
        )
        for k in range(2)
    ]


def _adversary(trace):
    ids = {s.id for o in trace.others for s in o.values() if s.type_id == "vehicle.ford.ambulance"}
    assert len(ids) == 1
    return trace.of(ids.pop())


def test_the_ambulance_starts_on_time_and_crosses_the_ego_s_lane_at_60_kmh(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    adversary = _adversary(trace)
    seen = [i for i, s in enumerate(adversary) if s is not None]
    assert abs(adversary[seen[0]].x - 143.5) < 0.5 and abs(adversary[seen[0]].y - CROSSING[1]) < 0.3
    start = next(i for i in seen if adversary[i].speed > 1.0)
    ego = trace.ego[start - 1]  # the tick it was told to go
    gap = ((ego.x - CROSSING[0]) ** 2 + (ego.y - CROSSING[1]) ** 2) ** 0.5
    assert gap < TRIGGER_DISTANCE or gap / max(ego.speed, 1e-6) < SYNC_TIME
    before = trace.ego[start - 2]
    before_gap = ((before.x - CROSSING[0]) ** 2 + (before.y - CROSSING[1]) ** 2) ** 0.5
    assert before_gap >= TRIGGER_DISTANCE and before_gap / max(before.speed, 1e-6) >= SYNC_TIME
    # across the ego's lane at full speed, with the ego inside the junction
    cross = next(i for i in seen if adversary[i].x < CROSSING[0])
    assert adversary[cross].speed > SPEED - 1.5
    cx, cy, ex, ey = BOX
    assert abs(trace.ego[cross].x - cx) <= ex and abs(trace.ego[cross].y - cy) <= ey
    # gone once 10 m past the junction's exit (x = 86.5)
    assert adversary[seen[-1]].x < 86.5 - 10.0 + 2.5 and seen[-1] < len(adversary) - 1


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
