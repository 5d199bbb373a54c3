"""runner/'s layout: imports flow one way, with no circle; one route repetition
(runner/route.py) sits below the execution machinery (runner/execution/), and only the
driver feeds the evaluation's session."""

from __future__ import annotations

import ast

from import_graph import ROOT, arrows, circles

EXECUTION = "runner.execution"


def test_the_walk_sees_the_arrows_that_are_there() -> None:
    found = set(arrows("runner"))
    # facts of the tree, so a walk that finds nothing cannot pass the rules below
    assert ("runner.execution.driver", "runner.execution.tasks") in found
    assert ("runner.execution.tasks", "runner.route") in found
    assert ("runner.route", "runner.loop") in found


def test_the_circle_finder_finds_a_circle() -> None:
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
    assert circles(edges) == [["a", "b", "c"]]


def test_runner_imports_flow_one_way() -> None:
    assert circles(arrows("runner")) == []


def test_nothing_below_the_execution_machinery_imports_it() -> None:
    """The route, the loop, the criteria, the scoring... never import runner.execution;
    the commands, `lockstep check`, the viewer of run directories and warm-up sit above it."""
    above = ("runner.commands", "runner.check", "runner.warmup", "runner.view", EXECUTION)
    bad = [
        (s, t) for s, t in arrows("runner") if t.startswith(EXECUTION) and not s.startswith(above)
    ]
    assert bad == []


def test_only_the_driver_feeds_the_session() -> None:
    """EvaluationSession is made in the driver alone (runner.scoring defines it; the golden
    specs' replay in runner.scoring drives its own)."""
    users = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "runner").rglob("*.py")
        if any(
            isinstance(node, ast.Call) and getattr(node.func, "id", "") == "EvaluationSession"
            for node in ast.walk(ast.parse(path.read_text()))
        )
    )
    assert users == ["runner/execution/driver.py", "runner/scoring/golden_spec.py"]
