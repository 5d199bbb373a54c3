"""Bad input found before any route starts: `lockstep validate` (which `lockstep run` runs
first) reports each problem as one line naming the config file, the line and the key path
(with the map's or route file's place after it), exit status 2, no traceback, in well under
a second; `lockstep run` then writes nothing. The configs are written once per session.
The config file's own checks (keys, types, files) are in test_runner_config.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from runner_helpers import TOWN

from runner.cli import main

# a config is HEAD (lines 1-3), then the case's lines from line 4, then ROUTES unless the
# case gives its own routes
HEAD = "name: bad\nmap: {town}\nrepetitions: 1\n"
ROUTES = "routes:\n  - {id: 0, waypoints: [[20.0, 1.75], [60.0, 1.75]]}\n"
DUMMY = "agent: {entry: runner.agents.dummy}\n"

AGENT_HEAD = """from runner.agents.base import AutonomousAgent


def get_entry_point():
    return "Agent"


"""
AGENTS = {
    "syntax_agent.py": "def get_entry_point()\n    return 'Agent'\n",
    "neighbour_agent.py": "from my_net_missing import Net\n",
    "no_entry_agent.py": "class Agent:\n    pass\n",
    "wrong_class_agent.py": "def get_entry_point():\n    return 'Missing'\n",
    "init_agent.py": AGENT_HEAD
    + "class Agent(AutonomousAgent):\n"
    + "    def __init__(self, *args):\n"
    + "        raise RuntimeError('no GPU here')\n",
    "sonar_agent.py": AGENT_HEAD
    + "class Agent(AutonomousAgent):\n"
    + "    def sensors(self):\n"
    + "        return [{'type': 'sensor.other.sonar', 'id': 'sonar'}]\n",
    "twice_agent.py": AGENT_HEAD
    + "class Agent(AutonomousAgent):\n"
    + "    def sensors(self):\n"
    + "        speed = {'type': 'sensor.speedometer', 'id': 'speed'}\n"
    + "        return [speed, dict(speed)]\n",
    "far_agent.py": AGENT_HEAD
    + "class Agent(AutonomousAgent):\n"
    + "    def sensors(self):\n"
    + "        return [{'type': 'sensor.other.gnss', 'id': 'gps', 'x': 4.0, 'y': 0.0, 'z': 0.0}]\n",
    "setup_agent.py": AGENT_HEAD
    + "class Agent(AutonomousAgent):\n"
    + "    def setup(self, path_to_conf_file):\n"
    + "        raise FileNotFoundError('weights.pt')\n"
    + "    def sensors(self):\n"
    + "        return self.wanted\n",
}
ROUTE_FILE = """<routes>
  <route id="0" town="Town01">
    <waypoints>
      <position x="20.0" y="1.75" z="0.0"/>
      <position x="{x}" y="1.75" z="0.0"/>
    </waypoints>
  </route>
</routes>
"""

# case -> (the config's lines from line 4, line, key path, a fragment of the message),
# each line and message read off the text and the inputs by hand
CASES: dict[str, tuple[str, int, str, str]] = {
    "map_of_random_bytes": (
        DUMMY + "maps: {Town01: noise.xodr}\nroutes: {file: routes_town01.xml}\n",
        5,
        "maps.Town01",
        "noise.xodr:1: expected UTF-8",
    ),
    "map_with_nan": (
        DUMMY + "maps: {Town01: nan.xodr}\nroutes: {file: routes_town01.xml}\n",
        5,
        "maps.Town01",
        "nan.xodr:16: <geometry> in <road id='1'>: attribute 'hdg': expected a finite number",
    ),
    "agent_syntax_error": (
        "agent: {entry: syntax_agent.py}\n",
        4,
        "agent.entry",
        "syntax_agent.py:1: SyntaxError: expected ':'",
    ),
    "agent_module_missing": (
        "agent: {entry: teams.nowhere.agent}\n",
        4,
        "agent.entry",
        "module not found (No module named 'teams')",
    ),
    "agent_neighbour_missing": (
        "agent: {entry: neighbour_agent.py}\n",
        4,
        "agent.entry",
        "module not found (No module named 'my_net_missing')",
    ),
    "agent_without_entry_point": (
        "agent: {entry: no_entry_agent.py}\n",
        4,
        "agent.entry",
        "the module has no get_entry_point()",
    ),
    "agent_entry_point_names_nothing": (
        "agent: {entry: wrong_class_agent.py}\n",
        4,
        "agent.entry",
        "get_entry_point() names 'Missing', not in module",
    ),
    "agent_init_raises": (
        "agent: {entry: init_agent.py}\n",
        4,
        "agent.entry",
        "init_agent.py:10: RuntimeError: no GPU here",
    ),
    "agent_sensor_the_world_lacks": (
        "agent: {entry: sonar_agent.py}\n",
        4,
        "agent.entry",
        "Illegal sensor 'sensor.other.sonar' used for Track [Track.SENSORS]!",
    ),
    "agent_sensor_ids_twice": (
        "agent: {entry: twice_agent.py}\n",
        4,
        "agent.entry",
        "Duplicated sensor tag [speed]",
    ),
    "agent_sensor_too_far": (
        "agent: {entry: far_agent.py}\n",
        4,
        "agent.entry",
        "Illegal sensor extrinsics used for sensor 'gps'. Max allowed radius is 3.0m",
    ),
    "agent_setup_raises": (
        "agent: {entry: setup_agent.py}\n",
        4,
        "agent.entry",
        "setup_agent.py:10: FileNotFoundError: weights.pt",
    ),
    "agent_track_unknown": (
        "agent: {entry: runner.agents.dummy, track: SENSOR}\n",
        4,
        "agent.track",
        "expected one of SENSORS, MAP, SENSORS_QUALIFIER, MAP_QUALIFIER, found 'SENSOR'",
    ),
    "tick_of_10_s": (
        DUMMY + "tick: 10\n",
        5,
        "tick",
        "expected at most 0.1 s, the longest tick CARLA's physics substeps take",
    ),
    "walkers_ten_million": (
        DUMMY + "traffic:\n  vehicles: 10\n  walkers: 10000000\n",
        7,
        "traffic.walkers",
        "expected at most 65535 (a log's packet holds at most 65535 records",
    ),
    "vehicles_ten_million": (
        DUMMY + "traffic: {vehicles: 10000000}\n",
        5,
        "traffic.vehicles",
        "found 10000000",
    ),
    "vehicles_as_1e7": (
        DUMMY + "traffic: {vehicles: 1.0e7}\n",
        5,
        "traffic.vehicles",
        "('1.0e7': YAML reads this form as text, not a number; write 10000000",
    ),
    "waypoint_off_the_map": (
        DUMMY
        + "routes:\n  - id: 0\n    waypoints:\n      - [20.0, 1.75]\n      - [4880.0, 1.75]\n",
        9,
        "routes[0].waypoints[1]",
        # town_small's east road runs north-south at x = 200 m, its lanes' centres 1.75 m
        # either side: the nearest is 4880 - 201.75 = 4678.25 m away
        "(4880, 1.75, 0) is off the map: 4678.",
    ),
    "waypoint_nan": (
        DUMMY + "routes:\n  - {id: 0, waypoints: [[20.0, 1.75], [.nan, 1.75]]}\n",
        6,
        "routes[0].waypoints[1][0]",
        "expected a finite number, found nan",
    ),
    "trigger_off_its_route": (
        DUMMY
        + ROUTES.rstrip("}\n")
        + ",\n     scenarios: [{type: HardBreakRoute, trigger: {x: 40, y: 9, yaw: 0}}]}\n",
        7,
        "routes[0].scenarios[0].trigger",
        "its trigger (40, 9, no z, yaw 0) is not within 2 m (x-y) and 10 degrees",
    ),
    "route_file_point_off_the_map": (
        DUMMY + "maps: {Town01: " + str(TOWN) + "}\nroutes: {file: routes_far.xml}\n",
        6,
        "routes.file",
        "routes_far.xml: <route id='0'> key point 1: (4880, 1.75, 0) is off the map",
    ),
}


@pytest.fixture(scope="session")
def folder(tmp_path_factory) -> Path:
    """Every case's config, agent, map and route file, written once."""
    here = tmp_path_factory.mktemp("bad_inputs")
    (here / "noise.xodr").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    town = TOWN.read_text(encoding="utf-8")
    first = '<geometry s="0" x="9" y="0" hdg="0" length="82">'  # line 16, road 0's
    assert town.count(first) == 1
    nan = town.replace(first, first.replace('hdg="0"', 'hdg="nan"'))
    (here / "nan.xodr").write_text(nan, encoding="utf-8")
    for name, text in AGENTS.items():
        (here / name).write_text(text, encoding="utf-8")
    (here / "routes_town01.xml").write_text(ROUTE_FILE.format(x=60.0), encoding="utf-8")
    (here / "routes_far.xml").write_text(ROUTE_FILE.format(x=4880.0), encoding="utf-8")
    for case, (lines, _, _, _) in CASES.items():
        routes = "" if "routes:" in lines else ROUTES
        text = HEAD.format(town=TOWN) + lines + routes
        (here / f"{case}.yaml").write_text(text, encoding="utf-8")
    return here


def test_there_are_twenty_cases_here_and_thirty_with_the_config_file_s_own():
    from test_runner_config import CASES as CONFIG_CASES

    assert len(CASES) >= 20 and len(CASES) + len(CONFIG_CASES) >= 30


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_line_naming_file_line_and_key(case, folder, capsys):
    _, line, key, fragment = CASES[case]
    config = folder / f"{case}.yaml"
    assert main(["validate", str(config)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert re.match(rf"lockstep: error: (\S*/)?{case}\.yaml:{line}: {re.escape(key)}: ", err), err
    assert fragment in err, err


@pytest.mark.parametrize(
    "case", ["map_of_random_bytes", "agent_syntax_error", "waypoint_off_the_map", "tick_of_10_s"]
)
def test_run_starts_no_route(case, folder, capsys):
    out = folder / f"{case}-run"
    assert main(["run", str(folder / f"{case}.yaml"), "-o", str(out)]) == 2
    assert not out.exists()
    assert capsys.readouterr().out == ""


def test_every_problem_at_once(folder, capsys):
    config = folder / "several.yaml"
    config.write_text(
        HEAD.format(town=TOWN)
        + "agent: {entry: sonar_agent.py}\n"
        + "routes:\n"
        + "  - {id: 0, waypoints: [[20.0, 1.75], [4880.0, 1.75]]}\n"
        + "  - {id: 1, waypoints: [[20.0, 1.75], [20.0, 4000.0]]}\n",
        encoding="utf-8",
    )
    assert main(["validate", str(config)]) == 2
    lines = capsys.readouterr().err.splitlines()
    keys = [line.split(": ")[3] for line in lines]
    assert keys == ["routes[0].waypoints[1]", "routes[1].waypoints[1]", "agent.entry"]


def test_a_config_folder_is_named(tmp_path, capsys):
    assert main(["validate", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"lockstep: error: {tmp_path}: a folder, expected a YAML config file\n"
    )


def test_more_traffic_than_the_map_holds_is_a_warning(folder, capsys):
    """town_small has 144 street spawn points and 1088 sidewalk points (2 m apart); more
    asked spawns that many: a warning each, and the config is valid."""
    config = folder / "crowded.yaml"
    traffic = "traffic:\n  vehicles: 200\n  walkers: 2000\n"
    config.write_text(HEAD.format(town=TOWN) + DUMMY + traffic + ROUTES, encoding="utf-8")
    assert main(["validate", str(config)]) == 0
    vehicles, walkers = capsys.readouterr().err.splitlines()
    said = re.match(
        rf"lockstep: warning: {config}:6: traffic.vehicles: 200 asked, map town_small.xodr "
        r"has (\d+) street spawn points: (\d+) vehicles at most are spawned on it$",
        vehicles,
    )
    assert said and said[1] == said[2] and 100 < int(said[1]) < 200
    said = re.match(
        rf"lockstep: warning: {config}:7: traffic.walkers: 2000 asked, map town_small.xodr "
        r"has (\d+) sidewalk spawn points: (\d+) walkers at most are spawned on it$",
        walkers,
    )
    # town_small's sidewalks run some 2 km (its 12 blocks' edges): about 1000 points 2 m apart
    assert said and said[1] == said[2] and 500 < int(said[1]) < 2000
