"""One evaluation process, in the leaderboard evaluator's call order: resume or start over,
then per route: record created, route loaded, agent set up, route scored, progress saved;
at the end the global statistics, unless a crash stopped the evaluation.

The runner's evaluation drives this class; the golden specs drive it too, so the files the
runner writes are the files the leaderboard writes for the same outcomes.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from runner.scoring import tables
from runner.scoring.errors import ResultsFileError
from runner.scoring.manager import ScoredRoute, StatisticsManager
from runner.scoring.results_file import ResultsStore
from runner.scoring.route_order import RouteEntry, RouteOrder


class Failure(enum.Enum):
    """How a route ended, from outside its criteria (the evaluator's code paths)."""

    NONE = "none"  # ran to its end (the criteria tell how it went)
    AGENT_RUNTIME = "agent_runtime"  # the agent raised while driving
    AGENT_SETUP = "agent_init"  # the agent could not be set up
    SENSORS_INVALID = "sensors_invalid"  # the agent's sensors break the track's rules
    SCENARIO_LOAD = "scenario_load"  # the world or the route could not be loaded
    SIMULATION_RUNTIME = "simulation_runtime"  # the simulation raised while running
    STOP_FAILED = "stop_failed"  # stopping the route raised: nothing is scored


# failure -> (entry status, failure message, whether the evaluation stops)
FAILURE_OUTCOMES: dict[Failure, tuple[str, str, bool]] = {
    Failure.NONE: ("Started", "", False),
    Failure.AGENT_RUNTIME: (*tables.AGENT_CRASHED, False),
    Failure.AGENT_SETUP: (*tables.AGENT_SETUP_FAILED, False),
    Failure.SENSORS_INVALID: (*tables.SENSORS_INVALID, True),
    Failure.SCENARIO_LOAD: (*tables.SIMULATION_CRASHED, True),
    Failure.SIMULATION_RUNTIME: (*tables.SIMULATION_CRASHED, True),
}


class EvaluationSession:
    """The statistics side of one evaluation process over `route_names` (the routes
    file's routes in file order, each `RouteScenario_<id>`) x `repetitions`."""

    def __init__(
        self,
        store: ResultsStore,
        route_names: Sequence[str],
        repetitions: int,
        resume: bool = False,
    ) -> None:
        self.stats = StatisticsManager(store)
        self.order = RouteOrder(route_names, repetitions)
        self.resumed = False
        if resume:
            try:
                self.resumed = self.order.validate_and_resume(store.load())
            except ResultsFileError as exc:
                raise ResultsFileError(f"{store.name}: {exc}") from None
        if self.resumed:
            self.stats.add_file_records(store.load())
        else:
            self.stats.clear_records()
        self.stats.save_progress(self.order.index, self.order.total)
        self.stats.write_statistics()
        self.crashed = False
        self.sensors_initialized = False
        self._sensors_saved = False
        self._scenario_set = False

    def next_route(self) -> RouteEntry | None:
        """The next route to run, None when all ran or a crash stopped the evaluation."""
        if self.crashed or not self.order.peek():
            return None
        entry = self.order.next_entry()
        self.stats.create_route_data(entry.route_id, entry.index)
        return entry

    def route_loaded(self, route: ScoredRoute) -> None:
        """The route's world and scenario are built; its criteria will be scored."""
        self.stats.set_scenario(route)
        self._scenario_set = True

    def agent_ready(self, sensor_icons: Sequence[str]) -> None:
        """The agent was set up and its sensors validated. The first time in a process
        (or while the list is still empty) the icons are saved and the file written."""
        if self._sensors_saved:
            return
        self._sensors_saved = bool(sensor_icons)
        self.stats.save_sensors(sensor_icons)
        self.stats.write_statistics()
        self.sensors_initialized = True

    def route_finished(
        self,
        entry: RouteEntry,
        failure: Failure = Failure.NONE,
        duration_system: float = 0.0,
        duration_game: float = 0.0,
        exception: dict | None = None,
    ) -> dict | None:
        """Score the route (unless its stop failed), save the progress, write the file.
        `exception` (what raised, its message and traceback) goes into the record's
        `meta.exception`, a key the leaderboard's readers ignore. Returns the route's
        record, None when nothing was scored."""
        record = None
        if failure is Failure.STOP_FAILED:
            self.crashed = True
        else:
            entry_status, message, stops = FAILURE_OUTCOMES[failure]
            self.stats.save_entry_status(entry_status)
            record = self.stats.compute_route_statistics(
                entry.index, duration_system, duration_game, message
            )
            if exception is not None:
                record["meta"]["exception"] = exception
            if self._scenario_set:
                self.stats.remove_scenario()
                self._scenario_set = False
            self.crashed = stops
        self.stats.save_progress(self.order.index, self.order.total)
        self.stats.write_statistics()
        return record

    def finish(self) -> str | None:
        """The global statistics and the final write, unless the evaluation crashed.
        Returns why the entry is Invalid ("" if valid), None when nothing was computed."""
        if self.crashed:
            return None
        self.stats.compute_global_statistics()
        return self.stats.validate_and_write_statistics(self.sensors_initialized, False)
