"""The results file's records, as plain dicts in the leaderboard's key order.

Dicts (not dataclasses) because a record read back from a file keeps every key it had,
in its order, and new keys land after the known ones: the file round-trips unchanged.
"""

from __future__ import annotations

from typing import Any

from runner.scoring.tables import ENTRY_ELIGIBLE, INFRACTION_KEYS, ROUTE_TIMEOUT_KEY


def new_route_record() -> dict[str, Any]:
    """A record as `create_route_data` makes it: index -1 (not yet scored), status Started."""
    infractions: dict[str, list[str]] = {key: [] for key in INFRACTION_KEYS.values()}
    infractions[ROUTE_TIMEOUT_KEY] = []
    return {
        "index": -1,
        "route_id": None,
        "status": "Started",
        "num_infractions": 0,
        "infractions": infractions,
        "scores": {"score_route": 0, "score_penalty": 0, "score_composed": 0},
        "meta": {"route_length": 0, "duration_game": 0, "duration_system": 0},
    }


def route_record_from_file(stored: dict[str, Any]) -> dict[str, Any]:
    """A record read back from a results file: the defaults, overwritten key by key."""
    record = new_route_record()
    record.update(stored)
    return record


def new_global_record() -> dict[str, Any]:
    """The global record before any route is summed in (every total an int 0)."""
    infractions: dict[str, Any] = {key: 0 for key in INFRACTION_KEYS.values()}
    infractions[ROUTE_TIMEOUT_KEY] = 0
    return {
        "index": -1,
        "route_id": -1,
        "status": "Perfect",
        "infractions": infractions,
        "scores_mean": {"score_composed": 0, "score_route": 0, "score_penalty": 0},
        "scores_std_dev": {"score_composed": 0, "score_route": 0, "score_penalty": 0},
        "meta": {"total_length": 0, "duration_game": 0, "duration_system": 0, "exceptions": []},
    }


class Results:
    """Everything results.json holds: the checkpoint (global record, progress, records),
    the entry status, the agent's sensors, and the global values with their labels."""

    def __init__(self) -> None:
        self.global_record: dict[str, Any] = {}
        self.progress: list[int] = []
        self.records: list[dict[str, Any]] = []
        self.entry_status = "Started"
        self.eligible = ENTRY_ELIGIBLE["Started"]
        self.sensors: list[str] = []
        self.values: list[str] = []
        self.labels: list[str] = []

    def to_json(self) -> dict[str, Any]:
        """The file's object; records still in progress (index -1) are left out."""
        return {
            "_checkpoint": {
                "global_record": self.global_record if self.global_record else {},
                "progress": self.progress,
                "records": [r for r in self.records if r["index"] != -1],
            },
            "entry_status": self.entry_status,
            "eligible": self.eligible,
            "sensors": self.sensors,
            "values": self.values,
            "labels": self.labels,
        }
