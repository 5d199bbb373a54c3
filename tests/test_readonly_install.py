"""lockstep installed from its wheel, read-only, with no home: the log tools and the world
still work, and the kernels compiled by the first process are loaded by the next.

The wheel goes into a fresh venv (its dependencies come from this venv's site-packages
through a .pth line, so nothing is downloaded); the installed package is made read-only
and HOME and XDG_CACHE_HOME are unset, so the kernels' cache falls to the temp dir's
base. Root writes into read-only folders, so as root the processes run without the
capabilities that let it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIP = [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check"]
COMPILE_NOTICE = "compiling lockstep's kernels, once per install, about a minute"

# a car at full throttle for 20 ticks on the map argv[1]
DRIVE = """
import json, sys, time
start = time.perf_counter()
import world
from world import Map, VehicleControl, World, WorldSettings
town = Map.from_file(sys.argv[1])
w = World(town)
w.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=0.05))
car = w.spawn_actor(w.get_blueprint_library().find("vehicle.lincoln.mkz_2017"),
                    town.get_spawn_points()[0])
car.apply_control(VehicleControl(throttle=1.0))
for _ in range(20):
    w.tick()
"""

TICK = (
    DRIVE
    + """
from runner.warmup import kernel_dispatchers
from world.kernels.compiled_cache import cache_dir
seconds = time.perf_counter() - start
found = kernel_dispatchers()
kernels = found.values()
print(json.dumps({
    "world": world.__file__,
    "cache": str(cache_dir()),
    "frame": w.get_snapshot().frame,
    "speed": car.get_velocity().length(),
    "compiled": sum(sum(k._cache_misses.values()) for k in kernels),
    "compiled_names": sorted(n for n, k in found.items() if k._cache_misses),
    "loaded": sum(sum(k._cache_hits.values()) for k in kernels),
    "seconds": seconds,
}))
"""
)


def _without_write_override() -> None:
    """(preexec) Root loses the capabilities that write past file modes."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _copy_sources(target: Path) -> None:
    """The files the wheel is built from, without caches (the build writes beside them)."""
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    for name in ("world", "recorder", "runner", "scenarios"):
        shutil.copytree(ROOT / name, target / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, target / name)


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        args,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=_without_write_override,
        timeout=900,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding lockstep's wheel, not this checkout."""
    work = tmp_path_factory.mktemp("install")
    src = work / "src"
    _copy_sources(src)
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-w", str(work / "dist"), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (work / "dist").glob("lockstep-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # numpy, numba... from this venv, after the new venv's own packages
    (purelib / "_lockstep_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [*PIP, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    subprocess.run(["chmod", "-R", "a-w", str(purelib)], check=True)
    yield venv
    subprocess.run(["chmod", "-R", "u+w", str(work)], check=False)


def _env(tmp: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"HOME", "XDG_CACHE_HOME", "PYTHONPATH"} and not k.startswith("NUMBA_")
    }
    env["TMPDIR"] = str(tmp)
    return env


def test_the_read_only_install_queries_and_ticks(installed: Path, shared: Path) -> None:
    tmp = installed.parent / "tmp"
    tmp.mkdir()
    env = _env(tmp)
    bin_dir = installed / "bin"

    helped = _run([str(bin_dir / "lockstep"), "--help"], env, tmp)
    assert helped.returncode == 0, helped.stderr
    assert "collisions" in helped.stdout

    case = shared / "carla-golden" / "town_drive"
    queried = _run(
        [str(bin_dir / "lockstep"), "collisions", "-t", "hv", "-f", str(case / "recording.log")],
        env,
        tmp,
    )
    assert queried.returncode == 0, queried.stderr
    assert queried.stdout == (case / "collisions_h_v.txt").read_text()
    assert COMPILE_NOTICE not in queried.stderr

    town = str(ROOT / "configs" / "maps" / "town_small.xodr")
    first = _run([str(bin_dir / "python"), "-c", TICK, town], env, tmp)
    assert first.returncode == 0, first.stderr
    ran = json.loads(first.stdout)
    assert Path(ran["world"]).is_relative_to(installed)
    assert ran["frame"] > 0 and ran["speed"] > 0.5  # 20 ticks at full throttle: it moves
    assert first.stderr.count(COMPILE_NOTICE) == 1
    assert ran["compiled"] > 0
    # kernels compile only for the systems a run uses: no traffic manager, no walker AI here
    assert any(n.startswith("world.physics.tick.") for n in ran["compiled_names"])
    unused = ("world.traffic.autopilot.", "world.traffic.walkers.")
    assert [n for n in ran["compiled_names"] if n.startswith(unused)] == []
    cache = Path(ran["cache"])
    assert cache.parent == tmp / f"lockstep-{os.getuid()}"
    assert cache.name.startswith("numba-") and any(cache.rglob("*.nbi"))

    started = time.perf_counter()
    second = _run([str(bin_dir / "python"), "-c", TICK, town], env, tmp)
    wall = time.perf_counter() - started
    assert second.returncode == 0, second.stderr
    again = json.loads(second.stdout)
    # the second process compiles nothing: every kernel it runs comes from the cache
    assert (again["compiled"], COMPILE_NOTICE in second.stderr) == (0, False)
    assert again["loaded"] > 0 and again["cache"] == ran["cache"]
    assert again["speed"] == ran["speed"]  # the cached kernels give the same bits
    print(f"second process: ticked in {again['seconds']:.2f} s ({wall:.2f} s wall in all)")


AHEAD = (
    DRIVE
    + """
from world.kernels.compiled import running_ahead_of_time
print(json.dumps({"ahead": running_ahead_of_time(), "numba": "numba" in sys.modules,
                  "speed": car.get_velocity().length()}))
"""
)


@pytest.mark.slow
def test_the_read_only_install_builds_and_runs_the_ahead_of_time_module(
    installed: Path,
) -> None:
    """`lockstep warmup` in the read-only install builds the module into the temp dir's
    base; the next process ticks on it without numba, with the JIT's bits."""
    tmp = installed.parent / "tmp-ahead"
    tmp.mkdir()
    env = {**_env(tmp), "LOCKSTEP_KERNEL_CHECK": ""}
    town = str(ROOT / "configs" / "maps" / "town_small.xodr")
    jit = _run([str(installed / "bin" / "python"), "-c", AHEAD, town], env, tmp)
    assert jit.returncode == 0, jit.stderr
    warmed = _run([str(installed / "bin" / "lockstep"), "warmup"], env, tmp)
    assert warmed.returncode == 0, warmed.stderr
    assert "ahead-of-time module (" in warmed.stdout and ", built): " in warmed.stdout
    ahead = _run([str(installed / "bin" / "python"), "-c", AHEAD, town], env, tmp)
    assert ahead.returncode == 0, ahead.stderr
    first, then = json.loads(jit.stdout), json.loads(ahead.stdout)
    assert (first["ahead"], first["numba"], then["ahead"], then["numba"]) == (
        False,
        True,
        True,
        False,
    )
    assert then["speed"] == first["speed"] > 0.5
