"""OppositeVehicleRunningRedLight at town_small's signalized junction (centre (100, -100)):
the ego drives east on y = -98.25 toward its light (actor 4, stop line at x = 84); the
adversary waits 30 m before the stop line of the road from the ego's right (light 5, stop
line at (101.8, -84), heading -90), so at y = -54. When the ego is 2.2 s from its stop
line, the adversary crosses at 70 km/h against its red light while the ego's is green.
Two runs give identical logs."""

from __future__ import annotations

import math

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[40.0, -98.25, 0.0], [140.0, -98.25, 0.0]]
TRIGGER = {"x": 50.0, "y": -98.25, "yaw": 0.0}
SCENARIOS = [{"type": "OppositeVehicleRunningRedLight", "trigger": TRIGGER}]
EGO_LIGHT, ADVERSARY_LIGHT = 4, 5


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("red_light")
    return [
        run_scenario_route(folder / str(k), "rl", WAYPOINTS, SCENARIOS, route_seconds=20.0)
        for k in range(2)
    ]


def test_the_adversary_runs_its_red_light(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    adversary = next(s for s in trace.others[5].values() if s.role == "scenario")
    assert (round(adversary.x, 1), round(adversary.y, 1)) == (101.8, -54.0)
    samples = trace.of(adversary.id)
    start = next(i for i, s in enumerate(samples) if s is not None and s.y < -54.05)
    ego = trace.ego[start - 1]
    assert abs(math.hypot(84.0 - ego.x, -98.25 - ego.y) / ego.speed - 2.2) < 0.1
    crossing = next(i for i, s in enumerate(samples) if s is not None and s.y < -84.0)
    assert samples[crossing].speed > 19.0  # 70 km/h = 19.44 m/s
    assert trace.lights[crossing][ADVERSARY_LIGHT] == "Red"
    assert trace.lights[crossing][EGO_LIGHT] == "Green"
    assert all(trace.lights[i][EGO_LIGHT] == "Green" for i in range(5, crossing))
    past = [s for s in samples[crossing:] if s is not None]
    assert past[-1].y < -110.0  # straight through the junction
    assert not [e for e in outcome.events if e.startswith("COLLISION")]


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
