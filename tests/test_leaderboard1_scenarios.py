"""Leaderboard 1.0's scenario placement, worked by hand from the 1.0 leaderboard's rules
(2 m 3-D / 10 degrees to the route, slots 2 m xy / 10 degrees, the highest number per
slot, RandomState(0) draws on a clash, route-dependent Scenario4/7/8/9), and on the
public annotations file with a real Town01 devtest route."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from runner.planner import RoadOption, interpolate_trajectory
from scenarios.errors import ScenarioError
from scenarios.leaderboard1 import place_scenarios, read_annotations
from world.geometry import Location, Rotation, Transform

JSON_NAME = "all_towns_traffic_scenarios_public.json"


def straight_route(turn_at: range, turn: RoadOption) -> list[tuple[Transform, RoadOption]]:
    """Points every metre along +x (y=0, z=0, yaw 0); a turn option on `turn_at`."""
    return [
        (
            Transform(Location(x=float(i), y=0.0, z=0.0), Rotation(yaw=0.0)),
            turn if i in turn_at else RoadOption.LANEFOLLOW,
        )
        for i in range(60)
    ]


def event(x: float, y: float = 0.0, z: float = 1.0, yaw: float = 0.0, **others) -> dict:
    out: dict = {"transform": {"x": str(x), "y": str(y), "z": str(z), "yaw": str(yaw)}}
    if others:
        out["other_actors"] = {
            side: [{"x": str(p[0]), "y": str(p[1]), "z": str(p[2]), "yaw": "0"} for p in poses]
            for side, poses in others.items()
        }
    return out


def annotations(tmp_path: Path, scenarios: dict[str, list[dict]]) -> dict:
    document = {
        "available_scenarios": [
            {
                "TownX": [
                    {"scenario_type": name, "available_event_configurations": events}
                    for name, events in scenarios.items()
                ]
            }
        ]
    }
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(document))
    return read_annotations(path)


def placed(tmp_path, scenarios, route=None) -> list[tuple[str, str, float, float]]:
    route = route or straight_route(range(30, 36), RoadOption.LEFT)
    return [
        (s["name"], s["type"], s["trigger"]["x"], s["trigger"]["y"])
        for s in place_scenarios("TownX", route, annotations(tmp_path, scenarios))
    ]


def test_trigger_matches_within_two_metres_in_3d_and_ten_degrees(tmp_path):
    # (10, 1.5, 1): sqrt(1.5^2 + 1^2) = 1.80 m < 2.  (20, 1.8, 1): 2.06 m, although 1.8 m in xy.
    # Yaw 355 and -5 are 5 degrees off modulo 360; 349 is 11 off.
    found = placed(
        tmp_path,
        {
            "Scenario1": [
                event(10, 1.5),
                event(20, 1.8),
                event(30, yaw=355),
                event(40, yaw=-5),
                event(50, yaw=349),
            ]
        },
    )
    assert [(x, y) for _, _, x, y in found] == [(10.0, 1.5), (30.0, 0.0), (40.0, 0.0)]
    assert [name for name, _, _, _ in found] == ["ControlLoss_1", "ControlLoss_2", "ControlLoss_3"]


def test_route_dependent_scenarios_follow_the_next_turn(tmp_path):
    # The route's next turn after x=5 is LEFT: Scenario4 and 8 stay, 7 (straight) and 9
    # (right) go. After x=40 no turn is left: Scenario4 goes too.
    found = placed(
        tmp_path,
        {
            "Scenario4": [event(5), event(40)],
            "Scenario7": [event(5.0, 0.0, 1.0, 0.0)],
            "Scenario8": [event(12)],
            "Scenario9": [event(18)],
        },
    )
    assert [(t, x) for _, t, x, _ in found] == [
        ("VehicleTurningRoute", 5.0),
        ("SignalizedJunctionLeftTurn", 12.0),
    ]
    straight = straight_route(range(30, 36), RoadOption.STRAIGHT)
    found = placed(tmp_path, {"Scenario7": [event(5)], "Scenario8": [event(12)]}, straight)
    assert [t for _, t, _, _ in found] == ["OppositeVehicleRunningRedLight"]


def test_one_scenario_per_slot_the_highest_number(tmp_path):
    # Scenario1 at x=20 and Scenario3 at x=21 share a slot (1 m apart in xy): 3 wins.
    found = placed(tmp_path, {"Scenario1": [event(20)], "Scenario3": [event(21)]})
    assert found == [("DynamicObjectCrossing_1", "DynamicObjectCrossing", 21.0, 0.0)]


def test_background_scenarios_hold_their_slot_but_add_nothing(tmp_path):
    found = placed(tmp_path, {"Scenario1": [event(20)], "Scenario5": [event(20.5)]})
    assert found == []


def test_a_clash_draws_from_the_rest_with_random_state_zero(tmp_path):
    # Slots open in the file's order: A (x=10: Scenario1, Scenario3), B (x=14, 4 m away:
    # Scenario1, Scenario2 at 14.2, Scenario3). A takes its Scenario3. B's Scenario3 has an
    # other actor at (10.5, 0, 1), within 2 m of A's trigger, so it is refused; the two
    # left, [Scenario1 at 14, Scenario2 at 14.2], are drawn by RandomState(0).choice(2),
    # whose first draw is 0: Scenario1.
    found = placed(
        tmp_path,
        {
            "Scenario1": [event(10), event(14)],
            "Scenario2": [event(14.2)],
            "Scenario3": [event(10), event(14, front=[(10.5, 0.0, 1.0)])],
        },
    )
    assert [(t, x) for _, t, x, _ in found] == [
        ("DynamicObjectCrossing", 10.0),
        ("ControlLoss", 14.0),
    ]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("not json", "not a JSON document"),
        ('{"available": []}', "'available_scenarios' list"),
        ('{"available_scenarios": [{"T": [{"scenario_type": "Scenario99"}]}]}', "Scenario99"),
        (
            '{"available_scenarios": [{"T": [{"scenario_type": "Scenario1",'
            ' "available_event_configurations": [{"transform": {"x": "a", "y": "0",'
            ' "z": "0", "yaw": "0"}}]}]}]}',
            "event 0: 'x' is not a number",
        ),
        (
            '{"available_scenarios": [{"T": [{"scenario_type": "Scenario1",'
            ' "available_event_configurations": [{"transform": {"x": "nan", "y": "0",'
            ' "z": "0", "yaw": "0"}}]}]}]}',
            "'x' is not finite",
        ),
        (
            '{"available_scenarios": [{"T": [{"scenario_type": "Scenario1",'
            ' "available_event_configurations": [{"pose": {}}]}]}]}',
            "expected an object with a 'transform'",
        ),
    ],
)
def test_bad_annotations_name_the_file_and_place(tmp_path, document, message):
    path = tmp_path / "bad.json"
    path.write_text(document)
    with pytest.raises(ScenarioError) as caught:
        read_annotations(path)
    assert str(path) in str(caught.value) and message in str(caught.value)


def test_the_public_file_on_the_town01_devtest_route(shared):
    from runner.routes import read_route_file
    from world.map.map import Map

    base = shared / "routes" / "leaderboard-1.0"
    marks = read_annotations(base / JSON_NAME)
    assert sorted(marks) == ["Town01", "Town02", "Town03", "Town04", "Town05", "Town06"]
    assert {a.scenario for a in marks["Town01"]} == {"Scenario1", "Scenario3", "Scenario4"}
    (route_def,) = read_route_file(base / "routes_devtest.xml", "0")
    world_map = Map.from_file(shared / "maps" / "carla" / "Town01.xodr")
    points = [Location(*p) for p in route_def.points]
    route = interpolate_trajectory(world_map, points)
    found = place_scenarios("Town01", route, marks)
    assert found, "the Town01 devtest route passes annotated triggers"
    for scenario in found:
        assert scenario["type"] in {"ControlLoss", "DynamicObjectCrossing", "VehicleTurningRoute"}
        t = scenario["trigger"]
        assert (
            min(
                math.dist((t["x"], t["y"], t["z"]), (p.location.x, p.location.y, p.location.z))
                for p, _ in route
            )
            < 2.0
        )
