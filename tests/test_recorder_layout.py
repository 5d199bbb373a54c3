"""recorder/'s layout: one sub-package per concern, every other wing built on the log file's.

The wings' rules (each wing's __init__ says them too): logfile/ imports no other wing;
live/, replay/, json_form/, queries/ and picture/ import logfile/ and never each other.
Every import counts, those inside functions and TYPE_CHECKING blocks too.
"""

from __future__ import annotations

import ast
from pathlib import Path

RECORDER = Path(__file__).resolve().parent.parent / "recorder"
TOP_MODULES = {"__init__", "errors"}
WINGS = {"logfile", "live", "replay", "json_form", "queries", "picture"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(RECORDER.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The recorder modules a file imports (`from recorder.x import name` counts as
    recorder.x.name when that is a module, else as recorder.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "recorder")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "recorder":
                continue
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                as_path = RECORDER.parent.joinpath(*candidate.split("."))
                is_module = as_path.with_suffix(".py").exists() or as_path.is_dir()
                found.add(candidate if is_module else node.module)
    return found


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else "top"


def _arrows() -> list[tuple[str, str]]:
    arrows = []
    for path in sorted(RECORDER.rglob("*.py")):
        source = _module_name(path)
        arrows.extend((source, target) for target in sorted(_imports(path)))
    return arrows


def test_only_the_lazy_names_and_the_errors_sit_at_the_top() -> None:
    assert {p.stem for p in RECORDER.glob("*.py")} == TOP_MODULES
    wings = {p.name for p in RECORDER.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert wings == WINGS


def test_the_walk_sees_the_arrows_that_are_there() -> None:
    arrows = set(_arrows())
    # facts of the tree, so a walk that finds nothing cannot pass the rules below
    assert ("recorder.live.recorder", "recorder.logfile.writer") in arrows
    assert ("recorder.replay.replayer", "recorder.logfile.reader") in arrows
    assert ("recorder.queries.common", "recorder.logfile.packet_walk") in arrows


def test_the_log_file_imports_no_other_wing() -> None:
    bad = [
        (s, t) for s, t in _arrows() if _wing(s) == "logfile" and _wing(t) not in {"logfile", "top"}
    ]
    assert bad == []


def test_the_other_wings_build_on_the_log_file_alone() -> None:
    bad = [
        (s, t)
        for s, t in _arrows()
        if _wing(s) not in {"logfile", "top"} and _wing(t) not in {_wing(s), "logfile", "top"}
    ]
    assert bad == []


def test_only_the_package_itself_reads_its_lazy_names() -> None:
    """`from recorder import X` inside the recorder would load the lazy table's homes in an
    order the wings cannot see; each module imports the module that defines a name."""
    bad = [(s, t) for s, t in _arrows() if t == "recorder" and s != "recorder"]
    assert bad == []
