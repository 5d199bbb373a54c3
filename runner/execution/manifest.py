"""manifest.yaml of a run directory: the resolved config, seed, lockstep version, platform, and
per route repetition its log and the agent's sensors (what `lockstep check` re-simulates from).

It holds nothing that changes between two runs of the same config on one machine (no date),
so two run directories can be compared file by file.
"""

from __future__ import annotations

import copy
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from runner.errors import CheckError

__all__ = ["MANIFEST", "ManifestWriter", "lockstep_version", "read_manifest"]

MANIFEST = "manifest.yaml"
FORMAT = "lockstep-run/1"


def lockstep_version() -> str:
    try:
        return version("lockstep")
    except PackageNotFoundError:
        return "unknown"


def _platform() -> dict[str, str]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "system": platform.system(),
        "machine": platform.machine(),
        "numpy": np.__version__,
    }


class ManifestWriter:
    """Writes and rewrites one run directory's manifest. What comes from the config is turned
    into YAML once and each route's entry once, so a rewrite after a merged route costs
    little more than writing the file (the config of a 10,000-route evaluation is megabytes
    of YAML). The text is the one yaml.safe_dump gives for the whole manifest: a block
    mapping's text is its keys' texts one after another, so long as no object appears twice
    (YAML anchors, numbered through the document); a text holding an '&' is dumped whole."""

    def __init__(self, out_dir: Path, config: Any) -> None:
        self.path = out_dir / MANIFEST
        self._head = {
            "format": FORMAT,
            "lockstep": lockstep_version(),
            "platform": _platform(),
            "seed": config.seed,
            "config": config.resolved(),
            "weathers": {r.id: _weather_fields(r.weather) for r in config.routes},
        }
        self._head_text = _dump(self._head)
        self._entries: dict[str, tuple[dict, str]] = {}

    def write(self, routes: dict[str, dict]) -> Path:
        """Writes the manifest; `routes` maps each finished route id to its entry."""
        text = self._head_text + self._routes_text(routes)
        if "&" in text:
            text = _dump({**self._head, "routes": routes})
        tmp = self.path.with_suffix(".yaml.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(self.path)
        return self.path

    def _routes_text(self, routes: dict[str, dict]) -> str:
        if not routes:
            return _dump({"routes": routes})
        return "routes:\n" + "".join(self._entry_text(k, v) for k, v in routes.items())

    def _entry_text(self, route_id: str, entry: dict) -> str:
        """One route's lines under `routes:` (dumped again only when its entry changed)."""
        cached = self._entries.get(route_id)
        if cached is None or cached[0] != entry:
            text = _dump({"routes": {route_id: entry}}).removeprefix("routes:\n")
            cached = self._entries[route_id] = (copy.deepcopy(entry), text)
        return cached[1]


def _dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def read_manifest(run_dir: Path) -> dict:
    path = run_dir / MANIFEST
    if not path.is_file():
        raise CheckError(f"{run_dir}: not a run directory (no {MANIFEST})")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckError(f"{path}: not a lockstep run manifest (format {FORMAT} expected)")
    return data


def _weather_fields(weather: Any) -> dict[str, float]:
    from world.weather import _FIELDS

    return dict(zip(_FIELDS, weather.values(), strict=True))
