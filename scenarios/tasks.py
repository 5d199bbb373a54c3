"""Waiting for simulated time inside a task: `tick()`, `wait(seconds)`, `wait_until(predicate)`.

A task is a greenlet that the main loop (runner/loop.py) switches into exactly
once per world tick. `tick()` switches back to the task's parent greenlet, the
loop, and returns when the loop resumes the task after the next world tick, so
it works from any depth of calls inside the task (the leaderboard's scenario
setup ticks from deep inside the data provider). Nothing here knows the
runner: the loop hands each resumption a `TickInfo`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import greenlet

from scenarios.errors import ScenarioError

__all__ = ["TickInfo", "stopping", "tick", "wait", "wait_until"]

_EPSILON = 1e-9  # s: sums of fixed deltas that should reach a duration but round just short


class TickInfo(NamedTuple):
    """What the loop tells a task when it resumes it: the world's frame and clock, and whether
    the route is stopping (a task that loops forever should return when it is). A named
    tuple: the loop makes two a tick."""

    frame: int
    elapsed_seconds: float
    delta_seconds: float
    stopping: bool = False


class TaskGreenlet(greenlet.greenlet):
    """A greenlet run by the main loop; remembers the last TickInfo it was resumed with."""

    last: TickInfo | None = None


def _task() -> TaskGreenlet:
    current = greenlet.getcurrent()
    if not isinstance(current, TaskGreenlet):
        raise ScenarioError(
            "tick(): called outside a task (start the function with loop.start(fn, ...); "
            "only the main loop ticks the world)"
        )
    return current


def tick() -> TickInfo:
    """Gives the loop back control; returns after exactly one world tick."""
    task = _task()
    info = task.parent.switch()
    if not isinstance(info, TickInfo):
        raise ScenarioError(f"tick(): the task was resumed with {info!r}, not by the main loop")
    task.last = info
    return info


def stopping() -> bool:
    """True once the loop is stopping the route (its last resumption said so)."""
    task = _task()
    return task.last is not None and task.last.stopping


def wait(seconds: float) -> TickInfo | None:
    """Ticks until `seconds` of simulated time have passed (none when seconds <= 0)."""
    passed = 0.0
    info = None
    while passed + _EPSILON < seconds:
        info = tick()
        passed += info.delta_seconds
    return info


def wait_until(predicate: Callable[[], bool], timeout: float | None = None) -> bool:
    """Ticks until `predicate()` is true (checked now, then after each tick); False when
    `timeout` seconds of simulated time pass first."""
    passed = 0.0
    while not predicate():
        if timeout is not None and passed + _EPSILON >= timeout:
            return False
        passed += tick().delta_seconds
    return True
