"""Every piece of state has one owner, and other modules read it through the owner's API.

An AST walk of the packages (as tests/test_world_layout.py walks the imports) holds three
rules; each failure says what to do:

* no `__dict__` stash: state lives in declared attributes (the World's traffic managers and
  AI walkers in its own slots), never in another object's `__dict__`;
* no private reach-ins: a module uses `x._name` only for names of its own (its classes'
  methods, class attributes and `self._name` attributes), on objects that are not the World
  or a Map; it reads the World's state through `world.state_tables()` or a named accessor
  (`traffic_managers()`, `walker_ai()`, `traffic_signals()`, `tick_systems`) and a Map's
  through its public methods (`road_graph`, `lane_segments`, `lane_index`, ...);
* no function of world/ takes more than 15 parameters: compiled kernels take their arrays
  as a few named groups (NamedTuples, or plain tuples in their field order).

The World and its actor handles are one unit here (CARLA's Actor is a view of the World's
state), as are the Map and its Waypoint, Junction and Landmark (DESIGN.md names both circles).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("world", "recorder", "runner", "scenarios", "benchmarks")
FAMILIES = (
    {"world/world.py", "world/handles.py"},
    {"world/map/map.py", "world/map/waypoint.py", "world/map/junction.py", "world/map/landmark.py"},
)
# receivers that are another module's object whatever the name they reach for
FOREIGN = {"world", "_world", "map", "_map", "world_map"}
# names of the standard library and numpy that have no public spelling
LIBRARY = {
    ("argparse", "_SubParsersAction"),  # the type add_subparsers returns
    ("os", "_exit"),  # documented: exits a forked child without the parent's clean-up
    # scenario_runner's CarlaDataProvider keeps its actors in this class attribute, and no
    # public call adds one spawned elsewhere (the leaderboard spawns its ego through
    # request_new_actor; lockstep's runner spawns its own: runner/carla/data_provider.py)
    ("CarlaDataProvider", "_carla_actor_pool"),
}
NAMEDTUPLE = {"_fields", "_replace", "_asdict", "_make", "_field_defaults"}
# modules whose `__dict__` use is a module's namespace, not a stash: the kernels' fallback
# gives a copied function the globals of numba's dispatchers
DICT_USERS = {"world/kernels/compiled.py"}
MAX_PARAMETERS = 15


def _files(*packages: str) -> list[Path]:
    return [p for package in packages for p in sorted((ROOT / package).rglob("*.py"))]


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _unit(name: str) -> frozenset[str]:
    return next((frozenset(f) for f in FAMILIES if name in f), frozenset({name}))


def _own_names(tree: ast.AST) -> set[str]:
    """The private names a module defines: its classes' methods and class attributes, and
    the attributes its code sets on `self`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(item.name)
                targets = (
                    item.targets
                    if isinstance(item, ast.Assign)
                    else [item.target]
                    if isinstance(item, ast.AnnAssign)
                    else []
                )
                names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return {n for n in names if n.startswith("_")}


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _reach_ins() -> list[str]:
    trees = {_name(p): ast.parse(p.read_text(), str(p)) for p in _files(*PACKAGES)}
    own: dict[frozenset[str], set[str]] = defaultdict(set)
    for name, tree in trees.items():
        own[_unit(name)] |= _own_names(tree)
    found = []
    for name, tree in trees.items():
        unit = _unit(name)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            attr = node.attr
            if not attr.startswith("_") or attr.startswith("__") or attr in NAMEDTUPLE:
                continue
            receiver = _last_name(node.value)
            if isinstance(node.value, ast.Name) and receiver in ("self", "cls"):
                continue
            if (receiver, attr) in LIBRARY:
                continue
            mine = attr in own[unit]
            foreign = receiver in FOREIGN and not unit & {"world/world.py", "world/map/map.py"}
            if mine and not foreign:
                continue
            found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_reaches_into_another_modules_private_state() -> None:
    found = _reach_ins()
    assert not found, (
        "these read or write another module's private names; read the World's state through "
        "world.state_tables() or a named accessor of World (add one where none fits), a "
        "Map's through its public methods, or move the code into the owner's module:\n  "
        + "\n  ".join(found)
    )


def test_the_walk_sees_a_reach_in() -> None:
    # a fact of the rule, so a walk that finds nothing cannot pass the test above
    tree = ast.parse("def f(world):\n    return world._actors\n")
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.Attribute))
    assert _last_name(node.value) in FOREIGN and node.attr.startswith("_")
    assert "_actors" in _own_names(ast.parse((ROOT / "world" / "world.py").read_text()))


def test_no_state_is_stashed_in_another_objects_dict() -> None:
    found = [
        f"{_name(path)}:{node.lineno}: {ast.unparse(node)}"
        for path in _files("world")
        if _name(path) not in DICT_USERS
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Attribute) and node.attr == "__dict__"
    ]
    assert not found, (
        "state kept in an object's __dict__; declare it as an attribute of its owner (the "
        "World keeps the traffic managers and the AI walkers in its own slots):\n  "
        + "\n  ".join(found)
    )


def test_no_function_of_the_world_takes_more_than_fifteen_parameters() -> None:
    found = []
    for path in _files("world"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            a = node.args
            count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
            count += (a.vararg is not None) + (a.kwarg is not None)
            if count > MAX_PARAMETERS:
                found.append(f"{_name(path)}:{node.lineno}: {getattr(node, 'name', 'lambda')}")
    assert not found, (
        f"functions with more than {MAX_PARAMETERS} parameters; pass the arrays as a few named "
        "groups (a NamedTuple of columns, a plain tuple in its field order for a compiled "
        "entry point, or one table of their addresses, world.kernels.array_table, as "
        "world.traffic.autopilot.kernels.tick_fleet takes them):\n  " + "\n  ".join(found)
    )
