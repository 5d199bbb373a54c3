"""recorder/'s layout: one sub-package per concern, every other wing built on the log file's.

The wings' rules (each wing's __init__ says them too): logfile/ imports no other wing;
live/, replay/, json_form/, queries/ and picture/ import logfile/ and never each other.
Every import counts, those inside functions and TYPE_CHECKING blocks too.
"""

from __future__ import annotations

from import_graph import ROOT, arrows

RECORDER = ROOT / "recorder"
TOP_MODULES = {"__init__", "errors"}
WINGS = {"logfile", "live", "replay", "json_form", "queries", "picture"}


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in WINGS else "top"


def _arrows() -> list[tuple[str, str]]:
    return arrows("recorder")


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
