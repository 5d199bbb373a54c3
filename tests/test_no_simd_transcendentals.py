"""No numpy transcendental ufunc, and no libm call of math., in the code that makes a run.

numpy's sin, cos, arctan2, exp, ... pick SIMD loops by CPU feature, and glibc's libm picks
FMA code by CPU, so their last bits depend on the machine; lockstep's own functions in
world/elementary.py give the same bits everywhere (DESIGN.md, "Determinism rules"). This
walks the syntax tree of every module in world/, recorder/, runner/ and scenarios/ and
names each call (or reference, as `f = np.sin`) of one by file:line. numpy's degrees and
radians stay allowed: each is a plain multiply by one constant, exact everywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("world", "recorder", "runner", "scenarios")
NUMPY_UFUNCS = {
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot", "sinh", "cosh",
    "tanh", "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "logaddexp", "logaddexp2", "power", "float_power", "cbrt", "sinc",
}  # fmt: skip
MATH_FUNCTIONS = {
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "hypot", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
    "cbrt", "erf", "erfc", "gamma", "lgamma", "dist",
}  # fmt: skip
# file -> (names allowed there, why): libm only where nothing of a run depends on the bits
ALLOWED: dict[str, tuple[set[str], str]] = {}


def _aliases(tree: ast.Module) -> tuple[set[str], set[str], dict[str, str]]:
    """Names bound to numpy, to math, and names imported from either (local -> qualified)."""
    numpy_names, math_names, direct = set(), set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "numpy":
                    numpy_names.add(a.asname or "numpy")
                elif a.name == "math":
                    math_names.add(a.asname or "math")
        elif isinstance(node, ast.ImportFrom) and node.module in {"numpy", "math"}:
            for a in node.names:
                direct[a.asname or a.name] = f"{node.module}.{a.name}"
    return numpy_names, math_names, direct


def _banned(node: ast.AST, numpy_names, math_names, direct) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id in numpy_names and node.attr in NUMPY_UFUNCS:
            return f"numpy.{node.attr}"
        if node.value.id in math_names and node.attr in MATH_FUNCTIONS:
            return f"math.{node.attr}"
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in direct:
        module, name = direct[node.id].split(".")
        if name in (NUMPY_UFUNCS if module == "numpy" else MATH_FUNCTIONS):
            return direct[node.id]
    return None


def _findings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    names = _aliases(tree)
    found = [(node.lineno, hit) for node in ast.walk(tree) if (hit := _banned(node, *names))]
    return sorted(found)


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (REPO / package).rglob("*.py"))


def test_the_walk_finds_what_it_bans(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import numpy as xp\nimport math as m\nfrom numpy import arctan2 as a2\n"
        "y = xp.sin(1.0) + m.atan2(1.0, 2.0) + a2(1.0, 2.0) + xp.degrees(1.0)\nf = xp.exp\n"
    )
    assert _findings(sample) == [
        (4, "math.atan2"),
        (4, "numpy.arctan2"),
        (4, "numpy.sin"),
        (5, "numpy.exp"),
    ]
    assert len(_sources()) > 100


def test_no_numpy_transcendental_or_libm_call_in_the_run_code() -> None:
    bad = []
    for path in _sources():
        rel = path.relative_to(REPO).as_posix()
        allowed = ALLOWED.get(rel, (set(), ""))[0]
        bad += [f"{rel}:{line}: {name}" for line, name in _findings(path) if name not in allowed]
    assert bad == [], "use world.elementary instead of:\n" + "\n".join(bad)
