"""Where the tests find CARLA's own code, and how they run it under `lockstep exec`.

scenario_runner and the leaderboards live in ../shared/carla-code (never copied into the
project). They import CARLA's PythonAPI `agents` package, which is found, in order, at
$LOCKSTEP_CARLA_AGENTS (a folder holding `agents/`), in ../shared/carla-code/PythonAPI/carla,
or else assembled from the copy of CARLA's agents that scenario_runner ships for its own
tests (srunner/tests/carla_mocks/agents, an earlier release's): that copy lacks
`constant_velocity_agent`, which this module stands in for with a class that says so when
made (none of the scenarios the tests run makes one).
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
