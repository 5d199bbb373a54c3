"""Where tasks run: in the driver one after another, or in a pool of local worker processes.
(runner/execution/ray_scheduler.py sends them to a Ray cluster.) Each scheduler takes the tasks in
evaluation order and yields each one as it finishes, in whatever order that is.

The pool's workers are forked from the driver where the platform can fork: a worker
starts with the driver's imports already done (numpy, numba, lockstep: about half a
second of each spawned worker's start, saved). The pool forks before the driver runs
anything of a route, and the driver never runs one while it has a pool (it only merges
results), so no greenlet or half-done tick is copied; the driver starts no threads.
Elsewhere the workers are spawned: a fresh interpreter that imports lockstep itself.

Each worker runs one task at a time, sent over its own pipe, so when a worker dies
(os._exit, a segfault, the OOM killer) the driver knows which task it was running: the
task is run once more on a fresh worker, and if that worker dies too the task is
reported as crashed. Workers die with the driver: on Linux each asks the kernel for
SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG); elsewhere an idle worker exits
when its pipe closes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from runner.execution.tasks import RouteTask, execute_task

__all__ = ["Finished", "InlineScheduler", "ProcessPoolScheduler", "Scheduler"]

START_METHOD = "fork" if "fork" in get_all_start_methods() else "spawn"
RETRIES = 1  # a task whose worker died runs once more before it counts as crashed
PR_SET_PDEATHSIG = 1


@dataclass
class Finished:
    """A task that finished: its result's JSON and its log's bytes (None when the log is
    on disk at task.log_path), or `died`, why its worker died on every attempt."""

    task: RouteTask
    payload: bytes | None = None
    log: bytes | None = None
    died: str | None = None


class Scheduler(Protocol):
    """Runs tasks and yields them as they finish; `running` is how many are in flight."""

    running: int
    wants_log_paths: bool  # whether the tasks may record to the run directory's disk
    parallel: bool  # whether several tasks run at once (the driver hands the longest first)

    def run(self, tasks: Sequence[RouteTask]) -> Iterator[Finished]: ...


class InlineScheduler:
    """Every task in the driver's process, in order (`--workers 1`)."""

    wants_log_paths = True
    parallel = False

    def __init__(self) -> None:
        self.running = 0

    def run(self, tasks: Sequence[RouteTask]) -> Iterator[Finished]:
        for number, task in enumerate(tasks, start=1):
            self.running = 1
            payload, log = execute_task(task)
            self.running = int(number < len(tasks))  # the next one starts once this is taken
            yield Finished(task, payload, log)


# -- the local pool -------------------------------------------------------------------------------


def _die_with_parent(parent_pid: int) -> None:
    """Asks for SIGKILL when the parent dies (Linux); exits now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


def _worker_main(conn: Connection, parent_pid: int) -> None:
    """A pool worker: takes the config, then runs the tasks the driver sends (without the
    config: it is sent once, not with each of thousands of tasks) until it sends None or
    goes away. Ctrl-C is the driver's to handle (it stops the workers), not each worker's."""
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        config = conn.recv()
    except (EOFError, OSError):
        return
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        payload, log = execute_task(replace(task, config=config))
        try:
            conn.send((payload, log))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, context: Any, config: Any) -> None:
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(
            target=_worker_main, args=(child, os.getpid()), name="lockstep-worker", daemon=True
        )
        self.process.start()
        child.close()
        self.conn.send(config)
        self.task: RouteTask | None = None

    def give(self, task: RouteTask) -> None:
        self.task = task
        self.conn.send(replace(task, config=None))

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


class ProcessPoolScheduler:
    """`workers` worker processes, one task each at a time (`--workers N`)."""

    wants_log_paths = True
    parallel = True

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers: expected at least 1, got {workers}")
        self.workers = workers
        self.running = 0
        self.context = get_context(START_METHOD)

    def run(self, tasks: Sequence[RouteTask]) -> Iterator[Finished]:
        queue: deque[RouteTask] = deque(tasks)
        deaths: dict[str, int] = {}
        pool: list[_Worker] = []
        try:
            if not queue:
                return
            config = queue[0].config
            pool = [_Worker(self.context, config) for _ in range(min(self.workers, len(queue)))]
            while queue or any(w.task is not None for w in pool):
                for worker in pool:
                    if worker.task is None and queue:
                        worker.give(queue.popleft())
                busy = [w for w in pool if w.task is not None]
                self.running = len(busy)
                ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
                for index, worker in enumerate(pool):
                    task = worker.task
                    signalled = worker.conn in ready or worker.process.sentinel in ready
                    if task is None or not signalled:
                        continue
                    answer = self._answer(worker)
                    if answer is not None:
                        worker.task = None
                        self.running -= 1
                        yield Finished(task, *answer)
                        continue
                    # the worker died running `task`
                    worker.kill()
                    code = worker.process.exitcode
                    pool[index] = _Worker(self.context, config)
                    deaths[task.route_id] = deaths.get(task.route_id, 0) + 1
                    self.running -= 1
                    if deaths[task.route_id] <= RETRIES:
                        queue.appendleft(task)
                    else:
                        why = f"the worker process died running the route ({_exit_text(code)})"
                        yield Finished(task, died=why)
        finally:
            for worker in pool:
                if worker.task is None:
                    worker.stop()
                else:
                    worker.kill()
            self.running = 0

    @staticmethod
    def _answer(worker: _Worker) -> tuple[bytes, bytes | None] | None:
        try:
            if worker.conn.poll():
                return worker.conn.recv()
        except (EOFError, OSError):
            pass
        return None


def _exit_text(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        return f"killed by signal {-code}"
    return f"exit status {code}"
