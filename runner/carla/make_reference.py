"""Writes runner/carla/reference.py from a CARLA PythonAPI folder: the names and call
signatures of CARLA's Python API, as facts (no text of CARLA's is copied).

`python -m runner.carla.make_reference PYTHONAPI_DIR > runner/carla/reference.py`, where
PYTHONAPI_DIR is CARLA 0.9.16's `PythonAPI` (its `docs/*.yml` API description and the
`carla/source/libcarla/*.cpp` Boost.Python bindings). Two sources, because they differ:
the description names each class's members and their documented defaults; the bindings
hold the keyword names a call really accepts (`apply_batch_sync(commands, do_tick=False)`
where the description says `due_tick_cue`), the overloads, and the deprecated names CARLA
still binds (`WorldSnapshot.frame_count`). A signature is a tuple of parameters written as
in Python, `"name"` or `"name=default"`; a default that is not a plain literal is kept as
the binding's C++ expression in angle brackets.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path

import yaml

__all__ = ["Binding", "read_bindings", "read_description", "render"]

_DUNDER_KEPT = {"__init__"}


class Binding:
    """What one Boost.Python class_ or enum_ block binds."""

    def __init__(self, name: str, is_enum: bool) -> None:
        self.name = name
        self.is_enum = is_enum
        self.members: list[str] = []
        self.signatures: dict[str, list[tuple[str, ...]]] = {}

    def add(self, member: str, params: tuple[str, ...] | None) -> None:
        if member not in self.members:
            self.members.append(member)
        if params is not None and params not in self.signatures.setdefault(member, []):
            self.signatures[member].append(params)


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _balanced(text: str, start: int) -> int:
    """The index just past the parenthesis closing the one at `start`."""
    depth, i, quoted = 0, start, False
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced parenthesis at {start}")


def _split_top(text: str) -> list[str]:
    """`text` cut at its commas outside brackets, template arguments and strings (a `<`
    opens template arguments only right after a name; `->` closes nothing)."""
    parts, depth, quoted, current = [], 0, False, []
    for i, ch in enumerate(text):
        if quoted:
            current.append(ch)
            if ch == '"' and text[i - 1] != "\\":
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in "({[" or (ch == "<" and i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            depth += 1
        elif ch in ")}]" or (ch == ">" and text[i - 1] != "-" and depth > 0):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def _expand_macros(text: str) -> str:
    """Replaces uses of the `#define`s whose bodies hold `arg(` lists by those bodies, and
    of numeric constants by their numbers."""
    for found in re.finditer(r"#define\s+(\w+)[ \t]+(-?\d+)[ \t]*\n", text):
        text = re.sub(rf"\b{found.group(1)}\b(?!\s+-?\d)", found.group(2), text)
    macros = {}
    for found in re.finditer(r"#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)", text):
        body = found.group(3).replace("\\\n", "\n")
        if "arg(" in body:
            macros[found.group(1)] = body
    text = re.sub(r"#define[^\n]*(?:\\\n[^\n]*)*", "", text)
    for name, body in macros.items():
        while (at := text.find(name + "(")) >= 0:
            end = _balanced(text, at + len(name))
            text = text[:at] + body + text[end:]
    return text


def _literal(expr: str) -> str:
    """A C++ default as Python text: literals converted, anything else in angle brackets."""
    expr = " ".join(expr.split())
    if expr in ("true", "false"):
        return "True" if expr == "true" else "False"
    number = re.fullmatch(r"(-?\d+(?:\.\d*)?(?:[eE]-?\d+)?)[fFuU]?", expr)
    if number:
        return number.group(1)
    if re.fullmatch(r'"[^"]*"', expr):
        return repr(expr[1:-1])
    if expr in ("object()", "boost::python::object()", "bp::object()", "nullptr") or re.fullmatch(
        r"(carla::)?SharedPtr<[^>]*>\(\)", expr
    ):
        return "None"
    if expr == "std::string()":
        return "''"
    return f"<{expr}>"


def _params(args_text: str) -> tuple[str, ...] | None:
    """The parameters of an `arg("x")=d, ...` list, or None when there is none."""
    if "arg(" not in args_text and "args(" not in args_text:
        return None
    out = []
    for item in re.finditer(r'args?\("(\w+)"\)\s*(?:=\s*)?', args_text):
        rest = args_text[item.end() :]
        name = item.group(1)
        if item.group(0).rstrip().endswith("="):
            value = (_split_top(rest)[0] if rest else "").strip()
            while value.count(")") > value.count("("):  # the list's own closing parenthesis
                value = value[: value.rindex(")")].strip()
            out.append(f"{name}={_literal(value)}")
        else:
            out.append(name)
    return tuple(out)


def _arg_tuple(parts: list[str]) -> tuple[str, ...] | None:
    """The keyword list of a `.def`: its `(arg(..), ..)` part, or its separate `arg(..)`
    parts taken together."""
    lists = [p for p in parts if p.lstrip("( \n\t").startswith(("arg(", "args("))]
    if not lists:
        return ()
    return _params(", ".join(lists))


def _blocks(text: str) -> Iterator[tuple[str, bool, str]]:
    """(name, is_enum, body) of each class_ / enum_ block."""
    for found in re.finditer(r"\b(class_|enum_)<", text):
        at = found.end()
        depth = 1
        while depth:
            depth += {"<": 1, ">": -1}.get(text[at], 0)
            at += 1
        name_match = re.match(r'\s*\(\s*"(\w+)"', text[at:])
        if not name_match:
            continue
        end = text.find(";", at)
        while text[at:end].count("(") != text[at:end].count(")"):
            end = text.find(";", end + 1)
        yield name_match.group(1), found.group(1) == "enum_", text[at:end]


def read_bindings(source: Path) -> dict[str, Binding]:
    """Every class and enum the bindings in `source` (libcarla/*.cpp) define."""
    out: dict[str, Binding] = {}
    for path in sorted(source.glob("*.cpp")):
        text = _expand_macros(_strip_comments(path.read_text(encoding="utf-8")))
        for name, is_enum, body in _blocks(text):
            binding = out.setdefault(name, Binding(name, is_enum))
            head_end = _balanced(body, body.index("("))
            for init in re.finditer(r"\binit<", body[:head_end]):
                paren = body.find("(", init.end() + body[init.end() :].find(">"))
                if paren >= 0:
                    binding.add("__init__", _params(body[paren : _balanced(body, paren)]) or ())
            for call in re.finditer(
                r"\.(def|add_property|def_readwrite|def_readonly|value|def_property)\s*\(",
                body[head_end:],
            ):
                at = head_end + call.end() - 1
                parts = _split_top(body[at + 1 : _balanced(body, at) - 1])
                if not parts:
                    continue
                if parts[0].startswith("init<"):
                    paren = parts[0].find("(", parts[0].find(">"))
                    params = _params(parts[0][paren:]) if paren >= 0 else ()
                    binding.add("__init__", params or ())
                    continue
                member = re.fullmatch(r'"(\w+)"', parts[0])
                if not member:
                    continue
                kind = call.group(1)
                if kind == "def":
                    binding.add(member.group(1), _arg_tuple(parts[1:]))
                else:
                    binding.add(member.group(1), None)
    return out


Description = dict[str, dict[str, dict[str, tuple[str, ...] | None]]]


def read_description(docs: Path) -> tuple[Description, dict[str, str]]:
    """{module: {class: {member: documented parameters (None for a variable)}}}, and each
    class's documented parent class."""
    out: Description = {}
    parents: dict[str, str] = {}
    for path in sorted(docs.glob("*.yml")):
        for module in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            classes = out.setdefault(module["module_name"], {})
            for cls in module.get("classes") or []:
                if isinstance(cls.get("parent"), str):
                    parents[cls["class_name"]] = cls["parent"].rsplit(".", 1)[-1]
                members = classes.setdefault(cls["class_name"], {})
                for var in cls.get("instance_variables") or []:
                    members[var["var_name"]] = None
                for method in cls.get("methods") or []:
                    params = []
                    for p in method.get("params") or []:
                        default = p.get("default")
                        params.append(
                            p["param_name"] if default is None else f"{p['param_name']}={default}"
                        )
                    members[method["def_name"]] = tuple(params)
    return out, parents


def _is_enum(members: dict[str, tuple[str, ...] | None]) -> bool:
    """A described class of constants only (LandmarkType is bound as a class of them)."""
    return bool(members) and all(p is None and m[:1].isupper() for m, p in members.items())


def _public(member: str) -> bool:
    return not member.startswith("_") or member in _DUNDER_KEPT


def render(python_api: Path) -> str:
    """reference.py's text."""
    bindings = read_bindings(python_api / "carla" / "source" / "libcarla")
    described, parents = read_description(python_api / "docs")
    api: dict[str, list[str]] = {}
    commands: dict[str, list[str]] = {}
    enums: set[str] = {name for name, b in bindings.items() if b.is_enum}
    enums |= {n for classes in described.values() for n, m in classes.items() if _is_enum(m)}
    every = {n: m for classes in described.values() for n, m in classes.items()}

    def inherited(class_name: str) -> list[str]:
        parent = parents.get(class_name)
        if parent is None or parent not in every:
            return []
        return inherited(parent) + [m for m in every[parent] if _public(m) and m != "__init__"]

    undescribed: dict[str, list[str]] = {}
    signatures: dict[str, list[tuple[str, ...]]] = {}
    documented: dict[str, tuple[str, ...]] = {}
    for module, classes in described.items():
        target = commands if module.endswith("command") else api
        for class_name, members in classes.items():
            if class_name in enums:
                continue
            names = [m for m in members if _public(m) and m != "__init__"]
            names = [m for m in inherited(class_name) if m not in names] + names
            binding = bindings.get(class_name)
            if binding is not None:
                extra = [
                    m for m in binding.members if _public(m) and m != "__init__" and m not in names
                ]
                if extra:
                    undescribed[class_name] = extra
                for member, overloads in binding.signatures.items():
                    named = overloads
                    if _public(member):
                        signatures[f"{class_name}.{member}"] = named
            target[class_name] = names
            for member, params in members.items():
                if params is not None and _public(member):
                    documented[f"{class_name}.{member}"] = params
    lines = [
        '"""The names and call signatures of CARLA 0.9.16\'s Python API (carla, carla.command).',
        "",
        "Generated by `python -m runner.carla.make_reference PYTHONAPI_DIR` from CARLA's",
        "PythonAPI (docs/*.yml and the Boost.Python bindings): do not edit by hand.",
        "",
        "CARLA_API, COMMAND_API: each class's members (methods and properties) as described;",
        "UNDESCRIBED: the names CARLA's bindings give beside them (the deprecated ones, as",
        "WorldSnapshot.frame_count, and a few undocumented); ENUMS: the enumerations;",
        "SIGNATURES: each bound call's parameters, one tuple per overload, as the bindings",
        "accept them by keyword; DOCUMENTED: the parameters as the description writes them",
        "(names that differ from the bindings' are the description's). A parameter is",
        '`"name"` or `"name=default"`; a default in angle brackets is the C++ expression.',
        '"""',
        "",
        "# ruff: noqa: E501  (generated: a C++ default is kept whole)",
        "",
        "from __future__ import annotations",
        "",
        "__all__ = [",
        '    "CARLA_API",',
        '    "COMMAND_API",',
        '    "DOCUMENTED",',
        '    "ENUMS",',
        '    "SIGNATURES",',
        '    "UNDESCRIBED",',
        "]",
        "",
    ]

    def table(name: str, kind: str, items: dict) -> None:
        lines.append(f"{name}: {kind} = {{")
        for key in sorted(items):
            lines.append(f"    {key!r}: {tuple(items[key])!r},")
        lines.append("}")
        lines.append("")

    table("CARLA_API", "dict[str, tuple[str, ...]]", api)
    table("COMMAND_API", "dict[str, tuple[str, ...]]", commands)
    table("UNDESCRIBED", "dict[str, tuple[str, ...]]", undescribed)
    lines.append(f"ENUMS: tuple[str, ...] = {tuple(sorted(enums))!r}")
    lines.append("")
    table(
        "SIGNATURES",
        "dict[str, tuple[tuple[str, ...], ...]]",
        {k: tuple(v) for k, v in signatures.items()},
    )
    table("DOCUMENTED", "dict[str, tuple[str, ...]]", documented)
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m runner.carla.make_reference PYTHONAPI_DIR")
    sys.stdout.write(render(Path(sys.argv[1])))
