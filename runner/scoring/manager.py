"""The leaderboard master's statistics manager: scores one route from its criteria' events,
then the whole evaluation (means, standard deviations, infractions per km, entry status),
and writes results.json after every step, as the leaderboard does.

Arithmetic follows the leaderboard operation for operation (double precision, the same
order of multiplications and sums, Python's round), so the bytes match its files.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from runner.scoring import tables
from runner.scoring.errors import ResultsFileError, ScoringError
from runner.scoring.events import TrafficEvent, TrafficEventType
from runner.scoring.records import (
    Results,
    new_global_record,
    new_route_record,
    route_record_from_file,
)
from runner.scoring.results_file import ResultsStore
from runner.scoring.route_length import route_length


class HasEvents(Protocol):
    """A criterion as the statistics see it: its events, in the order they happened."""

    events: list[TrafficEvent]


@dataclass
class ScoredRoute:
    """What the statistics read from a running route: its dense points (for the length),
    its criteria in the leaderboard's order (route criteria, then scenario criteria), and
    whether the route's timeout fired (read when the route is scored)."""

    points: Sequence[Sequence[float]]
    criteria: Iterable[HasEvents] = ()
    timed_out: bool = False


def route_sort_key(route_id: str) -> tuple[int, int]:
    """(route number, repetition) of `RouteScenario_<n>_rep<r>`: how merges order records."""
    try:
        return int(route_id.split("_")[1]), int(route_id.split("_rep")[-1])
    except (IndexError, ValueError):
        raise ScoringError(
            f"route id {route_id!r}: expected RouteScenario_<number>_rep<number> to sort by"
        ) from None


def _percentage_factor(event: TrafficEvent) -> float:
    base, direction = tables.PERCENTAGE_PENALTIES[event.kind]
    value = (event.data or {})["percentage"]
    if direction == "decreases":
        return 1 - (1 - base) * (1 - value / 100)
    return 1 - (1 - base) * value / 100


class StatisticsManager:
    """Per-route and global statistics of one evaluation process, kept in `results` and
    written to `store` (results.json) whenever the leaderboard writes it."""

    def __init__(self, store: ResultsStore) -> None:
        self.store = store
        self.results = Results()
        self._scenario: ScoredRoute | None = None
        self._route_length: float | int = 0
        self._total_routes = 0

    # -- the file -------------------------------------------------------------------------

    def add_file_records(self, data: dict[str, Any]) -> None:
        """Append the records of a loaded results file (a resume, or one part of a merge)."""
        if not data:
            return
        records = (data.get("_checkpoint") or {}).get("records") or []
        for position, stored in enumerate(records):
            if not isinstance(stored, dict) or "index" not in stored:
                raise ResultsFileError(
                    f"{self.store.name}: _checkpoint.records[{position}]: expected a route "
                    "record object with an 'index'"
                )
            self.results.records.append(route_record_from_file(stored))

    def clear_records(self) -> None:
        """Empty the file (an evaluation that starts from scratch)."""
        self.store.clear()

    def sort_records(self) -> None:
        """Order records by route number then repetition, and renumber their indexes."""
        self.results.records.sort(key=lambda r: route_sort_key(r["route_id"]))
        for i, record in enumerate(self.results.records):
            record["index"] = i

    def write_statistics(self) -> None:
        self.store.save(self.results.to_json())

    # -- the entry ------------------------------------------------------------------------

    def save_sensors(self, sensors: Sequence[str]) -> None:
        """The agent's sensor icons (carla_camera, carla_gnss, ...)."""
        self.results.sensors = list(sensors)

    def save_entry_status(self, entry_status: str) -> None:
        if entry_status not in tables.ENTRY_ELIGIBLE:
            raise ScoringError(
                f"entry status {entry_status!r}: expected one of {list(tables.ENTRY_ELIGIBLE)}"
            )
        self.results.entry_status = entry_status
        self.results.eligible = tables.ENTRY_ELIGIBLE[entry_status]

    def save_progress(self, route_index: int, total_routes: int) -> None:
        self.results.progress = [route_index, total_routes]
        self._total_routes = total_routes

    # -- one route ------------------------------------------------------------------------

    def create_route_data(self, route_id: str, index: int) -> None:
        """A fresh record for the route about to run (replacing a resumed one)."""
        record = new_route_record()
        record["route_id"] = route_id
        if index < len(self.results.records):
            self.results.records[index] = record
        else:
            self.results.records.append(record)

    def set_scenario(self, scenario: ScoredRoute) -> None:
        """The loaded route, whose criteria are scored; its length is measured now."""
        self._scenario = scenario
        self._route_length = round(route_length(scenario.points), tables.ROUND_DIGITS)

    def remove_scenario(self) -> None:
        self._scenario = None
        self._route_length = 0

    def compute_route_statistics(
        self,
        route_index: int,
        duration_system: float = -1,
        duration_game: float = -1,
        failure_message: str = "",
    ) -> dict[str, Any]:
        """Score route `route_index` from the scenario's events; `failure_message` says why
        the route stopped from outside (agent or simulation), "" when it ran to its end."""
        record = self.results.records[route_index]
        record["index"] = route_index
        infractions = record["infractions"]
        for key in tables.INFRACTION_KEYS.values():
            infractions[key] = []

        record["meta"]["route_length"] = self._route_length
        record["meta"]["duration_game"] = round(duration_game, tables.ROUND_DIGITS)
        record["meta"]["duration_system"] = round(duration_system, tables.ROUND_DIGITS)

        target_reached = False
        score_penalty = 1.0
        score_route: float | int = 0.0
        if self._scenario is not None:
            if self._scenario.timed_out:
                infractions[tables.ROUTE_TIMEOUT_KEY].append(tables.ROUTE_TIMEOUT_MESSAGE)
                failure_message = tables.ROUTE_TIMED_OUT
            for criterion in self._scenario.criteria:
                for event in criterion.events:
                    kind = event.kind
                    if kind in tables.PENALTY_FACTORS:
                        score_penalty *= tables.PENALTY_FACTORS[kind]
                    elif kind in tables.PERCENTAGE_PENALTIES:
                        score_penalty *= _percentage_factor(event)
                    elif kind is TrafficEventType.ROUTE_DEVIATION:
                        failure_message = tables.ROUTE_DEVIATED
                    elif kind is TrafficEventType.VEHICLE_BLOCKED:
                        failure_message = tables.AGENT_BLOCKED
                    elif kind is TrafficEventType.ROUTE_COMPLETION:
                        score_route = (event.data or {})["route_completed"]
                        target_reached = score_route >= 100
                        continue
                    else:
                        continue
                    infractions[tables.INFRACTION_KEYS[kind]].append(event.message)

        scores = record["scores"]
        scores["score_route"] = round(score_route, tables.ROUND_DIGITS_SCORE)
        scores["score_penalty"] = round(score_penalty, tables.ROUND_DIGITS_SCORE)
        scores["score_composed"] = round(
            max(score_route * score_penalty, 0.0), tables.ROUND_DIGITS_SCORE
        )
        record["num_infractions"] = sum(len(messages) for messages in infractions.values())

        if target_reached:
            record["status"] = "Completed" if record["num_infractions"] > 0 else "Perfect"
        else:
            record["status"] = "Failed"
            if failure_message:
                record["status"] += " - " + failure_message
        return record

    # -- the evaluation -------------------------------------------------------------------

    def compute_global_statistics(self) -> None:
        """Means, standard deviations, infractions per km driven, global and entry status."""
        total = self._total_routes
        records = self.results.records
        glob = new_global_record()
        means = glob["scores_mean"]
        meta = glob["meta"]
        status = glob["status"]

        for record in records:
            for key in ("score_route", "score_penalty", "score_composed"):
                means[key] += record["scores"][key] / total
            meta["total_length"] += record["meta"]["route_length"]
            meta["duration_game"] += record["meta"]["duration_game"]
            meta["duration_system"] += record["meta"]["duration_system"]
            route_status = "Failed" if "Failed" in record["status"] else record["status"]
            if route_status == "Failed":
                meta["exceptions"].append([record["route_id"], record["index"], record["status"]])
                status = route_status
            elif status == "Perfect" and route_status != "Perfect":
                status = route_status

        for key in means:
            means[key] = round(means[key], tables.ROUND_DIGITS_SCORE)
        glob["status"] = status

        std = glob["scores_std_dev"]
        if total == 1:
            for key in std:
                std[key] = 0
        else:
            for record in records:
                for key in std:
                    deviation = record["scores"][key] - means[key]
                    std[key] += deviation * deviation  # pow(d, 2), exactly
            for key in std:
                std[key] = round(math.sqrt(std[key] / float(total - 1)), tables.ROUND_DIGITS)

        counts = glob["infractions"]
        km_driven: float | int = 0
        for record in records:
            km_driven += (
                record["meta"]["route_length"] / 1000 * record["scores"]["score_route"] / 100
            )
            for key in counts:
                counts[key] += _infraction_amount(record, key)
        km_driven = max(km_driven, 0.001)
        for key in counts:
            if key != tables.OUTSIDE_LANES_KEY:
                counts[key] /= km_driven
            counts[key] = round(counts[key], tables.ROUND_DIGITS)

        self.results.global_record = glob
        self.results.values = [str(_dig(glob, path)) for path, _ in tables.VALUE_ROWS]
        self.results.labels = [label for _, label in tables.VALUE_ROWS]

        entry_status = "Finished"
        for record in records:
            if "Simulation crashed" in record["status"]:
                entry_status = "Crashed"
            elif "Agent's sensors were invalid" in record["status"]:
                entry_status = "Rejected"
        self.save_entry_status(entry_status)

    def validation_error(self, sensors_initialized: bool, crashed: bool) -> str:
        """Why the results are badly formed, "" when they are sound."""
        results = self.results
        if sensors_initialized and not results.sensors:
            return "Missing 'sensors' data"
        if not results.values:
            return "Missing 'values' data"
        if results.entry_status == "Started":
            return "'entry_status' has the 'Started' value"
        progress = results.progress
        if not results.global_record:
            return "Missing 'global_records' data"
        if not progress:
            return "Missing 'progress' data"
        if not crashed and (progress[0] != progress[1] or progress[0] != len(results.records)):
            return "'progress' data doesn't match its expected value"
        if any(record["status"] == "Started" for record in results.records):
            return "Found a route record with missing data"
        return ""

    def validate_and_write_statistics(self, sensors_initialized: bool, crashed: bool) -> str:
        """Mark the entry Invalid if the results are badly formed, then write them; returns
        the reason ("" when valid)."""
        error = self.validation_error(sensors_initialized, crashed)
        if error:
            self.save_entry_status("Invalid")
        self.write_statistics()
        return error


def _infraction_amount(record: dict[str, Any], key: str) -> float | int:
    """A record's count for `key`; for outside route lanes, the km driven outside them,
    read from word 8 of the first message (the metres, rounded to 3 decimals)."""
    messages = record["infractions"][key]
    if key == tables.OUTSIDE_LANES_KEY:
        if not messages:
            return 0.0
        return float(messages[0].split(" ")[8]) / 1000
    return len(messages)


def _dig(data: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        data = data[part]
    return data
