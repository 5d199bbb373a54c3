"""Strict configs: each malformed file gives one error line naming file:line and the key path,
exit status 2 and no traceback; a good config resolves its paths and defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.cli import main
from runner.config import load_config
from runner.errors import ConfigError

BAD = Path(__file__).parent / "configs_bad"
REPO = Path(__file__).resolve().parent.parent

# file -> (line, key path, a fragment of the message), each read off the file by hand
CASES = {
    "unknown_top.yaml": (6, "repetition", "unknown key; valid keys here: name, seed, map"),
    "unknown_agent_key.yaml": (4, "agent.confg", "valid keys here: entry, config"),
    "missing_name.yaml": (1, "(top)", "missing required key 'name'"),
    "seed_text.yaml": (2, "seed", "expected an integer, found text ('seven')"),
    "tick_negative.yaml": (2, "tick", "expected a number > 0, found -0.05"),
    "repetitions_zero.yaml": (2, "repetitions", "expected an integer >= 1, found 0"),
    "map_missing.yaml": (3, "map", "map file not found"),
    "traffic_negative.yaml": (5, "traffic.vehicles", "expected an integer >= 0, found -3"),
    "traffic_unknown.yaml": (6, "traffic.bikes", "valid keys here: vehicles, walkers"),
    "weather_preset.yaml": (4, "weather", "unknown weather preset 'SunnyDay'"),
    "weather_field.yaml": (6, "weather.raininess", "valid keys here: preset, cloudiness"),
    "route_one_point.yaml": (6, "routes[0].waypoints", "at least 2 points, found a list of 1"),
    "route_point_text.yaml": (8, "routes[0].waypoints[1][1]", "expected a number"),
    "route_duplicate_id.yaml": (6, "routes[1].id", "already used by routes[0]"),
    "route_unknown_key.yaml": (7, "routes[0].speed", "valid keys here: id, waypoints"),
    "route_file_missing.yaml": (4, "routes.file", "route file not found"),
    "inline_without_map.yaml": (3, "routes", "inline routes need map:"),
    "agent_not_mapping.yaml": (2, "agent", "expected a mapping with keys entry, config"),
    "agent_file_missing.yaml": (2, "agent.entry", "agent file not found"),
    "duplicate_key.yaml": (4, "seed", "duplicate key (first on line 2)"),
    "syntax_error.yaml": (3, "YAML syntax", "expected ',' or '}'"),
    "record_not_bool.yaml": (4, "record.additional_data", "expected true or false"),
    "scenario_no_type.yaml": (8, "routes[0].scenarios[0]", "missing required key 'type'"),
    "scenario_unknown_type.yaml": (8, "routes[0].scenarios[0].type", "'HardBrakeRoute'"),
    "scenario_unknown_parameter.yaml": (
        8,
        "routes[0].scenarios[0].distanse",
        "parameter 'distanse': unknown parameter (valid parameters: distance (float, default",
    ),
    "top_is_list.yaml": (1, "(top)", "expected a mapping with keys name"),
    "routes_empty.yaml": (4, "routes", "expected a list of routes or {file: ...}"),
    "maps_town_unknown.yaml": (5, "routes.file", "town 'Town01' is not in maps:"),
    "limits_bad.yaml": (5, "limits.route_seconds", "expected a number, found text"),
}


def test_there_are_at_least_20_cases():
    assert len(CASES) >= 20
    assert sorted(CASES) == sorted(p.name for p in BAD.glob("*.yaml"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_config_names_file_line_and_key(name, capsys):
    line, key, fragment = CASES[name]
    status = main(["run", str(BAD / name), "-o", "/nonexistent/never-written"])
    err = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert err.startswith(f"lockstep: error: {BAD / name}:{line}: {key}: "), err
    assert fragment in err, err


def test_good_config_resolves_paths_and_defaults():
    config = load_config(REPO / "configs" / "quickstart.yaml")
    assert config.name == "quickstart"
    assert config.seed == 7 and config.tick == 0.05 and config.repetitions == 1
    assert config.vehicles == 30 and config.walkers == 0
    assert config.route_ids() == ["0", "1", "2"]
    assert config.routes[0].map_path == REPO / "configs" / "maps" / "town_small.xodr"
    assert config.routes[1].definition.points == ((120.0, -98.25, 0.0), (198.25, -50.0, 0.0))
    assert config.output == REPO / "runs" / "quickstart"
    assert config.drain_ticks == 200 and config.route_seconds is None
    data = config.resolved()
    assert data["agent"] == {"entry": "runner.agents.autopilot", "config": None}


def test_routes_subset_keeps_file_order():
    config = load_config(REPO / "configs" / "quickstart.yaml", routes_subset="2,0")
    assert config.route_ids() == ["0", "2"]
    with pytest.raises(ConfigError, match="no route with id '7'"):
        load_config(REPO / "configs" / "quickstart.yaml", routes_subset="7")
