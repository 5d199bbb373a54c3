"""`lockstep leaderboard`: a team's leaderboard 2.0 run script, with only the evaluator's path
changed, evaluates a no-camera agent on a route XML and writes the leaderboard's
results.json; the same as `lockstep run` of the same evaluation written by hand."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from runner_helpers import REPO, TOWN, results_without_wall_times

from runner.cli import main
from runner.commands.leaderboard import settings
from runner.log_compare import compare_logs

EVALUATOR = "python3 ${LEADERBOARD_ROOT}/leaderboard/leaderboard_evaluator.py"
# a team's script, shaped as the leaderboard's own run_leaderboard.sh
TEAM_SCRIPT = """#!/bin/bash

export TEAM_AGENT=$TEAM_CODE_ROOT/team_agent.py

export ROUTES=$TEAM_CODE_ROOT/routes.xml
export ROUTES_SUBSET=0
export REPETITIONS=1

export DEBUG_CHALLENGE=0
export CHALLENGE_TRACK_CODENAME=SENSORS
export CHECKPOINT_ENDPOINT="${TEAM_CODE_ROOT}/results/results.json"
export RECORD_PATH=
export RESUME=

EVALUATOR \\
--routes=${ROUTES} \\
--routes-subset=${ROUTES_SUBSET} \\
--repetitions=${REPETITIONS} \\
--track=${CHALLENGE_TRACK_CODENAME} \\
--checkpoint=${CHECKPOINT_ENDPOINT} \\
--debug-checkpoint=${DEBUG_CHECKPOINT_ENDPOINT} \\
--agent=${TEAM_AGENT} \\
--agent-config=${TEAM_CONFIG} \\
--debug=${DEBUG_CHALLENGE} \\
--record=${RECORD_PATH} \\
--resume=${RESUME}
"""
ROUTES = """<?xml version='1.0' encoding='utf-8'?>
<routes>
  <route id="0" town="Town01">
    <weathers>
      <weather route_percentage="0" cloudiness="5.0" sun_altitude_angle="45.0"/>
    </weathers>
    <waypoints>
      <position x="20.0" y="1.75" z="0.0"/>
      <position x="60.0" y="1.75" z="0.0"/>
    </waypoints>
  </route>
</routes>
"""
AGENT = """import carla
from leaderboard.autoagents import autonomous_agent


def get_entry_point():
    return "TeamAgent"


class TeamAgent(autonomous_agent.AutonomousAgent):
    def setup(self, path_to_conf_file):
        self.track = autonomous_agent.Track.SENSORS

    def sensors(self):
        return [
            {"type": "sensor.other.gnss", "x": 0.7, "y": -0.4, "z": 1.6, "id": "GPS"},
            {"type": "sensor.other.imu", "x": 0.7, "y": -0.4, "z": 1.6,
             "roll": 0.0, "pitch": 0.0, "yaw": 0.0, "id": "IMU"},
            {"type": "sensor.speedometer", "reading_frequency": 20, "id": "SPEED"},
        ]

    def run_step(self, input_data, timestamp):
        speed = input_data["SPEED"][1]["speed"]
        return carla.VehicleControl(throttle=0.5 if speed < 6.0 else 0.0)
"""
# what a lockstep user writes for the same evaluation
BY_HAND = """name: by-hand
seed: 0
maps: {maps}
agent: {{entry: {agent}, track: SENSORS}}
routes: {{file: {routes}, subset: "0"}}
"""


@pytest.fixture(scope="module")
def team(tmp_path_factory) -> Path:
    """A team's code folder (agent, routes) and a CARLA install holding Town01's map (here
    town_small under that name)."""
    root = tmp_path_factory.mktemp("team")
    (root / "team_agent.py").write_text(AGENT, encoding="utf-8")
    (root / "routes.xml").write_text(ROUTES, encoding="utf-8")
    maps = root / "carla" / "CarlaUE4" / "Content" / "Carla" / "Maps" / "OpenDrive"
    maps.mkdir(parents=True)
    shutil.copyfile(TOWN, maps / "Town01.xodr")
    return root


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash to run the team's script")
def test_the_team_s_script_with_one_line_changed_writes_the_leaderboard_s_results(team):
    script = TEAM_SCRIPT.replace("EVALUATOR", EVALUATOR)
    ours = script.replace(EVALUATOR, "lockstep leaderboard")
    changed = [
        (a, b) for a, b in zip(script.splitlines(), ours.splitlines(), strict=True) if a != b
    ]
    assert changed == [(f"{EVALUATOR} \\", "lockstep leaderboard \\")]
    (team / "run_evaluation.sh").write_text(ours, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEAM_", "ROUTES"))}
    env.update(
        TEAM_CODE_ROOT=str(team),
        CARLA_ROOT=str(team / "carla"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
    )
    done = subprocess.run(
        ["bash", str(team / "run_evaluation.sh")],
        cwd=team,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads((team / "results" / "results.json").read_text(encoding="utf-8"))
    # the leaderboard's file: its keys in its order, the route scored, the agent's sensors
    assert list(results) == [
        "_checkpoint",
        "entry_status",
        "eligible",
        "sensors",
        "values",
        "labels",
    ]
    (record,) = results["_checkpoint"]["records"]
    assert record["route_id"] == "RouteScenario_0_rep0" and record["status"] == "Perfect"
    assert results["sensors"] == ["carla_gnss", "carla_imu", "carla_speedometer"]
    assert results["entry_status"] == "Finished"
    assert (team / "results" / "RouteScenario_0_rep0.log").is_file()
    assert (team / "live_results.txt").read_text().startswith("route ")  # --debug-checkpoint

    # `lockstep run` of the same evaluation, written by hand: the same log and results
    maps = team / "carla" / "CarlaUE4" / "Content" / "Carla" / "Maps" / "OpenDrive"
    config = team / "by_hand.yaml"
    config.write_text(
        BY_HAND.format(maps=maps, agent=team / "team_agent.py", routes=team / "routes.xml"),
        encoding="utf-8",
    )
    assert main(["run", str(config), "-o", str(team / "by_hand"), "--workers", "1"]) == 0
    log = "RouteScenario_0_rep0.log"
    assert compare_logs(team / "results" / log, team / "by_hand" / log) is None
    assert results_without_wall_times(team / "results" / "results.json") == (
        results_without_wall_times(team / "by_hand" / "results.json")
    )


def test_flags_left_empty_take_the_run_scripts_variables_then_the_evaluator_s_defaults():
    args = argparse.Namespace(
        routes="", routes_subset=None, repetitions="3", agent=None, agent_config="",
        track=None, checkpoint=None, debug_checkpoint=None, record="", resume="",
        scenarios=None, debug=None, maps=None, traffic_manager_seed="7",
    )  # fmt: skip
    environ = {"ROUTES": "/r.xml", "TEAM_AGENT": "/a.py", "RESUME": "1", "REPETITIONS": "5"}
    got = settings(args, environ)
    assert (got["routes"], got["agent"], got["resume"]) == ("/r.xml", "/a.py", "1")
    assert got["repetitions"] == "3"  # the flag given wins
    assert got["checkpoint"] == "./simulation_results.json"  # leaderboard_evaluator's
    assert (got["track"], got["seed"], got["agent_config"]) == ("SENSORS", "7", "")


def test_an_agent_on_the_wrong_track_is_refused_before_any_route(team, capsys):
    args = [
        "leaderboard",
        f"--routes={team / 'routes.xml'}",
        f"--agent={team / 'team_agent.py'}",
        "--track=MAP",
        f"--checkpoint={team / 'wrong' / 'results.json'}",
        f"--maps={team / 'carla' / 'CarlaUE4' / 'Content' / 'Carla' / 'Maps' / 'OpenDrive'}",
    ]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.endswith(
        ": agent.entry: agent: You are submitting to the wrong track [Track.MAP]!\n"
    )
    assert not (team / "wrong" / "results.json").exists()
