"""The leaderboard 2.x evaluator (../shared/carla-code/leaderboard-2) and the leaderboard 1.0
evaluator (../shared/carla-code/leaderboard-1) run unchanged under `lockstep exec`, with their
own flags, their own StatisticsManager and an agent written here (no camera: a speedometer,
and the ego's pose from scenario_runner's CarlaDataProvider, as the leaderboard fills it),
and write their results.json.

The route: the first four waypoints of route 0 of the leaderboard's devtest routes (Town01,
leaderboard 1.0's data: the 2.x data's routes are on Town12 and Town13, which ../shared has
not), written in each leaderboard's route format. Leaderboard 1.0 runs with what it was
published for: scenario_runner 0.9.10 and CARLA 0.9.10's agents, whose route planner's DAO
later releases dropped (tests/carla_code.py writes stand-ins for it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.carla_code import (
    REPO,
    agents_0910_folder,
    agents_folder,
    carla_code,
    exec_script,
    scenario_runner_0910,
)

AGENT = '''"""Follows the route's plan: steers at the next plan point, holds about 6 m/s."""
import math

import carla
from leaderboard.autoagents.autonomous_agent import AutonomousAgent, Track
from srunner.scenariomanager.carla_data_provider import CarlaDataProvider


def get_entry_point():
    return "FollowPlan"


class FollowPlan(AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = Track.SENSORS
        self._next = 0

    def sensors(self):
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data, timestamp):
        here = CarlaDataProvider.get_transform(CarlaDataProvider.get_hero_actor())
        plan = self._global_plan_world_coord
        while self._next < len(plan) - 1 and plan[self._next][0].location.distance(
            here.location
        ) < 4.0:
            self._next += 1
        target = plan[self._next][0].location
        bearing = math.degrees(math.atan2(target.y - here.location.y, target.x - here.location.x))
        error = (bearing - here.rotation.yaw + 180.0) % 360.0 - 180.0
        speed = input_data["speed"][1]["speed"]
        return carla.VehicleControl(
            throttle=0.6 if speed < 6.0 else 0.0, steer=max(-1.0, min(1.0, error / 40.0))
        )
'''

WEATHER = (
    '<weather route_percentage="0" cloudiness="5.0" precipitation="0.0" '
    'precipitation_deposits="0.0" wetness="0.0" wind_intensity="10.0" '
    'sun_azimuth_angle="-1.0" sun_altitude_angle="90.0" fog_density="2.0"/>'
)


def _route(code: Path, target: Path) -> None:
    """Route 0 of leaderboard 1.0's devtest routes, its first four waypoints, in 2.x's form."""
    route = next(ET.parse(code / "leaderboard-1" / "data" / "routes_devtest.xml").iter("route"))
    points = [
        f'<position x="{w.attrib["x"]}" y="{w.attrib["y"]}" z="{w.attrib["z"]}"/>'
        for w in list(route.iter("waypoint"))[:4]
    ]
    target.write_text(
        f'<routes><route id="0" town="{route.attrib["town"]}"><weathers>{WEATHER}</weathers>'
        f"<waypoints>{''.join(points)}</waypoints><scenarios></scenarios></route></routes>\n"
    )


def _evaluate(shared, tmp_path, evaluator, flags, paths) -> dict:
    """The evaluator run in a fresh `lockstep exec` on CARLA's towns with the test's agent on
    tmp_path/route.xml and its own flags; the one route's record of the
    results.json its StatisticsManager wrote (one route done of one, entry finished)."""
    agent = tmp_path / "follow_plan.py"
    agent.write_text(AGENT)
    results = tmp_path / "results.json"
    done = exec_script(
        ["--maps", str(shared / "maps" / "carla")],
        evaluator,
        ["--routes", str(tmp_path / "route.xml"), *flags, "--agent", str(agent),
         "--checkpoint", str(results)],
        cwd=tmp_path,
        paths=paths,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr, done.stdout[-4000:]
    data = json.loads(results.read_text())
    assert data["entry_status"] == "Finished"
    assert data["_checkpoint"]["progress"] == [1, 1]
    (record,) = data["_checkpoint"]["records"]
    assert "> Registering the global statistics" in done.stdout
    return record


def test_the_leaderboard_2_evaluator_writes_its_results_json(shared, tmp_path):
    code = carla_code(shared)
    evaluator = code / "leaderboard-2" / "leaderboard" / "leaderboard_evaluator.py"
    _route(code, tmp_path / "route.xml")
    record = _evaluate(
        shared,
        tmp_path,
        evaluator,
        ["--debug-checkpoint", str(tmp_path / "live.txt")],
        [code / "leaderboard-2", code / "scenario_runner", agents_folder(shared, tmp_path)],
    )
    assert record["route_id"] == "RouteScenario_0_rep0"
    assert record["status"] in ("Completed", "Perfect")
    assert record["scores"]["score_route"] > 50.0  # the agent drives along the route


def _route_1_0(code: Path, target: Path) -> None:
    """Route 0 of leaderboard 1.0's devtest routes, its first four waypoints, as they are."""
    route = next(ET.parse(code / "leaderboard-1" / "data" / "routes_devtest.xml").iter("route"))
    points = [ET.tostring(w, encoding="unicode").strip() for w in list(route.iter("waypoint"))[:4]]
    target.write_text(
        f'<routes><route id="0" town="{route.attrib["town"]}">{"".join(points)}</route></routes>\n'
    )


def test_the_leaderboard_1_0_evaluator_writes_its_results_json(shared, tmp_path):
    code = carla_code(shared)
    scenario_runner = scenario_runner_0910(shared)
    evaluator = code / "leaderboard-1" / "leaderboard" / "leaderboard_evaluator.py"
    _route_1_0(code, tmp_path / "route.xml")
    scenarios = code / "leaderboard-1" / "data" / "all_towns_traffic_scenarios_public.json"
    record = _evaluate(
        shared,
        tmp_path,
        evaluator,
        ["--scenarios", str(scenarios)],
        [code / "leaderboard-1", scenario_runner, agents_0910_folder(shared, tmp_path)],
    )
    assert record["route_id"] == "RouteScenario_0"
    assert record["status"] == "Completed"
    assert record["scores"]["score_route"] > 50.0  # the agent drives along the route


HERO_AGENT = '''"""A leaderboard agent on the real package's AutonomousAgent, finding its
vehicle through CarlaDataProvider (as the leaderboard's npc_agent and most experts do)."""
import carla
from leaderboard.autoagents.autonomous_agent import AutonomousAgent, Track
from srunner.scenariomanager.carla_data_provider import CarlaDataProvider


def get_entry_point():
    return "HeroFinder"


class HeroFinder(AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = Track.SENSORS
        self.seen = []

    def sensors(self):
        return [{"type": "sensor.speedometer", "id": "speed"}]

    def run_step(self, input_data, timestamp):
        hero = CarlaDataProvider.get_hero_actor()
        location = CarlaDataProvider.get_location(hero)
        if len(self.seen) < 3:
            print("hero", hero.attributes["role_name"], CarlaDataProvider.get_map().name,
                  round(location.x, 1), type(self).__mro__[1].__module__, flush=True)
            self.seen.append(hero.id)
        return carla.VehicleControl(throttle=0.5)
'''


def test_lockstep_run_fills_carla_data_provider_for_a_real_leaderboard_agent(shared, tmp_path):
    from tests.runner_helpers import write_config

    code = carla_code(shared)
    agent = tmp_path / "hero_finder.py"
    agent.write_text(HERO_AGENT)
    config = write_config(
        tmp_path, agent={"entry": str(agent)}, traffic={"vehicles": 0}, output=str(tmp_path / "out")
    )
    done = subprocess.run(
        [sys.executable, "-m", "runner.cli", "run", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        env={
            "PYTHONPATH": os.pathsep.join(
                map(
                    str,
                    [
                        REPO,
                        code / "leaderboard-2",
                        code / "scenario_runner",
                        agents_folder(shared, tmp_path),
                    ],
                )
            ),
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
        },
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines() if line.startswith("hero ")]
    # each route's agent finds the hero on town_small at its route's start, x = 20 and x = 120
    # (tests/runner_helpers.SHORT_ROUTES; the two routes run in two worker processes); the
    # agent's base class is the leaderboard's own (lockstep's shim stepped aside)
    assert {(line[1], line[2], line[4]) for line in lines} == {
        ("hero", "town_small", "leaderboard.autoagents.autonomous_agent")
    }
    assert sorted({round(float(line[3])) for line in lines}) == [20, 120]
