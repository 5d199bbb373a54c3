"""The evaluation's driver: hands the route repetitions to a scheduler as tasks, takes the
results back in any order, and merges them into results.json and the manifest in the
evaluation's order, exactly as a run of one route after another would have.

The driver alone owns the EvaluationSession. For each route, in order, it feeds the
session the task's route result (the route loaded, the agent ready, the route finished,
as the leaderboard's evaluator calls them), so results.json is the same bytes whichever
scheduler ran the tasks (less the wall-clock durations). A task that finishes ahead of
its turn waits in the run directory's task checkpoint (runner.execution.checkpoint), so a
killed driver resumes with every finished task; the checkpoint goes once the evaluation
ends.

A route whose failure ends the evaluation (the simulation crashed, the sensors were
refused) ends it here too: tasks still running are cancelled and later routes are not
merged, as the leaderboard would never have started them.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runner.config import Config
from runner.execution.checkpoint import PacedResultsFile, Pacer, TaskStore
from runner.execution.manifest import MANIFEST, ManifestWriter, read_manifest
from runner.execution.scheduling import InlineScheduler, Scheduler
from runner.execution.tasks import RouteTask, crashed_result
from runner.route import RouteResult
from runner.scoring.events import TrafficEvent, TrafficEventType
from runner.statistics import EvaluationSession, Failure, RouteEntry, ScoredRoute, route_name

__all__ = ["TaskCounts", "evaluate", "longest_first"]


@dataclass
class TaskCounts:
    """Progress over all the evaluation's tasks; `failed` counts routes that failed from
    outside their criteria (agent or simulation crash, refused sensors, a dead worker)."""

    total: int
    done: int = 0
    running: int = 0
    failed: int = 0
    resumed: int = 0  # done before this process started
    started: float = 0.0  # perf_counter when the first task was handed out

    def eta_seconds(self) -> float | None:
        ran = self.done - self.resumed
        if ran <= 0:
            return None
        return (time.perf_counter() - self.started) / ran * (self.total - self.done)


ProgressFn = Callable[[TaskCounts], None]


def evaluate(
    config: Config,
    out_dir: Path,
    *,
    scheduler: Scheduler | None = None,
    resume: bool = False,
    on_progress: ProgressFn | None = None,
    on_route: Callable[[RouteResult], None] | None = None,
) -> list[RouteResult]:
    """Runs the whole config into `out_dir` (results.json, logs, manifest.yaml): each route
    repetition a task run by `scheduler` (default: one after another in this process);
    returns the results merged, in route order."""
    scheduler = scheduler or InlineScheduler()
    out_dir.mkdir(parents=True, exist_ok=True)
    results = PacedResultsFile(config.results_path(out_dir))
    crashed_before = resume and results.load().get("entry_status") == "Crashed"
    names = [route_name(r.id) for r in config.routes]
    session = EvaluationSession(results, names, config.repetitions, resume=resume)
    store = TaskStore(out_dir)
    routes_meta: dict[str, dict] = {}
    if session.resumed:
        if (out_dir / MANIFEST).is_file():
            routes_meta = dict(read_manifest(out_dir).get("routes") or {})
        for entry in session.order.entries[: session.order.index]:  # the manifest may lag
            merged = store.load(entry.route_id)
            if merged is not None and not merged.worker_died:
                routes_meta[entry.route_id] = _route_meta(config, entry, merged)
    else:
        store.clear()
    manifest = ManifestWriter(out_dir, config)
    manifest.write(routes_meta)

    order = session.order.entries[session.order.index :]
    if crashed_before and order:
        store.discard(order[0].route_id)  # a crashed route runs again, as the leaderboard's
    waiting: dict[str, RouteResult] = {}
    for entry in order:
        stored = store.load(entry.route_id)
        if stored is not None:
            waiting[entry.route_id] = stored
    counts = TaskCounts(len(session.order.entries), done=session.order.index + len(waiting))
    counts.resumed = counts.done
    counts.failed = sum(r.failure is not Failure.NONE for r in waiting.values())
    tasks = [_task(config, e, store, scheduler) for e in order if e.route_id not in waiting]
    if scheduler.parallel:
        tasks = longest_first(tasks)

    merged: list[RouteResult] = []
    merge = _Merger(config, session, manifest, routes_meta, merged, on_route)
    merge.ready(order, waiting)
    counts.started = time.perf_counter()
    if on_progress is not None:
        on_progress(counts)
    try:
        if not session.crashed and tasks:
            _run(scheduler, tasks, store, waiting, counts, merge, order, on_progress)
    finally:
        results.flush()
        merge.write_manifest()
    if merge.position == len(order) or session.crashed:
        for entry in order[merge.position :]:  # run ahead of a crash: never merged
            store.final_log(entry.route_id).unlink(missing_ok=True)
        session.finish()
        results.flush()
        store.clear()
    return merged


def _run(
    scheduler: Scheduler,
    tasks: list[RouteTask],
    store: TaskStore,
    waiting: dict[str, RouteResult],
    counts: TaskCounts,
    merge: _Merger,
    order: list[RouteEntry],
    on_progress: ProgressFn | None,
) -> None:
    """Hands `tasks` to the scheduler; checkpoints and merges each as it finishes."""
    session = merge.session
    finished = scheduler.run(tasks)
    try:
        for done in finished:
            result = _result(done.task, done.payload, done.died)
            read_back = done.died is None and done.payload is not None  # its text is the payload
            store.finished(result, done.log, done.payload if read_back else None)
            waiting[result.route_id] = result
            counts.done += 1
            counts.failed += result.failure is not Failure.NONE
            counts.running = scheduler.running
            if on_progress is not None:
                on_progress(counts)
            merge.ready(order, waiting)
            if session.crashed:
                break
    finally:
        finished.close()  # cancels what is still running


def longest_first(tasks: list[RouteTask]) -> list[RouteTask]:
    """The tasks in the order workers should take them: the longest routes (by their key
    points' polyline) first, ties in evaluation order, so a long route does not start last
    and run alone at the end. Results still merge in evaluation order."""

    def length(task: RouteTask) -> float:
        points = task.config.routes[task.route_index].definition.points
        return sum(
            math.sqrt(sum((p - q) * (p - q) for p, q in zip(a, b, strict=True)))
            for a, b in itertools.pairwise(points)
        )

    return sorted(tasks, key=lambda task: -length(task))


def _task(config: Config, entry: RouteEntry, store: TaskStore, scheduler: Scheduler) -> RouteTask:
    log_path = store.inflight_log(entry.route_id) if scheduler.wants_log_paths else None
    return RouteTask(config, entry, entry.index // config.repetitions, log_path)


def _route_meta(config: Config, entry: RouteEntry, result: RouteResult) -> dict:
    """The manifest's entry for a merged route: what `lockstep check` re-simulates from."""
    return {
        "route": config.routes[entry.index // config.repetitions].id,
        "repetition": entry.repetition,
        "log": f"{entry.route_id}.log",
        "sensors": result.sensors,
        "failure": result.failure.value,
        "ticks": result.ticks,
        "loop_ticks": result.loop_ticks,
    }


def _result(task: RouteTask, payload: bytes | None, died: str | None) -> RouteResult:
    if died is not None or payload is None:
        return crashed_result(task, died or "the task returned nothing")
    return RouteResult.from_json(payload)


@dataclass
class _CriterionEvents:
    """A criterion as the statistics read it: its events."""

    events: list[TrafficEvent]


def _scored_route(result: RouteResult) -> ScoredRoute:
    """The route as the session scores it, from the result's plain data."""
    criteria = [
        _CriterionEvents(
            [
                TrafficEvent(TrafficEventType[e["kind"]], e["frame"], e["message"], e["data"])
                for e in events
            ]
        )
        for events in result.criteria
    ]
    return ScoredRoute(result.points, criteria, result.timed_out)


class _Merger:
    """Feeds finished tasks to the session in evaluation order; `position` is how many of
    the remaining routes have been merged."""

    def __init__(
        self,
        config: Config,
        session: EvaluationSession,
        manifest: ManifestWriter,
        routes_meta: dict[str, dict],
        merged: list[RouteResult],
        on_route: Callable[[RouteResult], None] | None,
    ) -> None:
        self.config, self.session = config, session
        self.manifest = manifest
        self.routes_meta, self.merged, self.on_route = routes_meta, merged, on_route
        self.position = 0
        self.pacer = Pacer()
        self._manifest_pending = False

    def ready(self, order: list[RouteEntry], waiting: dict[str, RouteResult]) -> None:
        """Merges every route whose turn has come and whose result is in."""
        while self.position < len(order) and not self.session.crashed:
            result = waiting.get(order[self.position].route_id)
            if result is None:
                return
            self._merge(result)
            self.position += 1

    def write_manifest(self) -> None:
        """Rewrites the manifest if a merged route is not in it yet."""
        if self._manifest_pending:
            began = time.perf_counter()
            self.manifest.write(self.routes_meta)
            self.pacer.wrote(began)
            self._manifest_pending = False

    def _merge(self, result: RouteResult) -> None:
        session, config = self.session, self.config
        entry = session.next_route()
        if entry is None or entry.route_id != result.route_id:
            raise RuntimeError(f"merge order: expected {result.route_id}, session gave {entry}")
        if result.scored:
            session.route_loaded(_scored_route(result))
        if result.sensor_icons is not None:
            session.agent_ready(result.sensor_icons)
        exception = None
        if result.failure is not Failure.NONE:
            exception = {
                "failure": result.failure.value,
                "message": result.message,
                "traceback": result.traceback,
            }
        session.route_finished(
            entry, result.failure, result.wall_seconds, result.game_seconds, exception
        )
        if not result.worker_died:
            self.routes_meta[entry.route_id] = _route_meta(config, entry, result)
            self._manifest_pending = True
            if self.pacer.due():
                self.write_manifest()
        self.merged.append(result)
        if self.on_route is not None:
            self.on_route(result)
