"""The log tools and the plain types start without numba; the world loads on first use.

`import recorder`, `lockstep --help` and the log queries must not pay for numba and the
compiled kernels (about half a second a process, and a crash where no cache folder can be
written); every name `world` exports still imports with `from world import X`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import world

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "world"
CACHE_MODULE = "world.physics.compiled_cache"


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


def _numba_modules() -> list[Path]:
    found = []
    for path in sorted(WORLD.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "numba" or n.startswith("numba.") for n in names):
                found.append(path)
                break
    return found


def _first_line(path: Path, test: object) -> int | None:
    lines = [n.lineno for n in ast.walk(ast.parse(path.read_text())) if test(n)]  # type: ignore[operator]
    return min(lines) if lines else None


def _imports_cache(node: ast.AST) -> bool:
    return isinstance(node, ast.Import) and any(a.name == CACHE_MODULE for a in node.names)


def _world_import(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return bool(node.module) and node.module.split(".")[0] == "world"
    return isinstance(node, ast.Import) and any(
        a.name.split(".")[0] == "world" and a.name != CACHE_MODULE for a in node.names
    )


def _decorated(node: ast.AST) -> bool:
    return isinstance(node, ast.FunctionDef) and bool(node.decorator_list)


def test_every_module_with_kernels_imports_the_cache_first() -> None:
    """numba fixes a kernel's cache folder when the kernel is defined: the cache module
    must be imported before the first kernel, and before any world module (those define
    kernels of their own)."""
    modules = [p for p in _numba_modules() if p.name != "compiled_cache.py"]
    # facts of the tree, so a walk that finds nothing cannot pass
    names = {p.relative_to(WORLD).as_posix() for p in modules}
    assert {"physics/tick.py", "map/ground.py", "traffic/autopilot/kernels.py"} <= names
    late = []
    for path in modules:
        cache = _first_line(path, _imports_cache)
        kernel = _first_line(path, _decorated)
        other = _first_line(path, _world_import)
        if cache is None or (kernel is not None and kernel < cache) or (other and other < cache):
            late.append(path.relative_to(WORLD).as_posix())
    assert late == []


def test_the_cache_module_imports_only_the_plain_errors() -> None:
    tree = ast.parse((WORLD / "physics" / "compiled_cache.py").read_text())
    world_imports = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("world")
    }
    assert world_imports <= {"world.errors"}
