"""One route repetition as a task: what goes in, and the function that runs it wherever it
runs (in the driver's process, a pool worker or a Ray worker).

In: the resolved config, the route's index, the repetition, where to record the log (or
None: record to a scratch file and hand the bytes back). Every random consumer's seed
comes from (config seed, consumer, route id, repetition) inside run_route, so a task
needs nothing from any other task and leaves nothing behind but its log.

Out: the route's RouteResult (runner/route.py) as JSON text, which the driver always
reads back, in every mode and on resume, so the scoring it does from it cannot depend on
where the task ran.
"""

from __future__ import annotations

import os
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

from runner.config import Config
from runner.route import RouteResult, run_route
from runner.statistics import Failure, RouteEntry

__all__ = ["RouteTask", "crashed_result", "execute_task"]


@dataclass(frozen=True)
class RouteTask:
    """One route repetition to run: the config's route `route_index`, repetition
    `entry.repetition`, scored as `entry` (its place in the evaluation order)."""

    config: Config
    entry: RouteEntry
    route_index: int
    log_path: Path | None  # None: the log comes back as bytes (a remote worker)

    @property
    def route_id(self) -> str:
        return self.entry.route_id


def _run(task: RouteTask, log_path: Path) -> RouteResult:
    """The task's route repetition, recorded to `log_path`."""
    config = task.config
    try:
        return run_route(config, config.routes[task.route_index], task.entry.repetition, log_path)
    except Exception as exc:  # outside run_route's own handling: the simulation crashed
        return RouteResult(
            task.route_id,
            failure=Failure.SIMULATION_RUNTIME,
            message=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(),
            has_log=log_path.is_file(),
        )


def execute_task(task: RouteTask) -> tuple[bytes, bytes | None]:
    """A worker's entry point: the result's JSON text, and the log's bytes when the task has
    no log path (otherwise the log is on disk at task.log_path, flushed to the device)."""
    if task.log_path is not None:
        result = _run(task, task.log_path)
        if result.has_log:
            _fsync(task.log_path)
        return result.to_json(), None
    with tempfile.TemporaryDirectory(prefix="lockstep-task-") as scratch:
        path = Path(scratch) / f"{task.route_id}.log"
        result = _run(task, path)
        log = path.read_bytes() if result.has_log else None
    return result.to_json(), log


def crashed_result(task: RouteTask, why: str) -> RouteResult:
    """The result of a task whose worker died twice: the simulation crashed, nothing scored."""
    return RouteResult(
        task.route_id, failure=Failure.SIMULATION_RUNTIME, message=why, worker_died=True
    )


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
