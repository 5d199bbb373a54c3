"""scenario_runner (0.9.16 release, ../shared/carla-code) runs unchanged under `lockstep exec`:
its Python scenarios and its OpenSCENARIO examples run to scenario_runner's own result table,
and twice give the same lockstep log (scenario_runner's own --record).

The scenarios' ego is driven from outside, as a user would drive it with CARLA's
automatic_control beside scenario_runner: a wrapper puts the vehicle named "hero" on
lockstep's autopilot from the tick it appears, then runs scenario_runner.py as __main__.
The default suite runs FollowLeadingVehicle_1 and one OpenSCENARIO example; `make test-slow`
runs the ten others that end by themselves (each run takes 10-40 s).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runner.log_compare import compare_logs
from tests.carla_code import agents_folder, carla_code, exec_script

DRIVER = '''"""Drives the hero with the autopilot, then runs the script given first as __main__."""
import runpy
import sys

import carla

world = carla.Client().get_world()
driven = set()


def drive(snapshot):
    for vehicle in world.get_actors().filter("vehicle.*"):
        if vehicle.id not in driven and vehicle.attributes.get("role_name") == "hero":
            vehicle.set_autopilot(True)
            driven.add(vehicle.id)


world.on_tick(drive)
script = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(script, run_name="__main__")
'''

# The OpenSCENARIO examples that end by themselves. Left out: ChangingWeather (its story
# waits for a simulation time of 10^7 s), LaneOffsetActionExample and OscControllerExample
# (they end after the ego has driven 20 km), IntersectionCollisionAvoidance and
# SyncArrivalIntersection (scenario_runner 0.9.16 itself raises a TypeError making their
# ChangeActorWaypoints, len(None), before any simulation).
QUICK = ["FollowLeadingVehicle"]
SLOW = [
    "CatalogExample",
    "CyclistCrossing",
    "InitAddEntityAction",
    "InitDeleteEntityAction",
    "LaneChangeSimple",
    "PedestrianCrossingFront",
    "Slalom",
    "StoryAddEntityAction",
    "StoryDeleteEntityAction",
    "VehicleLateralDistance",
]

# scenario_runner's flags for every run: lockstep's world is synchronous, the table printed,
# the log recorded (under SCENARIO_RUNNER_ROOT/rec/<scenario name>.log)
SCENARIO_RUNNER_FLAGS = ["--sync", "--output", "--record", "rec"]


def _town(xosc: Path) -> str:
    found = re.search(r'LogicFile filepath="([^"]+)"', xosc.read_text())
    assert found, f"{xosc}: no LogicFile"
    return found.group(1)


def _run_twice(shared: Path, tmp_path: Path, town: str, args: list[str], name: str):
    """Runs scenario_runner twice with --record; returns both runs and their logs."""
    code = carla_code(shared)
    runner_dir = code / "scenario_runner"
    agents = agents_folder(shared, tmp_path)
    driver = tmp_path / "drive_hero.py"
    driver.write_text(DRIVER)
    runs, logs = [], []
    for n in range(2):
        root = tmp_path / f"root{n}"  # SCENARIO_RUNNER_ROOT: examples found, logs written here
        (root / "rec").mkdir(parents=True)
        (root / "srunner").symlink_to(runner_dir / "srunner")
        done = exec_script(
            ["--maps", str(shared / "maps" / "carla"), "--map", town],
            driver,
            [str(runner_dir / "scenario_runner.py"), *args, *SCENARIO_RUNNER_FLAGS],
            cwd=root,
            paths=[runner_dir, agents],
            env={"SCENARIO_RUNNER_ROOT": str(root)},
        )
        runs.append(done)
        # scenario_runner names the log after the scenario's configuration (an OpenSCENARIO
        # file's description): the one log in rec/
        found = sorted((root / "rec").glob("*.log"))
        logs.append(found[0] if len(found) == 1 else root / "rec" / f"{name}.log")
    return runs, logs


def _check(runs, logs, scenario: str) -> None:
    for done in runs:
        # scenario_runner's own table: its header, the criteria and the global result
        assert f"======= Results of Scenario: {scenario} ----" in done.stdout, (
            done.stdout[-3000:] + done.stderr[-3000:]
        )
        assert "GLOBAL RESULT" in done.stdout
        assert "Traceback" not in done.stderr, done.stderr[-3000:]
    statuses = [re.search(rf"Results of Scenario: {scenario} ---- (\w+)", d.stdout) for d in runs]
    assert statuses[0].group(1) == statuses[1].group(1)
    assert all(log.is_file() for log in logs)
    assert compare_logs(logs[0], logs[1]) is None


def test_follow_leading_vehicle_runs_to_its_result_table_twice_alike(shared, tmp_path):
    name = "FollowLeadingVehicle_1"
    runs, logs = _run_twice(shared, tmp_path, "Town01", ["--scenario", name], name)
    _check(runs, logs, "FollowVehicle")


def _openscenario(shared: Path, tmp_path: Path, example: str) -> None:
    xosc = carla_code(shared) / "scenario_runner" / "srunner" / "examples" / f"{example}.xosc"
    runs, logs = _run_twice(shared, tmp_path, _town(xosc), ["--openscenario", str(xosc)], example)
    scenario = re.search(r"Results of Scenario: (\S+) ----", runs[0].stdout)
    assert scenario, runs[0].stdout[-3000:] + runs[0].stderr[-3000:]
    _check(runs, logs, scenario.group(1))


@pytest.mark.parametrize("example", QUICK)
def test_an_openscenario_example_runs_to_its_result_table_twice_alike(shared, tmp_path, example):
    _openscenario(shared, tmp_path, example)


@pytest.mark.slow
@pytest.mark.parametrize("example", SLOW)
def test_every_openscenario_example_runs_to_its_result_table_twice_alike(shared, tmp_path, example):
    _openscenario(shared, tmp_path, example)
