"""world/'s layout: one sub-package per concern, and imports that flow one way between them.

The wings' rules (each wing's __init__ says them too): kernels/ (the compiled kernels'
machinery) sits below every wing and imports nothing of the world but its errors; map/
imports only the plain types at the top of world/, kernels/ and itself; physics/ never
imports traffic/, sensors/ or world.py. Every import counts, those inside functions and
TYPE_CHECKING blocks too.
"""

from __future__ import annotations

import ast
from pathlib import Path

WORLD = Path(__file__).resolve().parent.parent / "world"
TOP_MODULES = {
    "__init__",
    "world",
    "handles",
    "settings",
    "weather",
    "snapshot",
    "state",
    "geometry",
    "elementary",
    "file_kinds",
    "errors",
    "enums",
    "debug",
    "probes",
    "street_lights",
}
PLAIN_TYPES = {
    "world.geometry",
    "world.elementary",
    "world.enums",
    "world.errors",
    "world.file_kinds",
}
WINGS = {"kernels", "map", "actors", "physics", "traffic", "sensors", "scene", "render"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(WORLD.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The world modules a file imports (a `from world.x import name` counts as world.x.name
    when that is a module, else as world.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "world")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "world":
                continue
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                as_path = WORLD.parent.joinpath(*candidate.split("."))
                is_module = as_path.with_suffix(".py").exists() or as_path.is_dir()
                found.add(candidate if is_module else node.module)
    return found


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else "top"


def _arrows() -> list[tuple[str, str]]:
    arrows = []
    for path in sorted(WORLD.rglob("*.py")):
        source = _module_name(path)
        arrows.extend((source, target) for target in sorted(_imports(path)))
    return arrows


def test_only_the_world_and_its_plain_types_sit_at_the_top() -> None:
    top = {p.stem for p in WORLD.glob("*.py")}
    assert top == TOP_MODULES
    wings = {p.name for p in WORLD.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert wings == WINGS


def test_the_walk_sees_the_arrows_that_are_there() -> None:
    arrows = set(_arrows())
    # facts of the tree, so a walk that finds nothing cannot pass the rules below
    assert ("world.map.map", "world.map.lane_index") in arrows
    assert ("world.physics.tick", "world.map.ground_query") in arrows
    assert ("world.traffic.autopilot.manager", "world.traffic.autopilot.fleet") in arrows
    assert ("world.map.ground", "world.kernels.compiled") in arrows


def test_the_kernels_wing_imports_only_the_errors() -> None:
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) == "kernels" and _wing(t) != "kernels" and t != "world.errors"
    ]
    assert bad == []


def test_the_map_imports_no_other_wing() -> None:
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) == "map"
        and _wing(t) not in {"map", "kernels"}
        and t not in PLAIN_TYPES
        and t != "world"
    ]
    assert bad == []


def test_physics_imports_neither_traffic_nor_sensors_nor_the_world() -> None:
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) == "physics"
        and (_wing(t) in {"traffic", "sensors"} or t in {"world.world", "world.handles"})
    ]
    assert bad == []


def test_traffic_never_imports_sensors_or_the_world() -> None:
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) == "traffic"
        and (_wing(t) == "sensors" or t in {"world.world", "world.handles"})
    ]
    assert bad == []


def test_the_scene_imports_only_the_map_and_the_actors() -> None:
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) == "scene"
        and (_wing(t) in {"physics", "traffic", "sensors"} or t in {"world.world", "world.handles"})
    ]
    assert bad == []


def test_the_renderer_builds_on_the_scene_s_mesh_alone() -> None:
    allowed = {"world.scene.mesh", "world.elementary", "world.errors"}
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) == "render" and _wing(t) not in {"render", "kernels"} and t not in allowed
    ]
    assert bad == []
