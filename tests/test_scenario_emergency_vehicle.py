"""YieldToEmergencyVehicle on town_small's top road (distance 25, trigger at x = 40): when
the ego reaches the trigger an emergency vehicle (special_type emergency) appears 25 m
behind the trigger on the ego's lane (x = 15), drives faster than the ego and closes in;
the autopilot ego cannot change lanes, so it keeps the vehicle behind it and the
YieldToEmergencyVehicleTest scores the infraction. Two runs give identical logs."""

from __future__ import annotations

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [100.0, 1.75, 0.0]]
TRIGGER = {"x": 40.0, "y": 1.75, "yaw": 0.0}
SCENARIOS = [{"type": "YieldToEmergencyVehicle", "trigger": TRIGGER, "distance": 25}]
EMERGENCY = {"vehicle.carlamotors.firetruck", "vehicle.dodge.charger_police"}
EMERGENCY |= {"vehicle.dodge.charger_police_2020", "vehicle.ford.ambulance"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("emergency")
    return [
        run_scenario_route(folder / str(k), "ev", WAYPOINTS, SCENARIOS, route_seconds=12.0)
        for k in range(2)
    ]


def test_the_emergency_vehicle_comes_from_behind_and_is_not_let_by(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    spawned = next(
        i for i, o in enumerate(trace.others) if any(s.role == "scenario" for s in o.values())
    )
    ev = next(s for s in trace.others[spawned].values() if s.role == "scenario")
    assert ev.type_id in EMERGENCY
    assert (round(ev.x, 1), round(ev.y, 2)) == (15.0, 1.75)
    assert trace.ego[spawned - 1].x >= 40.0 - 1.0 - 0.5  # the ego at the trigger point
    samples = [s for s in trace.of(ev.id)[spawned:] if s is not None]
    gaps = [trace.ego[spawned + k].x - s.x for k, s in enumerate(samples)]
    # the ego's route point reached x = 39 (so the ego was past x = 38.5) when it appeared
    assert gaps[0] > 23.5 and min(gaps) < 20.0  # it closes in ...
    assert min(gaps) > 0.0  # ... and stays behind the ego
    assert max(s.speed for s in samples) > max(e.speed for e in trace.ego) + 2.0
    assert outcome.events.count("YIELD_TO_EMERGENCY_VEHICLE") == 1


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
