"""The log tools and the plain types start without numba; the world loads on first use.

`import recorder`, `lockstep --help` and the log queries must not pay for numba and the
compiled kernels (about half a second a process, and a crash where no cache folder can be
written); every name `world` exports still imports with `from world import X`.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

import world

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "world"


def _heavy_after(code: str) -> list[str]:
    """The numba and world-kernel modules loaded by `code` in a fresh interpreter."""
    probe = (
        f"{code}\n"
        "import sys\n"
        "print('loaded:', *sorted(m for m in sys.modules if m == 'numba' "
        "or m.startswith(('numba.', 'world.physics', 'world.map', 'world.traffic'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()[-1].split()[1:]


def test_the_plain_types_import_no_numba() -> None:
    assert _heavy_after("import world.errors, world.geometry, world.enums") == []


def test_the_recorder_and_the_cli_import_no_numba() -> None:
    assert _heavy_after("import recorder, runner.cli\nrunner.cli.build_parser()") == []


def test_help_imports_no_numba() -> None:
    code = "import runner.cli\ntry:\n    runner.cli.main(['--help'])\nexcept SystemExit:\n    pass"
    assert _heavy_after(code) == []


@pytest.mark.parametrize(
    "query",
    [
        ["info", "-f"],
        ["collisions", "-t", "hv", "-f"],
        ["blocked", "-t", "30", "-d", "10", "-f"],
    ],
)
def test_a_log_query_imports_no_numba(shared: Path, query: list[str]) -> None:
    log = shared / "carla-golden" / "town_drive" / "recording.log"
    argv = [*query, str(log)]
    code = f"import runner.cli\nassert runner.cli.main({argv!r}) == 0"
    assert _heavy_after(code) == []


def test_a_log_query_prints_carlas_text_without_numba(shared: Path) -> None:
    """The lazy path still answers: the query text equals CARLA's golden one."""
    case = shared / "carla-golden" / "town_drive"
    log = case / "recording.log"
    done = subprocess.run(
        [sys.executable, "-m", "runner.cli", "collisions", "-t", "hv", "-f", str(log)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == (case / "collisions_h_v.txt").read_text()


def test_every_exported_name_imports_from_world() -> None:
    namespace: dict[str, object] = {}
    exec(f"from world import {', '.join(world.__all__)}", namespace)
    missing = [name for name in world.__all__ if namespace.get(name) is None]
    assert missing == []
    assert set(world.__all__) <= set(dir(world))
    assert world.World.__module__ == "world.world"
    assert world.Map.__name__ == "Map"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Wrold'"):
        world.Wrold  # noqa: B018


def _imports_numba(node: ast.AST) -> bool:
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and node.module:
        names = [node.module]
    return any(n == "numba" or n.startswith("numba.") for n in names)


def _top_level_numba_imports(root: Path) -> list[str]:
    """The modules under `root` that import numba when they are imported (at module level)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if any(_imports_numba(node) for node in ast.parse(path.read_text(), str(path)).body):
            found.append(path.relative_to(ROOT).as_posix())
    return found


def _kernel_modules() -> list[Path]:
    """The modules that decorate functions with lockstep's `njit`."""
    return [
        path
        for root in (WORLD, ROOT / "recorder")
        for path in sorted(root.rglob("*.py"))
        if "from world.kernels.compiled import" in path.read_text() and "@njit" in path.read_text()
    ]


def test_kernels_take_lockstep_s_decorator_and_no_module_imports_numba_itself() -> None:
    """A process running the ahead-of-time kernels imports no numba: kernel modules take
    `njit` from world.kernels.compiled, and the only modules importing numba at their top
    are the intrinsics (the kernels' and the recorder's), imported only where numba
    compiles."""
    names = {p.relative_to(ROOT).as_posix() for p in _kernel_modules()}
    # facts of the tree, so a walk that finds nothing cannot pass
    assert {
        "world/physics/tick.py",
        "world/map/ground.py",
        "world/traffic/autopilot/kernels.py",
        "recorder/live/tick_packing.py",
    } <= names
    found = _top_level_numba_imports(WORLD) + _top_level_numba_imports(ROOT / "recorder")
    assert found == ["world/kernels/intrinsics.py", "recorder/live/packing_intrinsics.py"]


def test_the_kernel_modules_import_only_the_plain_errors() -> None:
    for name in ("compiled_cache.py", "compiled.py"):
        tree = ast.parse((WORLD / "kernels" / name).read_text())
        world_imports = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("world")
        }
        assert world_imports <= {"world.errors", "world.kernels"}


def test_an_evaluation_import_keeps_blas_to_one_thread() -> None:
    """`import runner.execution.driver` in a fresh interpreter loads numpy with BLAS set to one
    thread (world's package sets it; runner imports world first), so no BLAS pool spins."""
    probe = (
        "import os\nimport runner.execution.driver\n"
        "tasks = os.listdir('/proc/self/task') if os.path.isdir('/proc/self/task') else [0]\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), len(tasks))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["1", "1"]
