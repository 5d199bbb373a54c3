"""ParkingCrossingPedestrian on town_small's top road: the autopilot ego drives east in
the lane y = 1.75 (3.5 m wide); the trigger is at x = 30, so (ScenarioRunner's defaults:
distance 12, direction right, crossing angle 0) a car stands parked at x = 42 one lane
width to the right (y = 5.25), and a pedestrian waits just past its front (the car's
half length, 1.8 to 2.1 m for the small cars it is drawn from, + 0.5 m), facing the road.
Once the ego is within 6 m of the pedestrian's crossing point (its x on the lane centre
y = 1.75) or 2.15 s from it at its speed, the pedestrian
walks at 2 m/s into the ego's lane; after 8 m (4 s) both it and the car are removed.
Two runs give identical logs. (The autopilot ego brakes too late and hits the
pedestrian: the route's collision test scores that.)"""

from __future__ import annotations

import itertools

import pytest
from scenario_runs import run_scenario_route

from runner.log_compare import compare_logs

WAYPOINTS = [[20.0, 1.75, 0.0], [88.0, 1.75, 0.0]]
SCENARIO = [{"type": "ParkingCrossingPedestrian", "trigger": {"x": 30.0, "y": 1.75, "yaw": 0.0}}]
CAR_AT, SIDE_Y, LANE_Y = (42.0, 5.25), 5.25, 1.75
TICK = 0.05


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parking_crossing")
    return [run_scenario_route(folder / str(k), "pcp", WAYPOINTS, SCENARIO) for k in range(2)]


def _near(s, point, tolerance) -> bool:
    return abs(s.x - point[0]) < tolerance and abs(s.y - point[1]) < tolerance


def test_a_pedestrian_walks_out_from_behind_the_parked_car(runs):
    outcome, trace, _ = runs[0]
    assert outcome.failure.value == "none", outcome.message
    mine = {s.id: s.type_id for o in trace.others for s in o.values() if s.role == "scenario"}
    car_id = next(i for i, t in mine.items() if t.startswith("vehicle."))
    walker_id = next(i for i, t in mine.items() if t.startswith("walker."))
    car, walker = trace.of(car_id), trace.of(walker_id)
    car_seen = [i for i, s in enumerate(car) if s is not None]
    seen = [i for i, s in enumerate(walker) if s is not None]
    assert _near(car[car_seen[-1]], CAR_AT, 0.3) and car[car_seen[-1]].speed < 0.05
    waiting = walker[seen[0]]
    assert 42.0 + 1.8 + 0.5 <= waiting.x <= 42.0 + 2.1 + 0.5 and abs(waiting.y - SIDE_Y) < 0.3
    crossing = (waiting.x, LANE_Y)
    start = next(i for i in seen[int(1.0 / TICK) :] if walker[i].speed > 1.0)
    ego, before = trace.ego[start - 1], trace.ego[start - 2]

    def due(e) -> bool:
        gap = ((e.x - crossing[0]) ** 2 + (e.y - crossing[1]) ** 2) ** 0.5
        return gap < 6.0 or (e.speed > 0.1 and gap / e.speed < 2.15)

    assert due(ego) and not due(before)
    first_second = walker[start + 1 : start + int(1.0 / TICK)]
    assert abs((walker[start].y - first_second[-1].y) - 2.0 * (len(first_second)) * TICK) < 0.2
    assert all(s.y < p.y for p, s in itertools.pairwise(first_second))  # toward the lane
    assert any(abs(walker[i].y - LANE_Y) < 1.75 for i in seen)  # into the ego's lane
    # gone after 8 m of its path or 4 s (8 m at 2 m/s), whichever comes first
    path = sum(
        ((b.x - a.x) ** 2 + (b.y - a.y) ** 2) ** 0.5
        for a, b in itertools.pairwise(walker[start - 1 : seen[-1] + 1])
    )
    assert (seen[-1] + 1 - start) * TICK <= 4.0 + 2 * TICK
    assert path >= 8.0 - 0.2 or (seen[-1] + 1 - start) * TICK >= 4.0 - 2 * TICK
    assert car_seen[-1] == seen[-1]  # the car goes with it


def test_two_runs_identical_logs(runs):
    assert compare_logs(runs[0][2], runs[1][2]) is None
