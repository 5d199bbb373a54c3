"""ParkingCutIn on town_parking's street along CARLA y = -200 (x 109..191; one 3.5 m lane
each way and a 2.5 m parking lane each side, full width from x = 122 to 178): the
autopilot ego drives east in the lane y = -198.25; the parking lane on its right has its
centre at y = -198.25 + 1.75 + 1.25 = -195.25. Triggered at x = 115 (direction right): a
blocker parked at x = 115 + 28 = 143 and the cut-in car at x = 150, both at the parking
lane's outer part, (2.5 - half width) / 4 m right of its centre (0.3 to 0.45 m for half
widths 0.7 to 1.3 m). Once the ego is 2.35 s (at its speed) or 10 m from (150, -198.25)
the car pulls out on the autopilot at 20 km/h into the ego's lane ahead of it and the ego
brakes; after 30 m of the car's drive both cars go. Two runs give identical logs."""

from __future__ import annotations

import itertools
import math

import pytest
from runner_helpers import REPO
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

TOWN = str(REPO / "configs" / "maps" / "town_parking.xodr")
LANE_Y, PARKING_Y = -198.25, -195.25
WAYPOINTS = [[110.0, LANE_Y, 0.0], [185.0, LANE_Y, 0.0]]
SCENARIOS = [{"type": "ParkingCutIn", "trigger": {"x": 115.0, "y": LANE_Y, "yaw": 0.0}}]
BLOCKER_X, CUT_IN_X = 143.0, 150.0
SPEED = 20.0 / 3.6  # m/s, the cut-in car's
TICK = 0.05
# From rest a car engages first gear in 0.8 * its 0.5 s gear switch time (world physics):
# 8 ticks, after the tick the autopilot takes it.
PULL_AWAY_TICKS = 1 + 8


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parking_cut_in")
    return [
        run_scenario_route(
            folder / str(k), "pci", WAYPOINTS, SCENARIOS, map_path=TOWN, route_seconds=14.0
        )
        for k in range(2)
    ]


def test_the_parked_car_cuts_in_ahead_of_the_ego(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    first = next(
        i for i, o in enumerate(trace.others) if any(s.role == "scenario" for s in o.values())
    )
    settled = trace.others[first + int(1.0 / TICK)]  # a second on: the cars stand on the ground
    blocker = next(s for s in settled.values() if s.role == "scenario no lights")
    car = next(s for s in settled.values() if s.role == "scenario")
    for parked, x in ((blocker, BLOCKER_X), (car, CUT_IN_X)):
        assert parked.x == pytest.approx(x, abs=0.01)
        assert 0.3 <= parked.y - PARKING_Y <= 0.45  # the parking lane's outer part
        assert parked.speed < 0.01
    blocker_track = [s for s in trace.of(blocker.id)[first + 20 :] if s is not None]
    assert max(abs(s.x - blocker.x) + abs(s.y - blocker.y) for s in blocker_track) < 0.01

    samples = trace.of(car.id)
    start = next(
        i
        for i, s in enumerate(samples)
        if s is not None and abs(s.x - car.x) + abs(s.y - car.y) > 1e-3
    )

    def due(e) -> bool:
        gap = math.hypot(CUT_IN_X - e.x, LANE_Y - e.y)
        return gap < 10.0 or (e.speed > 0.1 and gap / e.speed < 2.35)

    trigger = next(i for i, e in enumerate(trace.ego) if due(e))
    assert trace.ego[trigger].x > 115.0  # the ego is past the scenario's trigger then
    assert start - trigger == PULL_AWAY_TICKS
    # into the ego's lane, ahead of it; the ego brakes below its speed when the car started
    in_lane = next(i for i, s in enumerate(samples) if s is not None and abs(s.y - LANE_Y) < 0.5)
    assert samples[in_lane].x > trace.ego[in_lane].x + 5.0
    assert min(e.speed for e in trace.ego[start:in_lane]) < trace.ego[start].speed - 2.0
    moving = [s for s in samples[in_lane:] if s is not None]
    assert max(s.speed for s in moving) == pytest.approx(SPEED, abs=0.3)
    assert not [e for e in outcome.events if e.startswith("COLLISION")]
    # both go together once the car has driven 30 m
    track = [s for s in samples[start - 1 :] if s is not None]
    path = sum(math.hypot(b.x - a.x, b.y - a.y) for a, b in itertools.pairwise(track))
    assert 30.0 <= path <= 30.0 + SPEED * TICK + 0.01
    gone = start - 1 + len(track)
    assert samples[gone] is None and trace.of(blocker.id)[gone] is None
    assert trace.of(blocker.id)[gone - 1] is not None


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
