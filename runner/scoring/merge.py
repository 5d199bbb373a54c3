"""Merging partial evaluations (each run on a subset of the routes) into one results file,
as the leaderboard's merge_statistics script does: records sorted by route and repetition
and renumbered, progress summed, and the global statistics only when every part finished."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runner.scoring.errors import ScoringError
from runner.scoring.manager import StatisticsManager, route_sort_key
from runner.scoring.results_file import ResultsStore


def check_duplicates(route_ids: Sequence[str]) -> None:
    """Every route repetition may appear in one part only."""
    seen: set[str] = set()
    for route_id in route_ids:
        if route_id in seen:
            raise ScoringError(f"merge: the route {route_id} has more than one record")
        seen.add(route_id)


def check_missing_data(sorted_ids: Sequence[str]) -> None:
    """No route repetition may be missing between the first and the last (the ids sorted)."""
    repetitions = 1
    previous_rep = 0
    previous_total = 0
    previous_id = ""
    for route_id in sorted_ids:
        number, rep = route_sort_key(route_id)
        if rep < previous_rep:
            repetitions = previous_rep + 1
        position = number * repetitions + rep
        if position - previous_total > 1:
            raise ScoringError(
                f"merge: some data is missing, the ids jump from {previous_id} to {route_id}"
            )
        previous_rep = rep
        previous_total = position
        previous_id = route_id


def merge_results(parts: Sequence[dict[str, Any]], names: Sequence[str], out: ResultsStore) -> str:
    """Merge the loaded results files `parts` (named `names`, for errors) into `out`.

    Returns the entry's Invalid reason ("" when valid), or "incomplete" when some part had
    not finished (then only the records are written, without global statistics).
    """
    stats = StatisticsManager(out)
    sensors: list[str] = []
    route_ids: list[str] = []
    total_routes = 0
    total_progress = 0
    for data, name in zip(parts, names, strict=True):
        if not data:
            continue
        try:
            records = data["_checkpoint"]["records"]
            progress = data["_checkpoint"]["progress"]
            part_sensors = data["sensors"]
            route_ids.extend(record["route_id"] for record in records)
            total_progress += progress[1]
        except (KeyError, IndexError, TypeError) as exc:
            raise ScoringError(f"{name}: not a leaderboard results file (missing {exc})") from None
        total_routes += len(records)
        if part_sensors:
            if not sensors:
                sensors = part_sensors
            elif part_sensors != sensors:
                raise ScoringError(f"{name}: its sensors differ from the other parts' sensors")

    route_ids.sort(key=route_sort_key)
    complete = total_progress != 0 and total_routes == total_progress
    if complete:
        check_duplicates(route_ids)
        check_missing_data(route_ids)

    for data in parts:
        stats.add_file_records(data)
    stats.sort_records()
    stats.save_sensors(sensors)
    stats.save_progress(total_routes, total_progress)
    stats.save_entry_status("Started")
    if not complete:
        stats.write_statistics()
        return "incomplete"
    stats.compute_global_statistics()
    return stats.validate_and_write_statistics(True, False)
