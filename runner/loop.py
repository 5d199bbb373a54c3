"""The one main loop: tasks, agent, tick, recorder, criteria, in that order, once per tick.

Only this loop calls `world.tick()`. Whatever must wait for simulated time
(scenario setup, behaviours, traffic spawning) runs in a task, a greenlet
started with `loop.start(fn, *args)` and switched into exactly once per
iteration, in start order; inside it `scenarios.tasks.tick()` waits one tick.
One iteration (DESIGN.md, "The one main loop"):

1. resume each live task once, in start order (a task started during this
   step first runs in the next iteration);
2. the agent's step gives the ego's control;
3. the control is applied and the world ticks;
4. the recorder writes the frame;
5. `after_tick` (the criteria) updates and may name a reason to stop.

Stopping follows the leaderboard's greenlet proposal: each live task is
resumed once more with `stopping` set, and a task still running (caught in a
setup) is then given one world tick per switch until it returns, up to
`drain_ticks`; past that it is killed and the result names it. A task's or the
agent's exception ends the loop with its traceback in the result. No threads,
no sleeps; the wall clock only times the agent, for the results file.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import greenlet

from scenarios.tasks import TaskGreenlet, TickInfo
from world.actors.controls import VehicleControl

__all__ = ["DRAIN_TICKS", "LoopFailure", "LoopResult", "LoopTask", "MainLoop"]

DRAIN_TICKS = 200  # ticks a stopping task may still take to finish its setup (10 s at 20 Hz)

AgentStep = Callable[[TickInfo], VehicleControl]
AfterTick = Callable[[TickInfo], str | None]


@dataclass
class LoopTask:
    """A function run as a greenlet by the loop; `resumes` counts the switches into it."""

    name: str
    fn: Callable[..., Any]
    args: tuple
    greenlet: TaskGreenlet
    resumes: int = 0
    killed: bool = False

    @property
    def started(self) -> bool:
        return self.resumes > 0

    @property
    def done(self) -> bool:
        return self.killed or (self.started and self.greenlet.dead)


@dataclass(frozen=True)
class LoopFailure:
    """What ended a loop early: `kind` is "agent", "task" or "simulation"."""

    kind: str
    message: str
    traceback: str


@dataclass
class LoopResult:
    """How a loop ended: ticks run (drain ticks included), the stop reason or failure, the
    tasks killed past the drain bound, and the agent's wall time (for the results only)."""

    ticks: int = 0
    reason: str | None = None
    failure: LoopFailure | None = None
    killed: list[str] = field(default_factory=list)
    drain_ticks: int = 0
    agent_wall_seconds: float = 0.0


class MainLoop:
    """Steps `world` one iteration at a time; see the module docstring for the order."""

    def __init__(
        self,
        world: Any,
        *,
        ego: Any = None,
        agent_step: AgentStep | None = None,
        recorder: Any = None,
        after_tick: AfterTick | None = None,
        drain_ticks: int = DRAIN_TICKS,
    ) -> None:
        self.world = world
        self.ego = ego
        self.agent_step = agent_step
        self.recorder = recorder
        self.after_tick = after_tick
        self.drain_ticks = int(drain_ticks)
        self.tasks: list[LoopTask] = []
        self.ticks = 0
        self.result = LoopResult()
        self._stopped = False
        self._stamp: Any = None  # the clock of the last TickInfo made, and that TickInfo
        self._info = TickInfo(0, 0.0, 0.0)

    # -- tasks -----------------------------------------------------------------------------

    def start(self, fn: Callable[..., Any], *args: Any, name: str | None = None) -> LoopTask:
        """Runs `fn(*args)` as a task from the next iteration on."""
        label = name or getattr(fn, "__qualname__", repr(fn))
        task = LoopTask(label, fn, args, TaskGreenlet(run=fn))
        self.tasks.append(task)
        return task

    def info(self, stopping: bool = False) -> TickInfo:
        """The world's clock now as a TickInfo; the one made after a tick serves again
        before the next (the world's clock answers the same Timestamp until it ticks)."""
        stamp = self.world.clock()
        if stamp is self._stamp and not stopping:
            return self._info
        info = TickInfo(stamp.frame, stamp.elapsed_seconds, stamp.delta_seconds, stopping)
        if not stopping:
            self._stamp, self._info = stamp, info
        return info

    def _resume(self, task: LoopTask, info: TickInfo) -> None:
        """One switch into `task`; an exception it raises becomes the loop's failure."""
        task.greenlet.parent = greenlet.getcurrent()
        first = not task.started
        task.resumes += 1
        try:
            if first:
                task.greenlet.last = info
                task.greenlet.switch(*task.args)
            else:
                task.greenlet.switch(info)
        except Exception as exc:
            self._fail("task", f"task {task.name} raised {type(exc).__name__}: {exc}")

    def _fail(self, kind: str, message: str) -> None:
        if self.result.failure is None:
            self.result.failure = LoopFailure(kind, message, traceback.format_exc())

    # -- one iteration ---------------------------------------------------------------------

    def step(self) -> bool:
        """One iteration; False when the loop must stop (a reason or a failure)."""
        info = self.info()
        for task in list(self.tasks):  # tasks started during this step wait for the next
            if not task.done:
                self._resume(task, info)
                if self.result.failure is not None:
                    return False
        control = None
        if self.agent_step is not None:
            began = time.perf_counter()
            try:
                control = self.agent_step(info)
            except Exception as exc:
                self._fail("agent", f"agent raised {type(exc).__name__}: {exc}")
                return False
            finally:
                self.result.agent_wall_seconds += time.perf_counter() - began
        if not self._tick_world(control):
            return False
        if self.after_tick is not None:
            try:
                reason = self.after_tick(self.info())
            except Exception as exc:
                self._fail("simulation", f"criteria raised {type(exc).__name__}: {exc}")
                return False
            if reason:
                self.result.reason = reason
                return False
        return True

    def _tick_world(self, control: VehicleControl | None) -> bool:
        try:
            if control is not None and self.ego is not None:
                self.ego.apply_control(control)
            self.world.tick()
            self.ticks += 1
            self.result.ticks = self.ticks
            if self.recorder is not None:
                self.recorder.record(self.world)
        except Exception as exc:
            self._fail("simulation", f"the world's tick raised {type(exc).__name__}: {exc}")
            return False
        return True

    def run(self, max_ticks: int | None = None) -> LoopResult:
        """Iterates until a stop reason, a failure or `max_ticks`; then stops the tasks."""
        while max_ticks is None or self.ticks < max_ticks:
            if not self.step():
                break
        else:
            self.result.reason = self.result.reason or "max_ticks"
        self.stop()
        return self.result

    # -- stopping --------------------------------------------------------------------------

    def stop(self) -> LoopResult:
        """Lets the started tasks finish (one tick per switch, bounded), then kills the rest."""
        if self._stopped:
            return self.result
        self._stopped = True
        simulation_broken = self.result.failure is not None and (
            self.result.failure.kind == "simulation"
        )
        live = [t for t in self.tasks if t.started and not t.done]
        if live and not simulation_broken:
            info = self.info(stopping=True)
            for task in live:
                self._resume(task, info)
        hold = VehicleControl(throttle=0.0, brake=1.0)
        while not simulation_broken:
            live = [t for t in self.tasks if t.started and not t.done]
            if not live or self.result.drain_ticks >= self.drain_ticks:
                break
            if not self._tick_world(hold if self.ego is not None else None):
                break
            self.result.drain_ticks += 1
            info = self.info(stopping=True)
            for task in live:
                self._resume(task, info)
        for task in self.tasks:
            if task.started and not task.done:
                task.greenlet.throw(greenlet.GreenletExit)
                task.killed = True
                self.result.killed.append(task.name)
        return self.result
