"""The seeded traffic scene gives the same state bits whatever SIMD code numpy or numba picks.

Each run is a subprocess of tests/cross_cpu_scene.py on Town04 (40 vehicles, 20 walkers,
seed 29, 300 ticks of 0.05 s) that prints a hash of every actor's pose and motion and
every vehicle's control, at spawn and after each tick. The variants stand in for other
CPUs: numpy with its AVX-512 loops switched off (NPY_DISABLE_CPU_FEATURES, only the
dispatch targets this CPU has beyond numpy's baseline, as numpy refuses the others),
numpy with every dispatch target off (baseline SSE4.2 code only), and numba compiling for
a generic x86-64 CPU (no AVX, no FMA; marked slow, as it compiles every kernel anew in its
own cache folder). Before lockstep had its own elementary functions, the AVX-512 variant
changed spawn yaws by an ulp and the traffic diverged.

The renderer's case (tests/cross_cpu_render.py) prints digests of a camera's buffers and a
LiDAR's casts on a seeded scene, and must print the same under the same variants, and under
numba's JIT for this CPU beside the ahead-of-time module (compiled for a generic CPU).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

REPO = Path(__file__).resolve().parents[1]
SCENE = ("40", "20", "29", "300")  # vehicles, walkers, seed, ticks
AVX512 = ("X86_V4", "AVX512_ICL", "AVX512_SPR")
CPU_SWITCHES = (
    "NPY_DISABLE_CPU_FEATURES",
    "NPY_ENABLE_CPU_FEATURES",
    "NUMBA_CPU_NAME",
    "NUMBA_CPU_FEATURES",
)


def _present(features: tuple[str, ...]) -> list[str]:
    """The numpy dispatch targets among `features` this CPU has (numpy errors on others)."""
    return [f for f in __cpu_dispatch__ if f in features and __cpu_features__.get(f)]


def _run(town: Path, env_changes: dict[str, str]) -> dict:
    """The scene's result in a subprocess: this environment without its own CPU switches, then
    `env_changes`."""
    env = {k: v for k, v in os.environ.items() if k not in CPU_SWITCHES}
    env.update({"PYTHONPATH": str(REPO), **env_changes})
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "cross_cpu_scene.py"), str(town), *SCENE],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@cache
def _default(town: Path) -> dict:
    return _run(town, {})


def _town(shared: Path) -> Path:
    return shared / "maps" / "carla" / "Town04.xodr"


def _assert_same(base: dict, other: dict) -> None:
    assert (other["vehicles"], other["walkers"]) == (base["vehicles"], base["walkers"]) == (40, 20)
    assert len(other["hashes"]) == len(base["hashes"]) == int(SCENE[3]) + 1
    first = next(
        (i for i, (a, b) in enumerate(zip(base["hashes"], other["hashes"], strict=True)) if a != b),
        None,
    )
    assert first is None, f"the state differs from tick {first} on (0 = spawned state)"


@pytest.mark.parametrize("features", [AVX512, tuple(__cpu_dispatch__)], ids=["avx512", "all"])
def test_numpy_without_its_simd_loops_gives_the_same_states(shared, features):
    disabled = _present(features)
    if not disabled:
        pytest.skip(f"this CPU has none of numpy's dispatch targets {features} to switch off")
    print(f"NPY_DISABLE_CPU_FEATURES={' '.join(disabled)}")
    base = _default(_town(shared))
    other = _run(_town(shared), {"NPY_DISABLE_CPU_FEATURES": " ".join(disabled)})
    assert not set(disabled) & set(other["numpy_dispatch_on"])  # the switch took
    assert set(disabled) <= set(base["numpy_dispatch_on"])
    _assert_same(base, other)


@pytest.mark.slow
def test_numba_compiled_for_a_generic_cpu_gives_the_same_states(shared):
    # numba keys its cache on the CPU name too, but a folder of its own keeps the two apart;
    # kept between runs (in the temp dir) so only the first run compiles
    folder = Path(tempfile.gettempdir()) / f"lockstep-test-generic-cpu-{os.getuid()}"
    base = _default(_town(shared))
    other = _run(_town(shared), {"NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": str(folder)})
    assert other["numba_cpu"] == "generic" and base["numba_cpu"] != "generic"
    _assert_same(base, other)


# -- the renderer: a camera's buffers and a LiDAR's casts (tests/cross_cpu_render.py) ----------


def _render(env_changes: dict[str, str]) -> dict:
    """The render case's digests in a subprocess: this environment without its own CPU
    switches or kernel mode, then `env_changes`."""
    env = {k: v for k, v in os.environ.items() if k not in (*CPU_SWITCHES, "LOCKSTEP_KERNELS")}
    env.update({"PYTHONPATH": str(REPO), **env_changes})
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "cross_cpu_render.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


RENDERED = ("camera0", "camera1", "camera2", "lidar")


@cache
def _render_default() -> dict:
    return _render({})


def _assert_same_render(base: dict, other: dict) -> None:
    assert base["lidar_hits"] > 30_000 and base["camera0_covered"] > 50_000  # a real scene
    assert {k: other[k] for k in RENDERED} == {k: base[k] for k in RENDERED}


@pytest.mark.parametrize("features", [AVX512, tuple(__cpu_dispatch__)], ids=["avx512", "all"])
def test_numpy_without_its_simd_loops_renders_the_same_bytes(features):
    disabled = _present(features)
    if not disabled:
        pytest.skip(f"this CPU has none of numpy's dispatch targets {features} to switch off")
    other = _render({"NPY_DISABLE_CPU_FEATURES": " ".join(disabled)})
    assert not set(disabled) & set(other["numpy_dispatch_on"])
    _assert_same_render(_render_default(), other)


def test_numbas_jit_renders_the_bytes_of_the_ahead_of_time_module():
    # the module is compiled for this CPU's x86-64 level; numba's JIT for this CPU itself
    base = _render_default()
    if not base["ahead_of_time"]:
        print("the ahead-of-time module is not built here: both runs use numba's JIT")
    other = _render({"LOCKSTEP_KERNELS": "jit"})
    assert not other["ahead_of_time"] and other["numba_cpu"] == "host"
    _assert_same_render(base, other)


@pytest.mark.slow
def test_numba_compiled_for_a_generic_cpu_renders_the_same_bytes():
    folder = Path(tempfile.gettempdir()) / f"lockstep-test-generic-cpu-{os.getuid()}"
    other = _render(
        {"NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": str(folder), "LOCKSTEP_KERNELS": "jit"}
    )
    assert other["numba_cpu"] == "generic"
    _assert_same_render(_render({"LOCKSTEP_KERNELS": "jit"}), other)


SENSOR_SCENE = ("12", "31", "20")  # vehicles, seed, ticks


def _sensor_run(town: Path, env_changes: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in CPU_SWITCHES}
    env.update({"PYTHONPATH": str(REPO), **env_changes})
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "cross_cpu_sensors.py"), str(town), *SENSOR_SCENE],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_sensor_bytes_are_the_same_without_numpys_simd_loops():
    # cameras, LiDAR with noise and radar on a hero in traffic: every measurement's bytes
    town = REPO / "configs" / "maps" / "town_small.xodr"
    disabled = _present(tuple(__cpu_dispatch__))
    if not disabled:
        pytest.skip("this CPU has none of numpy's dispatch targets to switch off")
    base = _sensor_run(town, {})
    other = _sensor_run(town, {"NPY_DISABLE_CPU_FEATURES": " ".join(disabled)})
    assert not set(disabled) & set(other["numpy_dispatch_on"])
    assert len(base["hashes"]) == int(SENSOR_SCENE[2])
    assert other["hashes"] == base["hashes"]
    assert _sensor_run(town, {})["hashes"] == base["hashes"]  # and again in another process
