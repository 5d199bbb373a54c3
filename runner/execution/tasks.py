"""One route repetition as a pure task: what goes in, what comes out, and the function that
turns one into the other wherever it runs (in the driver, a pool worker or a Ray worker).

In: the resolved config, the route's index, the repetition, where to record the log (or
None: record to a scratch file and hand the bytes back). Every random consumer's seed
comes from (config seed, consumer, route id, repetition) inside run_route, so a task
needs nothing from any other task and leaves nothing behind but its log.

Out: a TaskResult, plain data that round-trips through JSON unchanged: how the route
ended, its scored route (the dense points, each criterion's events, the timeout flag),
the agent's sensor icons, the manifest's per-route fields. The driver always reads the
result back from its JSON text, in every mode and on resume, so the scoring it does from
it cannot depend on where the task ran.
"""

from __future__ import annotations

import json
import os
import tempfile
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from runner.config import Config
from runner.scoring.events import TrafficEvent, TrafficEventType
from runner.statistics import Failure, RouteEntry, ScoredRoute

__all__ = ["Task", "TaskResult", "crashed_result", "execute_task", "run_task"]


@dataclass(frozen=True)
class Task:
    """One route repetition to run: the config's route `route_index`, repetition
    `entry.repetition`, scored as `entry` (its place in the evaluation order)."""

    config: Config
    entry: RouteEntry
    route_index: int
    log_path: Path | None  # None: the log comes back as bytes (a remote worker)

    @property
    def route_id(self) -> str:
        return self.entry.route_id


@dataclass
class CriterionEvents:
    """A criterion as the statistics read it: its events (kind, frame, message, data)."""

    events: list[TrafficEvent]


@dataclass
class TaskResult:
    """What a task hands back; `to_json` / `from_json` are exact inverses."""

    route_id: str
    index: int
    failure: str = Failure.NONE.value
    message: str = ""
    traceback: str = ""
    loaded: bool = False  # the session's route_loaded was reached: the route is scored
    points: list[list[float]] = field(default_factory=list)
    criteria: list[list[dict[str, Any]]] = field(default_factory=list)
    timed_out: bool = False
    sensor_icons: list[str] | None = None  # None: the agent never got ready
    wall_seconds: float = 0.0
    game_seconds: float = 0.0
    ticks: int = 0
    loop_ticks: int = 0
    agent_wall_seconds: float = 0.0
    stop_reason: str | None = None
    killed_tasks: list[str] = field(default_factory=list)
    sensors: list[dict] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    has_log: bool = False
    worker_died: bool = False

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), default=_plain).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes) -> TaskResult:
        return cls(**json.loads(raw.decode("utf-8")))

    @property
    def failure_kind(self) -> Failure:
        return Failure(self.failure)

    def scored_route(self) -> ScoredRoute:
        """The route as the session scores it, rebuilt from the plain data."""
        criteria = [
            CriterionEvents(
                [
                    TrafficEvent(TrafficEventType[e["kind"]], e["frame"], e["message"], e["data"])
                    for e in events
                ]
            )
            for events in self.criteria
        ]
        return ScoredRoute(self.points, criteria, self.timed_out)


def _plain(value: Any) -> Any:
    """numpy scalars and tuples in criteria data, as JSON can hold them."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} in a task result is not plain data")


class _TaskSession:
    """Stands in for the EvaluationSession inside a task: it notes what run_route tells the
    session (route loaded, agent ready, route finished) so the driver can replay it."""

    def __init__(self, result: TaskResult) -> None:
        self.result = result
        self._scored: ScoredRoute | None = None

    def route_loaded(self, scored: ScoredRoute) -> None:
        self._scored = scored
        self.result.loaded = True

    def agent_ready(self, icons: list[str]) -> None:
        self.result.sensor_icons = list(icons)

    def route_finished(
        self, entry: RouteEntry, failure: Failure, wall: float, game: float
    ) -> dict | None:
        result = self.result
        result.failure, result.wall_seconds, result.game_seconds = failure.value, wall, game
        if self._scored is not None:
            result.points = [[float(c) for c in p] for p in self._scored.points]
            result.criteria = [
                [
                    {"kind": e.kind.name, "frame": e.frame, "message": e.message, "data": e.data}
                    for e in criterion.events
                ]
                for criterion in self._scored.criteria
            ]
            result.timed_out = bool(self._scored.timed_out)
        return None


def run_task(task: Task, log_path: Path) -> TaskResult:
    """Runs the task's route repetition, recording to `log_path`."""
    from runner.evaluation import run_route

    config = task.config
    result = TaskResult(task.route_id, task.entry.index)
    session = _TaskSession(result)
    try:
        outcome = run_route(
            config,
            config.routes[task.route_index],
            task.entry.repetition,
            log_path,
            session=session,  # type: ignore[arg-type]
            entry=task.entry,
        )
    except Exception as exc:  # outside run_route's own handling: the simulation crashed
        result.failure = Failure.SIMULATION_RUNTIME.value
        result.message = f"{type(exc).__name__}: {exc}"
        result.traceback = traceback.format_exc()
        result.has_log = log_path.is_file()
        return result
    result.message, result.traceback = outcome.message, outcome.traceback
    result.ticks, result.loop_ticks = outcome.ticks, outcome.loop_ticks
    result.agent_wall_seconds = outcome.agent_wall_seconds
    result.stop_reason = outcome.stop_reason
    result.killed_tasks = list(outcome.killed_tasks)
    result.sensors = list(outcome.sensors)
    result.events = list(outcome.events)
    result.has_log = log_path.is_file()
    return result


def execute_task(task: Task) -> tuple[bytes, bytes | None]:
    """A worker's entry point: the result's JSON text, and the log's bytes when the task has
    no log path (otherwise the log is on disk at task.log_path, flushed to the device)."""
    if task.log_path is not None:
        result = run_task(task, task.log_path)
        if result.has_log:
            _fsync(task.log_path)
        return result.to_json(), None
    with tempfile.TemporaryDirectory(prefix="lockstep-task-") as scratch:
        path = Path(scratch) / f"{task.route_id}.log"
        result = run_task(task, path)
        log = path.read_bytes() if result.has_log else None
    return result.to_json(), log


def crashed_result(task: Task, why: str) -> TaskResult:
    """The result of a task whose worker died twice: the simulation crashed, nothing scored."""
    return TaskResult(
        task.route_id,
        task.entry.index,
        failure=Failure.SIMULATION_RUNTIME.value,
        message=why,
        worker_died=True,
    )


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
