"""Configs for the runner suites: short routes on town_small, written to a temporary folder."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
TOWN = REPO / "configs" / "maps" / "town_small.xodr"
# 40 m east on the top road, then 40 m east past the middle junction: quick routes
SHORT_ROUTES = [
    {"id": 0, "waypoints": [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]]},
    {"id": 1, "waypoints": [[120.0, 1.75, 0.0], [160.0, 1.75, 0.0]]},
]


def write_config(folder: Path, name: str = "short", **overrides) -> Path:
    data = {
        "name": name,
        "seed": 11,
        "map": str(TOWN),
        "tick": 0.05,
        "agent": {"entry": "runner.agents.autopilot"},
        "traffic": {"vehicles": 6},
        "routes": SHORT_ROUTES,
    }
    data.update(overrides)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def results_without_wall_times(path: Path) -> dict:
    """results.json with the wall-clock durations (the one thing allowed to differ) removed."""
    data = json.loads(path.read_text(encoding="utf-8"))
    checkpoint = data["_checkpoint"]
    for record in [*checkpoint["records"], checkpoint["global_record"]]:
        record["meta"].pop("duration_system", None)
    return data


def manifest_less_output(path: Path) -> tuple[str, str]:
    """A manifest's text without its `output:` line (the run directory it was written to,
    which differs between two run directories), and that line."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    (output,) = [line for line in lines if line.startswith("  output: ")]
    return "".join(line for line in lines if line is not output), output
