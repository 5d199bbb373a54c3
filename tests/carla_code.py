"""Where the tests find CARLA's own code, and how they run it under `lockstep exec`.

scenario_runner and the leaderboards live in ../shared/carla-code (never copied into the
project). They import CARLA's PythonAPI `agents` package, which is found, in order, at
$LOCKSTEP_CARLA_AGENTS (a folder holding `agents/`), in ../shared/carla-code/PythonAPI/carla,
or else assembled from the copy of CARLA's agents that scenario_runner ships for its own
tests (srunner/tests/carla_mocks/agents, an earlier release's): that copy lacks
`constant_velocity_agent`, which this module stands in for with a class that says so when
made (none of the scenarios the tests run makes one).

Leaderboard 1.0 was published for scenario_runner 0.9.10 and CARLA 0.9.10's agents: the
scenario_runner is found at $LOCKSTEP_SCENARIO_RUNNER_0910 or in
../shared/carla-code/scenario_runner-0.9.10 (the tag v0.9.10 of carla-simulator/scenario_runner),
and `agents_0910_folder` makes the agents package of that era from the one above with two
stand-ins written here: 0.9.10's GlobalRoutePlannerDAO (the map and the resolution) and its
GlobalRoutePlanner, made from a DAO and set up by `setup()`, over the later planner.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

STAND_IN = '''"""Stand-in written by lockstep's tests: CARLA's ConstantVelocityAgent is not in
the copy of CARLA's agents scenario_runner ships."""


class ConstantVelocityAgent:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "CARLA's ConstantVelocityAgent: set LOCKSTEP_CARLA_AGENTS to CARLA's PythonAPI/carla"
        )
'''


DAO_STAND_IN = '''"""Stand-in written by lockstep's tests: CARLA 0.9.10's
GlobalRoutePlannerDAO (later releases have none), holding what the planner below reads:
the map and the resolution."""


class GlobalRoutePlannerDAO:
    def __init__(self, wmap, sampling_resolution):
        self._wmap = wmap
        self._sampling_resolution = sampling_resolution

    def get_resolution(self):
        return self._sampling_resolution
'''

PLANNER_STAND_IN = '''"""Stand-in written by lockstep's tests: CARLA 0.9.10's
GlobalRoutePlanner, made from a GlobalRoutePlannerDAO and set up by setup(), over the later
planner (made from the map and the resolution; its trace_route gives the same (waypoint,
RoadOption) pairs)."""
from agents.navigation.global_route_planner_later import GlobalRoutePlanner as _Later


class GlobalRoutePlanner(_Later):
    def __init__(self, dao):
        super().__init__(dao._wmap, dao.get_resolution())

    def setup(self):
        pass
'''


def carla_code(shared: Path) -> Path:
    """../shared/carla-code, or a skip saying it is absent."""
    folder = shared / "carla-code"
    if not (folder / "scenario_runner" / "scenario_runner.py").is_file():
        pytest.skip(f"CARLA's code not found at {folder} (scenario_runner, leaderboard)")
    return folder


def agents_folder(shared: Path, work: Path) -> Path:
    """A folder that holds CARLA's `agents` package (see the module's docstring)."""
    for candidate in (
        os.environ.get("LOCKSTEP_CARLA_AGENTS"),
        str(shared / "carla-code" / "PythonAPI" / "carla"),
    ):
        if candidate and (Path(candidate) / "agents" / "navigation").is_dir():
            return Path(candidate)
    mocks = shared / "carla-code" / "scenario_runner" / "srunner" / "tests" / "carla_mocks"
    if not (mocks / "agents" / "navigation").is_dir():
        pytest.skip(f"CARLA's agents package not found (set LOCKSTEP_CARLA_AGENTS); {mocks}")
    folder = work / "carla_agents"
    if not folder.is_dir():
        for source in sorted((mocks / "agents").rglob("*.py")):
            target = folder / "agents" / source.relative_to(mocks / "agents")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)
        (folder / "agents" / "navigation" / "constant_velocity_agent.py").write_text(STAND_IN)
    return folder


def scenario_runner_0910(shared: Path) -> Path:
    """scenario_runner 0.9.10 (see the module's docstring), or a skip saying where it was sought."""
    sought = [
        os.environ.get("LOCKSTEP_SCENARIO_RUNNER_0910"),
        shared / "carla-code" / "scenario_runner-0.9.10",
    ]
    for candidate in sought:
        if (
            candidate
            and (Path(candidate) / "srunner" / "scenarios" / "junction_crossing_route.py").is_file()
        ):
            return Path(candidate)
    pytest.skip(
        "scenario_runner 0.9.10 (leaderboard 1.0's) not found: set LOCKSTEP_SCENARIO_RUNNER_0910 "
        f"or put the tag v0.9.10 of carla-simulator/scenario_runner at {sought[1]}"
    )


def agents_0910_folder(shared: Path, work: Path) -> Path:
    """CARLA 0.9.10's `agents` package as leaderboard 1.0 imports it (the module's docstring)."""
    later = agents_folder(shared, work) / "agents"
    folder = work / "carla_agents_0910"
    if not folder.is_dir():
        for source in sorted(later.rglob("*.py")):
            target = folder / "agents" / source.relative_to(later)
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.name == "global_route_planner.py":
                target = target.with_name("global_route_planner_later.py")
            target.symlink_to(source.resolve())
        navigation = folder / "agents" / "navigation"
        (navigation / "global_route_planner.py").write_text(PLANNER_STAND_IN)
        (navigation / "global_route_planner_dao.py").write_text(DAO_STAND_IN)
    return folder


def exec_script(
    options: list[str],
    script: Path,
    args: list[str],
    *,
    cwd: Path,
    paths: list[Path],
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """`lockstep exec OPTIONS SCRIPT ARGS` in a fresh process, `paths` on PYTHONPATH."""
    return subprocess.run(
        [sys.executable, "-m", "runner.cli", "exec", *options, str(script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
        env={
            "PYTHONPATH": os.pathsep.join([str(REPO), *map(str, paths)]),
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
            **(env or {}),
        },
    )
