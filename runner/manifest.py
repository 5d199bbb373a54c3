"""manifest.yaml of a run directory: the resolved config, seed, lockstep version, platform, and
per route repetition its log and the agent's sensors (what `lockstep check` re-simulates from).

It holds nothing that changes between two runs of the same config on one machine (no date),
so two run directories can be compared file by file.
"""

from __future__ import annotations

import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from runner.errors import CheckError

__all__ = ["MANIFEST", "lockstep_version", "read_manifest", "write_manifest"]

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


def write_manifest(out_dir: Path, config: Any, routes: dict[str, dict]) -> Path:
    """Writes (or rewrites) the manifest; `routes` maps each finished route id to its entry."""
    data = {
        "format": FORMAT,
        "lockstep": lockstep_version(),
        "platform": _platform(),
        "seed": config.seed,
        "config": config.resolved(),
        "weathers": {r.id: _weather_fields(r.weather) for r in config.routes},
        "routes": routes,
    }
    path = out_dir / MANIFEST
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    tmp.replace(path)
    return path


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
