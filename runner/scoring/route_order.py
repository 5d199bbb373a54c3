"""The order routes are evaluated in, and where a resumed evaluation starts (the
leaderboard's RouteIndexer): route i of the file, repetition r, has index i * reps + r."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runner.scoring.errors import ResultsFileError


@dataclass(frozen=True)
class RouteEntry:
    """One route repetition to evaluate. `name` is the leaderboard's config name
    (RouteScenario_<id>); `route_id` is what the results file calls it."""

    index: int
    name: str
    repetition: int

    @property
    def route_id(self) -> str:
        return f"{self.name}_rep{self.repetition}"


def route_name(route_id: str) -> str:
    """The leaderboard's config name for a route id of a routes file."""
    return f"RouteScenario_{route_id}"


class RouteOrder:
    """The route repetitions in evaluation order, with a cursor (`index`) that a resume
    moves and `next_entry` advances."""

    def __init__(self, names: Sequence[str], repetitions: int) -> None:
        self.entries = [
            RouteEntry(i * repetitions + r, name, r)
            for i, name in enumerate(names)
            for r in range(repetitions)
        ]
        self.total = len(names) * repetitions
        self.index = 0

    def peek(self) -> bool:
        """Whether a route is left to run."""
        return self.index < self.total

    def next_entry(self) -> RouteEntry:
        entry = self.entries[self.index]
        self.index += 1
        return entry

    def validate_and_resume(self, data: dict[str, Any]) -> bool:
        """Move the cursor to where the checkpoint `data` stopped; False (start from
        scratch) when the checkpoint is empty, Invalid, or for another set of routes.

        The routes before progress[0] must match the stored records one for one. A record
        missing there (a route whose stop failed) moves the start back by one more route.
        A Crashed entry repeats its last route; a Rejected one does not.
        """
        if not data:
            return False
        entry_status = data.get("entry_status")
        if not entry_status or entry_status == "Invalid":
            return False
        checkpoint = data.get("_checkpoint")
        if not isinstance(checkpoint, dict) or "progress" not in checkpoint:
            return False
        progress = checkpoint["progress"]
        if not (isinstance(progress, list) and len(progress) == 2):
            raise ResultsFileError(
                f"_checkpoint.progress: expected [route index, total routes], found {progress!r}"
            )
        if progress[1] != self.total:
            return False
        stored = checkpoint.get("records") or []
        if not isinstance(stored, list) or not all(isinstance(r, dict) for r in stored):
            raise ResultsFileError("_checkpoint.records: expected a list of route records")

        check_index = 0
        resume_index = progress[0]
        while check_index < resume_index:
            if check_index >= len(stored) or check_index >= len(self.entries):
                resume_index = max(check_index - 1, 0)
                continue
            if stored[check_index].get("route_id") != self.entries[check_index].route_id:
                return False
            check_index += 1

        if entry_status == "Crashed":
            self.index = max(0, resume_index - 1)
        else:
            self.index = max(0, resume_index)
        return True
