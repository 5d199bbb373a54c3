"""The waits of a client script that move an asynchronous world under `lockstep exec`.

A CARLA server in asynchronous mode runs on its own clock, so a script that waits sees the
world move meanwhile. lockstep has no clock: it moves an asynchronous world when the script
waits, by the simulated time the wait stands for (runner.carla.client.sleep_in_simulation:
the steps that fit in it, at least one). The waits CARLA's examples make besides
`wait_for_tick`: `time.sleep(seconds)`, and pygame's frame clock,
`Clock.tick(framerate)` / `Clock.tick_busy_loop(framerate)` (a frame of 1/framerate s;
no framerate is no wait). Only the script's own thread moves the world: a library's thread
that sleeps (a watchdog, a sensor reader) sleeps for real, so runs stay the same. A wait
made while the world is being moved (a tick callback that ticks a pygame clock) moves
nothing.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["install"]

_MOVING = {"now": False}


def _wait_in_simulation(seconds: float) -> bool:
    """Moves the asynchronous worlds by `seconds`; whether any world was asynchronous."""
    from runner.carla.client import sleep_in_simulation

    if _MOVING["now"] or threading.current_thread() is not threading.main_thread():
        return False
    _MOVING["now"] = True
    try:
        return sleep_in_simulation(seconds)
    finally:
        _MOVING["now"] = False


def _simulated_sleep(real_sleep: Callable[[float], None]) -> Callable[[float], None]:
    """time.sleep for the script: simulated time while a world runs asynchronously, a real
    sleep otherwise (a synchronous world does not move while its client sleeps)."""

    def sleep(seconds: float) -> None:
        if not _wait_in_simulation(seconds):
            real_sleep(seconds)

    return sleep


class _FrameClock:
    """pygame.time.Clock for the script: a frame limit moves the asynchronous worlds by one
    frame's time instead of waiting for the wall clock (with no asynchronous world, the
    real clock waits as it would); the clock's own figures (get_fps, get_time) stay pygame's."""

    def __init__(self, clock: Any) -> None:
        self._clock = clock

    def _frame(self, framerate: float, wait: Callable[[float], int]) -> int:
        if framerate and framerate > 0 and _wait_in_simulation(1.0 / framerate):
            return self._clock.tick()
        return wait(framerate)

    def tick(self, framerate: float = 0) -> int:
        return self._frame(framerate, self._clock.tick)

    def tick_busy_loop(self, framerate: float = 0) -> int:
        return self._frame(framerate, self._clock.tick_busy_loop)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._clock, name)


class _PygameHook(importlib.abc.MetaPathFinder):
    """Puts _FrameClock in pygame.time when the script imports pygame (pygame is not
    imported for scripts that do not use it)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "pygame":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            load(module)
            clock = module.time.Clock
            module.time.Clock = lambda: _FrameClock(clock())

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> Callable[[], None]:
    """Makes time.sleep and pygame's frame clock waits in simulated time; returns the undo
    (for time.sleep: a pygame already given the frame clock keeps it)."""
    real_sleep = time.sleep
    time.sleep = _simulated_sleep(real_sleep)
    hook = None
    if "pygame" not in sys.modules:
        hook = _PygameHook()
        sys.meta_path.insert(0, hook)

    def undo() -> None:
        time.sleep = real_sleep
        if hook in sys.meta_path:
            sys.meta_path.remove(hook)

    return undo
