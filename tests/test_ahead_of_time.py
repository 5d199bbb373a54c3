"""The ahead-of-time kernels (world.kernels.compiled): a process running them imports no
numba, computes the bits numba's JIT computes, refuses arguments of other types when checked,
and still runs a kernel the module lacks, through numba.

Each case runs in a fresh interpreter, in the mode it names: the module is bound when the
kernels' modules are imported. The cases that need the module skip, saying so, where
`lockstep warmup` has not built it (`make test` builds it first).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from runner_helpers import write_config

from runner.log_compare import compare_logs
from world.kernels.compiled import ahead_of_time_path

ROOT = Path(__file__).resolve().parent.parent


def _python(code: str, **env_changes: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "LOCKSTEP_KERNELS"}
    env.update(env_changes)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def built() -> Path:
    path = ahead_of_time_path()
    if path is None:
        pytest.skip("the ahead-of-time module is not built here (`lockstep warmup` builds it)")
    return path


def _config(folder: Path) -> Path:
    """A 10-second route of town_small among 12 autopilot cars, recorded with additional
    data: the world, the autopilot, the criteria and the recorder all run."""
    return write_config(
        folder,
        "aot",
        seed=5,
        traffic={"vehicles": 12, "walkers": 4},
        limits={"route_seconds": 10.0},
        record={"additional_data": True},
        routes=[{"id": 0, "waypoints": [[120.0, -98.25, 0.0], [198.25, -50.0, 0.0]]}],
    )


EVALUATE = """
import sys
from pathlib import Path
from runner.config import load_config
from runner.execution.driver import evaluate
from world.kernels.compiled import running_ahead_of_time
(outcome,) = evaluate(load_config(Path(sys.argv[1])), Path(sys.argv[2]))
print(running_ahead_of_time(), "numba" in sys.modules, outcome.ticks)
"""


def _evaluate(config: Path, out: Path, **env_changes: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", EVALUATE, str(config), str(out)],
        cwd=ROOT,
        env={**{k: v for k, v in os.environ.items() if k != "LOCKSTEP_KERNELS"}, **env_changes},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def test_an_evaluation_on_the_module_imports_no_numba_and_logs_numbas_bytes(
    built: Path, tmp_path: Path
) -> None:
    config = _config(tmp_path)
    ahead = _evaluate(config, tmp_path / "aot", LOCKSTEP_KERNEL_CHECK="")  # as a user runs it
    jit = _evaluate(config, tmp_path / "jit", LOCKSTEP_KERNELS="jit")
    assert ahead == ["True", "False", "200"]  # the module's kernels, no numba, 10 s at 20 Hz
    assert jit == ["False", "True", "200"]
    log = "RouteScenario_0_rep0.log"
    assert compare_logs(tmp_path / "jit" / log, tmp_path / "aot" / log) is None


def test_a_call_with_other_types_is_refused_when_checked(built: Path) -> None:
    code = (
        "import numpy as np\n"
        "from world import elementary as el\n"
        "from world.kernels.compiled import KernelTypeError\n"
        "out = np.empty(3)\n"
        "el._unary_loop(0, np.zeros(3), out)\n"  # the types it was built for: runs
        "try:\n"
        "    el._unary_loop(0, np.zeros(3, np.float32), out)\n"
        "except KernelTypeError as exc:\n"
        "    print(exc)\n"
    )
    done = _python(code, LOCKSTEP_KERNEL_CHECK="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "kernel world.elementary._unary_loop: argument 1 is array(float32, 1d, C), "
        "the module was built for array(float64, 1d, C)"
    )


def test_a_kernel_the_module_lacks_runs_through_numba(built: Path) -> None:
    """_sin_cos is only called by other kernels, so the module does not hold it: numba
    compiles it on its call from Python (with its callees) and gives the module's sin and
    cos of the same angles, bit for bit."""
    code = (
        "import sys\n"
        "from world import elementary as el\n"
        "from world.kernels.compiled import running_ahead_of_time\n"
        "before = 'numba' in sys.modules\n"
        "angles = [0.0, 0.3, 1.0, 2.5, -4.0, 1e5]\n"
        "pairs = [el._sin_cos(a) for a in angles]\n"
        "same = all(p == (el.sin(a), el.cos(a)) for p, a in zip(pairs, angles))\n"
        "print(running_ahead_of_time(), before, 'numba' in sys.modules, same)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "True", "True"]


def test_numba_s_jit_is_used_when_asked() -> None:
    done = _python(
        "import sys\nimport world.physics.tick\n"
        "from world.kernels.compiled import running_ahead_of_time\n"
        "print(running_ahead_of_time(), 'numba' in sys.modules)\n",
        LOCKSTEP_KERNELS="jit",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_a_module_built_for_another_cpu_is_not_loaded(tmp_path: Path) -> None:
    # the module is compiled for the highest x86-64 level of the CPU that built it: the
    # manifest names that level, and a process on a CPU without it runs numba's JIT instead
    import json

    from world.kernels.compiled import FORMAT, GENERIC_CPU, MANIFEST, cpu_levels, manifest

    folder = tmp_path / "numba-0123456789abcdef"
    folder.mkdir()
    (folder / "module.so").write_bytes(b"")
    fields = {"format": FORMAT, "file": "module.so", "python": sys.implementation.cache_tag}
    fields["digest"] = "0123456789abcdef"
    host = cpu_levels()[0]
    for cpu, fits in ((host, True), (GENERIC_CPU, True), ("x86-64-v9", False)):
        (folder / MANIFEST).write_text(json.dumps({**fields, "cpu": cpu}))
        assert (manifest(folder) is not None) == fits, cpu
    del fields["format"]  # a manifest of the first format, which named no CPU
    (folder / MANIFEST).write_text(json.dumps({**fields, "format": 1}))
    assert manifest(folder) is None
