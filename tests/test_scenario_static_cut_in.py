"""StaticCutIn on town_medium's road 6 (two lanes east: y = -98.25 and -94.75), distance
15 from the trigger at x = 120: parked cars on the right lane at x = 135, 146, then the
adversary at 157, then 168, 179, 190. When the ego is 2.7 s (or 15 m) from (157, -98.25)
the adversary pulls out into the ego's lane ahead of it; the others stay parked. Two runs
give identical logs."""

from __future__ import annotations

import math

import pytest
from runner_helpers import REPO
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

TOWN = str(REPO / "configs" / "maps" / "town_medium.xodr")
WAYPOINTS = [[112.5, -98.25, 3.43], [190.0, -98.25, 3.7]]
TRIGGER = {"x": 120.0, "y": -98.25, "z": 3.44, "yaw": 0.0}  # road 6 rises: z from the map
SCENARIOS = [{"type": "StaticCutIn", "trigger": TRIGGER, "distance": 15}]


pytestmark = pytest.mark.slow  # town_medium's load: about 30 s for the two runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cut_in")
    return [
        run_scenario_route(
            folder / str(k), "ci", WAYPOINTS, SCENARIOS, map_path=TOWN, route_seconds=14.0
        )
        for k in range(2)
    ]


def test_the_parked_car_cuts_in_ahead_of_the_ego(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    parked = sorted(
        (s for s in trace.others[5].values() if s.role == "scenario"), key=lambda s: s.x
    )
    assert [(round(s.x, 1), round(s.y, 2)) for s in parked] == [
        (x, -94.75) for x in (135.0, 146.0, 157.0, 168.0, 179.0, 190.0)
    ]
    adversary = parked[2]
    samples = trace.of(adversary.id)
    start = next(i for i, s in enumerate(samples) if s is not None and s.x > 157.05)

    def arrival(e) -> float:
        return math.hypot(157.0 - e.x, -98.25 - e.y) / max(e.speed, 1e-9)

    trigger = next(i for i, e in enumerate(trace.ego) if i > 5 and arrival(e) < 2.7)
    assert 1 <= start - trigger <= 20  # it moves within a second (the autopilot's pull-away)
    in_lane = [i for i, s in enumerate(samples) if s is not None and abs(s.y + 98.25) < 0.5]
    assert in_lane and samples[in_lane[0]].x > trace.ego[in_lane[0]].x + 5.0
    for other in (*parked[:2], *parked[3:]):
        stays = [s for s in trace.of(other.id) if s is not None]
        assert max(abs(s.x - other.x) + abs(s.y - other.y) for s in stays) < 0.01
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
