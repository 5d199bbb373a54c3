"""The run directory's task checkpoint: `tasks/<route id>.json` per finished task that the
in-order merge has not reached yet, and the logs of tasks in flight.

Tasks finish in any order but results.json takes routes in the evaluation's order, so a
task that finishes ahead of an earlier one waits here. Every file is written whole or not
at all (a sibling temp file, fsync, rename), and a task counts as finished only once its
result file exists, which is written after its log is in place: a kill at any moment
loses at most the tasks in flight. The folder is removed when the evaluation ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

from runner.route import RouteResult
from runner.scoring.errors import ResultsFileError
from runner.scoring.results_file import ResultsFile, encode_results

__all__ = ["TASKS_DIR", "PacedResultsFile", "Pacer", "TaskStore", "atomic_write"]

TASKS_DIR = "tasks"
PACE = 10.0  # a rewrite waits until 10x its own duration has passed since the last one
MIN_INTERVAL = 1.0  # s: and at least this long (encoding results.json costs ~2 ms a rewrite)


def atomic_write(path: Path, data: bytes) -> None:
    """`data` as the whole of `path`: a temp file beside it, flushed to the device, renamed."""
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a folder be opened
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class TaskStore:
    """Finished tasks' results and in-flight logs under `run_dir/tasks/`."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.folder = run_dir / TASKS_DIR

    def inflight_log(self, route_id: str) -> Path:
        """Where a local worker records the task's log until the task is finished."""
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / f"{route_id}.log"

    def final_log(self, route_id: str) -> Path:
        return self.run_dir / f"{route_id}.log"

    def finished(self, result: RouteResult, log: bytes | None, text: bytes | None = None) -> None:
        """Puts the task's log in its place (from the in-flight file or from `log`), then
        writes its result (`text`, the JSON text the task handed back, when given: what
        `result.to_json()` gives again, without encoding the route's points a second time):
        from now on the task is finished."""
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.final_log(result.route_id)
        inflight = self.folder / f"{result.route_id}.log"
        if log is not None:
            atomic_write(final, log)
        elif result.has_log and inflight.is_file():
            os.replace(inflight, final)
            _fsync_dir(self.run_dir)
        else:
            inflight.unlink(missing_ok=True)
        atomic_write(self._result_path(result.route_id), text or result.to_json())

    def load(self, route_id: str) -> RouteResult | None:
        """The finished task's result, None when the task has not finished."""
        path = self._result_path(route_id)
        if not path.is_file():
            return None
        try:
            return RouteResult.from_json(path.read_bytes())
        except (ValueError, TypeError, KeyError) as exc:
            raise ResultsFileError(f"{path}: not a task result ({exc})") from None

    def discard(self, route_id: str) -> None:
        self._result_path(route_id).unlink(missing_ok=True)

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def _result_path(self, route_id: str) -> Path:
        return self.folder / f"{route_id}.json"


class Pacer:
    """When a file rewritten after every route may be rewritten again: once `PACE` times
    the last rewrite's duration has passed, and at least MIN_INTERVAL. Small files are
    rewritten about once a second however short the routes (short routes one after another
    in one process spent ~3 % of their CPU time encoding results.json and the manifest
    after every route); the results.json or manifest of a 10,000-route evaluation
    (megabytes, a rewrite taking a fraction of a second) at most ~10% of the driver's time.
    Pacing decides only when a file is written, never what it holds, and a skipped rewrite
    loses nothing: the task checkpoint holds every finished task until the evaluation ends,
    and the end writes what is pending."""

    def __init__(self) -> None:
        self._next = 0.0

    def due(self) -> bool:
        return time.perf_counter() >= self._next

    def wrote(self, began: float) -> None:
        now = time.perf_counter()
        self._next = now + max(PACE * (now - began), MIN_INTERVAL)


class PacedResultsFile(ResultsFile):
    """results.json written whole (fsync, rename) at the Pacer's pace; `flush` writes what
    is pending (at the end of the evaluation, or when it stops)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(path)
        self.pacer = Pacer()
        self._pending: dict | None = None

    def load(self) -> dict:
        self.flush()
        return super().load()

    def save(self, data: dict) -> None:
        self._pending = data
        if self.pacer.due():
            self.flush()

    def flush(self) -> None:
        if self._pending is None:
            return
        began = time.perf_counter()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, encode_results(self._pending))
        self._pending = None
        self.pacer.wrote(began)

    def clear(self) -> None:
        self._pending = None
        super().clear()
