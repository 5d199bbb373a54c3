"""Leaderboard 1.0's devtest routes on Town01 and Town04 with the public scenarios file:
`routes: {file, subset, scenarios: <json>}` runs end to end with the autopilot agent,
writes results.json with a driving score and logs `lockstep check` finds identical; the
1.0 placement puts scenarios on both routes and the log shows their actors created."""

from __future__ import annotations

import json
import math

import pytest

from recorder import query_info
from runner.check import check_run
from runner.config import load_config
from runner.execution.driver import evaluate
from scenarios.leaderboard1 import LEADERBOARD2_TYPE, place_scenarios, read_annotations

ROUTES = "routes/leaderboard-1.0/routes_devtest.xml"
SCENARIOS = "routes/leaderboard-1.0/all_towns_traffic_scenarios_public.json"
# what a type's set-up leaves in the log's info text: its debris, or actors it spawned
EVIDENCE = {
    "ControlLoss": "static.prop.dirtdebris01",
    "DynamicObjectCrossing": "role_name = scenario",
    "VehicleTurningRoute": "role_name = scenario",
}


def write_config(folder, shared, subset: str, route_seconds: float) -> object:
    data = {
        "name": "lb1-devtest",
        "seed": 3,
        "maps": str(shared / "maps" / "carla"),
        "agent": {"entry": "runner.agents.autopilot"},
        "traffic": {"vehicles": 0},
        "limits": {"route_seconds": route_seconds},
        "routes": {
            "file": str(shared / ROUTES),
            "subset": subset,
            "scenarios": str(shared / SCENARIOS),
        },
    }
    path = folder / "lb1.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_config(path)


def test_the_scenarios_file_is_checked_when_the_config_is_read(shared, tmp_path):
    from runner.errors import ConfigError

    bad = tmp_path / "bad.json"
    bad.write_text('{"available_scenarios": [{"Town01": [{"scenario_type": "Scenario42"}]}]}')
    data = {
        "name": "bad",
        "maps": str(shared / "maps" / "carla"),
        "agent": {"entry": "runner.agents.dummy"},
        "routes": {"file": str(shared / ROUTES), "subset": "0", "scenarios": str(bad)},
    }
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    text = str(caught.value)
    assert "routes.scenarios" in text and "Scenario42" in text and str(bad) in text


@pytest.mark.slow
@pytest.mark.parametrize(("subset", "town"), [("0", "Town01"), ("2", "Town04")])
def test_devtest_route_runs_with_its_scenarios(shared, tmp_path, subset, town):
    config = write_config(tmp_path, shared, subset, route_seconds=240.0)
    (route,) = config.routes
    assert route.definition.town == town
    outcomes = evaluate(config, tmp_path / "run")
    assert [o.failure.name for o in outcomes] != ["SCENARIO_LOAD"], outcomes[0].message
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    record = results["_checkpoint"]["records"][0]
    assert 0.0 <= record["scores"]["score_composed"] <= 100.0
    assert record["scores"]["score_route"] > 0.0
    # every scenario criterion scored belongs to a type the 1.0 file maps to
    names = set(LEADERBOARD2_TYPE.values()) - {None}
    for criterion in record["infractions"].get("scenario_timeouts", []):
        assert any(n in criterion for n in names)
    placed = place_scenarios(town, _plan(route), read_annotations(shared / SCENARIOS))
    assert placed, f"the 1.0 file places scenarios on devtest route {subset}"
    assert {p["type"] for p in placed} <= names
    log = tmp_path / "run" / f"{outcomes[0].route_id}.log"
    first = min(placed, key=lambda p: _route_index(p["trigger"], route))  # set up at the start
    assert EVIDENCE[first["type"]] in query_info(log.read_bytes(), show_all=False)
    checks = check_run(tmp_path / "run")
    assert [str(c) for c in checks] == [f"RouteScenario_{route.id}_rep0: identical"]


def _route_index(trigger: dict, route) -> float:
    """How far along the key points a trigger lies (the key point nearest it)."""
    points = route.definition.points
    return min(
        range(len(points)), key=lambda i: math.dist(points[i][:2], (trigger["x"], trigger["y"]))
    )


def _plan(route) -> list:
    from runner.planner import interpolate_trajectory
    from world.geometry import Location
    from world.map.map import Map

    world_map = Map.from_file(route.map_path)
    return interpolate_trajectory(world_map, [Location(*p) for p in route.definition.points])
