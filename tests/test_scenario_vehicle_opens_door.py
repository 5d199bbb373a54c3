"""VehicleOpensDoorTwoWays on town_small's top road (one 3.5 m lane each way, a 2 m
sidewalk on the right). Trigger at x = 30, `distance` 30: the car parks on the sidewalk
beside x = 60, moved towards the road by (2.0 - its half width) / 4 from the sidewalk's
centre y = 4.5. Its front-left door opens (a VehicleDoor packet in the log) on the first
tick the ego is under 3 s from x = 60 at its speed (ScenarioRunner's InTimeToArrival);
5 s later the oncoming flow starts on the lane at y = -1.75. The
autopilot agent does not see doors: it drives by in its own lane without a collision
(lockstep's door has no collision shape), and the route ends. Two runs give identical
logs."""

from __future__ import annotations

import math

import pytest
from flow_checks import check_oncoming_flow
from scenario_runs import run_scenario_route

from recorder.logfile.access import open_log
from recorder.logfile.packet_ids import PacketId
from runner.log_compare import compare_logs
from world.actors.vehicle_state import VehicleDoor

WAYPOINTS = [[20.0, 1.75, 0.0], [95.0, 1.75, 0.0]]
GAP = 35.0
SCENARIOS = [
    {
        "type": "VehicleOpensDoorTwoWays",
        "trigger": {"x": 30.0, "y": 1.75, "yaw": 0.0},
        "distance": 30,
        "frequency": [GAP, GAP],
    }
]
DOOR_AT = (60.0, 1.75)
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("opens_door")
    return [
        run_scenario_route(folder / str(k), "door", WAYPOINTS, SCENARIOS, route_seconds=20.0)
        for k in range(2)
    ]


def _seconds_to_door(sample) -> float:
    gap = math.hypot(sample.x - DOOR_AT[0], sample.y - DOOR_AT[1])
    return gap / sample.speed if sample.speed >= 0.1 else math.inf


def test_the_parked_car_opens_its_door_3_s_before_the_ego_arrives(runs):
    outcome, trace, log = runs[0]
    assert outcome.failure.value == "none", outcome.message
    cars = {s.id: s for o in trace.others for s in o.values() if s.role == "scenario" and s.y > 0}
    assert len(cars) == 1
    (car,) = cars.values()  # the last sample: the car is destroyed when the scenario ends
    half_width = 4.5 - car.y  # (2.0 - half width) / 4 = 4.5 - y  =>  solve for the width
    assert 0.8 < 2.0 - 4.0 * half_width < 1.2  # a car's half width (about 1 m)
    assert car.x == pytest.approx(60.0, abs=0.05)
    doors = [
        (frame.elapsed, record)
        for frame in open_log(log).frames
        for record in frame.records(PacketId.VehicleDoor)
    ]
    assert len(doors) == 1
    elapsed, record = doors[0]
    assert (record.id, record.doors, record.open) == (car.id, int(VehicleDoor.FL), True)
    # the log's frame n (elapsed (n - 1) ticks) records world frame n, after the tick in
    # which the behaviour, seeing world frame n - 1 (the trace's sample n - 1), opened it
    opened = round(elapsed / TICK)
    assert _seconds_to_door(trace.ego[opened]) < 3.0 <= _seconds_to_door(trace.ego[opened - 1])
    # the ego drives by in its lane, no collision, and the car stays parked
    assert max(e.x for e in trace.ego) > 70.0
    assert all(abs(e.y - 1.75) < 0.3 for e in trace.ego)
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    track = [s for s in trace.of(car.id) if s is not None]
    assert max(abs(s.x - car.x) + abs(s.y - car.y) for s in track) < 0.01
    # the scenario ends (the ego 50 m past the car, short of the junction) soon after the
    # flow's first car: one is enough
    check_oncoming_flow(trace, -1.75, opened + 1, 5.0, None)


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
