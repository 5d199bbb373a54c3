"""The scenario base: a type's parameters, its setup (spawn actors), its behaviour (plain
sequential code in a task) and its cleanup.

A scenario type is a subclass of `Scenario` in one module of scenarios/library/ with
`type_name` (the route XML's `type`), `parameters` (its schema, scenarios.params) and
`setup()` / `behaviour()`; `cleanup()` destroys what `spawn()` made. The route scenario
(scenarios/route_scenario.py) runs `setup()` when the ego comes within 500 m of the
trigger and `behaviour()` when the ego reaches it, both inside the same task, so either
may wait, through the behaviours of scenarios.behaviours (step, wait, wait_until, ...).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from scenarios.behaviours import RouteStopping, step, wait_until
from scenarios.criteria import CriteriaSink, NullCriteria
from scenarios.errors import ScenarioError, ScenarioNotImplementedError
from scenarios.params import Param
from world.geometry import Transform

__all__ = ["Scenario", "ScenarioContext"]


@dataclass
class ScenarioContext:
    """What every scenario of a route shares: the world, the ego, the route's dense plan
    ((Transform, RoadOption) pairs), the background activity (None: no background
    traffic), the sink for scenario criteria, `start(fn, *args, name=...)` that runs
    a function as another task (the main loop's start), for behaviours in parallel, and
    the filters the agent's control passes through on its way to the ego."""

    world: Any
    ego: Any
    plan: list
    background: Any = None
    criteria: CriteriaSink = field(default_factory=NullCriteria)
    start: Callable[..., Any] | None = None
    ego_control_filters: list[Callable[[Any], Any]] = field(default_factory=list)
    """Functions of the agent's VehicleControl giving the one the ego gets, applied in
    order each tick after the agent's step (ScenarioRunner's AddNoiseToRouteEgo changes
    the agent's control this way)."""


class Scenario:
    """One scenario instance on a route; subclasses define the type."""

    type_name: ClassVar[str] = ""
    parameters: ClassVar[tuple[Param, ...]] = ()
    implemented: ClassVar[bool] = True
    scenario_timeout: ClassVar[float | None] = None
    """Seconds the behaviour may wait for the ego (wait_for_ego) before it gives up and
    scores a ScenarioTimeoutTest failure; None: no timeout."""

    def __init__(
        self,
        ctx: ScenarioContext,
        name: str,
        trigger: Transform,
        params: dict[str, Any],
        rng: np.random.Generator,
        trigger_index: int = 0,
    ) -> None:
        self.ctx = ctx
        self.world, self.ego, self.plan = ctx.world, ctx.ego, ctx.plan
        self.name = name
        self.trigger = trigger
        self.trigger_index = trigger_index
        self.params = params
        self.rng = rng
        self.actors: list[Any] = []
        self._mark_timeout: Callable[[], None] | None = None
        if self.scenario_timeout is not None:
            self._mark_timeout = ctx.criteria.scenario_timeout(name)

    # -- what a type writes --------------------------------------------------------------------

    def setup(self) -> None:
        """Spawns the scenario's actors (runs in the scenario's task; may tick)."""
        if not self.implemented:
            raise ScenarioNotImplementedError(self.type_name)

    def behaviour(self) -> None:
        """The scenario, as sequential code; returns when the scenario is over."""
        raise ScenarioNotImplementedError(self.type_name)

    def cleanup(self) -> None:
        """Destroys the actors `spawn()` made, newest first."""
        for actor in reversed(self.actors):
            with contextlib.suppress(Exception):
                if actor.is_alive:
                    actor.destroy()
        self.actors.clear()

    # -- helpers -------------------------------------------------------------------------------

    def spawn(self, blueprint_id: str, transform: Transform, **attributes: str) -> Any:
        """Spawns an actor owned by the scenario (destroyed by cleanup); role_name
        "scenario" unless given."""
        library = self.world.get_blueprint_library()
        blueprint = library.find(blueprint_id).copy()
        attributes.setdefault("role_name", "scenario")
        for key, value in attributes.items():
            if blueprint.has_attribute(key):
                blueprint.set_attribute(key, str(value))
        actor = self.world.try_spawn_actor(blueprint, transform)
        if actor is None:
            raise ScenarioError(
                f"scenario {self.name}: cannot spawn {blueprint_id} at {transform.location} "
                "(the place is taken)"
            )
        self.actors.append(actor)
        return actor

    def random_blueprint(self, pattern: str, **attributes: str) -> str:
        """A blueprint id matching `pattern` and `attributes` (e.g. base_type="car"),
        drawn with the scenario's generator from the matches in id order."""
        library = self.world.get_blueprint_library()
        ids = sorted(
            bp.id
            for bp in library.filter(pattern)
            if all(
                bp.has_attribute(k) and bp.get_attribute(k).value == str(v)
                for k, v in attributes.items()
            )
        )
        if not ids:
            raise ScenarioError(f"scenario {self.name}: no blueprint {pattern} with {attributes}")
        return ids[int(self.rng.integers(len(ids)))]

    def wait_for_ego(self, predicate: Callable[[], bool], timeout: float | None = None) -> bool:
        """Ticks until `predicate()`; past `timeout` (default: the type's scenario_timeout)
        marks the scenario timed out and returns False."""
        timeout = self.scenario_timeout if timeout is None else timeout
        if wait_until(predicate, timeout):
            return True
        if self._mark_timeout is not None:
            self._mark_timeout()
        return False

    def in_parallel(self, fn: Callable[..., Any], *args: Any) -> None:
        """Runs `fn(*args)` as its own task from the next tick (an actor flow, say); it
        ends when the route stops (its waits raise RouteStopping) or when it returns."""
        if self.ctx.start is None:
            raise ScenarioError(f"scenario {self.name}: no task starter in its context")

        def guarded() -> None:
            with contextlib.suppress(RouteStopping):
                fn(*args)

        self.ctx.start(guarded, name=f"scenario {self.name}: {getattr(fn, '__name__', fn)}")

    def run(self, triggered: Callable[[], bool]) -> None:
        """The scenario's task: setup, wait for the trigger, behaviour, cleanup; a route
        that stops ends the waits (RouteStopping) and still cleans up."""
        try:
            self.setup()
            while not triggered():
                step()
            self.behaviour()
        except RouteStopping:
            pass
        finally:
            self.cleanup()
