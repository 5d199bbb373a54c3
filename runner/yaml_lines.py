"""YAML read with the line of every key: plain data plus a table of key path -> line.

PyYAML's safe loader builds the node tree (safe tags only); each scalar is
turned into its value by the same safe constructor `yaml.safe_load` uses, and
the line of each node is kept by its path (("routes", 0, "id") -> 12), so a
config error can name the file, the line and the key path. Duplicate keys,
which `yaml.safe_load` silently lets the last one win, are errors here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from runner.errors import ConfigError

__all__ = ["KeyPath", "LinedYaml", "format_path", "load_lined_yaml"]

KeyPath = tuple[str | int, ...]


def format_path(path: KeyPath) -> str:
    """("routes", 0, "id") -> "routes[0].id"."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top)"


class LinedYaml:
    """A YAML document's data and the 1-based line of each key path."""

    def __init__(self, path: Path, data: Any, lines: dict[KeyPath, int]) -> None:
        self.path = path
        self.data = data
        self.lines = lines

    def line(self, key: KeyPath) -> int:
        """The line of `key`, or of its nearest ancestor that has one."""
        while key not in self.lines and key:
            key = key[:-1]
        return self.lines.get(key, 1)

    def error(self, key: KeyPath, message: str) -> ConfigError:
        return ConfigError(f"{self.path}:{self.line(key)}: {format_path(key)}: {message}")


def load_lined_yaml(path: str | Path) -> LinedYaml:
    """Reads one YAML document from `path` (ConfigError on a syntax error or duplicate key)."""
    path = Path(path)
    if path.is_dir():
        raise ConfigError(f"{path}: a folder, expected a YAML config file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        lines: dict[KeyPath, int] = {}
        data = _build(loader, node, (), lines, path) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        what = exc.problem or exc.context or "bad YAML"
        raise ConfigError(f"{path}:{line}: YAML syntax: {what}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}:1: YAML: {exc}") from None
    finally:
        loader.dispose()
    return LinedYaml(path, data, lines)


def _build(loader: yaml.SafeLoader, node: Any, key: KeyPath, lines: dict, path: Path) -> Any:
    lines[key] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            name = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if not isinstance(name, str):
                raise ConfigError(
                    f"{path}:{line}: {format_path(key)}: keys must be text, found {name!r}"
                )
            if name in out:
                raise ConfigError(
                    f"{path}:{line}: {format_path((*key, name))}: duplicate key "
                    f"(first on line {lines[(*key, name)]})"
                )
            out[name] = _build(loader, value_node, (*key, name), lines, path)
            lines[(*key, name)] = line
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, (*key, i), lines, path) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)
