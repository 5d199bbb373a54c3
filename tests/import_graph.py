"""The imports between one package's modules, read from the sources: what the layout tests
walk. Every import counts, those inside functions and TYPE_CHECKING blocks too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, package: str) -> set[str]:
    """The modules of `package` a file imports (a `from p.x import name` counts as p.x.name
    when that is a module, else as p.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != package:
                continue
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                as_path = ROOT.joinpath(*candidate.split("."))
                is_module = as_path.with_suffix(".py").exists() or as_path.is_dir()
                found.add(candidate if is_module else node.module)
    return found


def arrows(package: str) -> list[tuple[str, str]]:
    """(importer, imported) for every import between the package's modules."""
    out = []
    for path in sorted((ROOT / package).rglob("*.py")):
        source = module_name(path)
        out.extend((source, target) for target in sorted(imports(path, package)))
    return out


def circles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The groups of modules that import each other round a circle (strongly connected
    components of more than one module), each sorted, in the order found."""
    graph: dict[str, list[str]] = {}
    for source, target in edges:
        if source != target:
            graph.setdefault(source, []).append(target)
            graph.setdefault(target, [])
    number: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's walk; the graphs are a few hundred modules
        number[node] = lowest[node] = len(number)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in number:
                visit(nxt)
                lowest[node] = min(lowest[node], lowest[nxt])
            elif nxt in stack:
                lowest[node] = min(lowest[node], number[nxt])
        if lowest[node] == number[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in number:
            visit(node)
    return found
