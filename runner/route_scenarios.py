"""The runner's side of a route's scenarios: the kept scenarios of a route (its own and
the config's top-level ones), their background traffic, seeds and criteria, and the
monitor task on the main loop (scenarios/route_scenario.py has the rules).

`prepare(...)` runs while the route loads (a bad scenario fails the load, and so does a
config route's own scenario whose trigger is off the route; a route file's and the
config's top-level ones off the route are left out, as the leaderboard does);
`attach(loop)` starts the monitor before the first tick. A route without kept
scenarios gets nothing: no background activity, no task, the log unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from runner.criteria import RouteCriteria, ScenarioTimeoutTest, YieldToEmergencyVehicleTest
from runner.seeds import consumer_seed

if TYPE_CHECKING:
    from scenarios.route_scenario import RouteScenario

__all__ = ["RouteScenarios", "ScenarioCriteriaSink", "kept_scenarios", "prepare"]


class ScenarioCriteriaSink:
    """Adds a scenario's criteria to the route's, after the route criteria (the
    leaderboard's order), as the scenarios ask for them."""

    def __init__(self, criteria: RouteCriteria) -> None:
        self.criteria = criteria

    def scenario_timeout(self, scenario_name: str) -> Callable[[], None]:
        test = ScenarioTimeoutTest(scenario_name)
        self.criteria.add(test)
        return test.mark_timed_out

    def yield_to_emergency_vehicle(self, actor: Any) -> None:
        self.criteria.add(YieldToEmergencyVehicleTest(actor))


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


class RouteScenarios:
    """A route's scenarios, ready to run on a main loop."""

    def __init__(self, route_scenario: RouteScenario) -> None:
        self.route_scenario = route_scenario

    def ego_control(self, control: Any) -> Any:
        """The agent's control through the scenarios' ego control filters."""
        for adjust in list(self.route_scenario.ctx.ego_control_filters):
            control = adjust(control)
        return control

    def attach(self, loop: Any) -> None:
        self.route_scenario.ctx.start = loop.start
        self.route_scenario.start = loop.start
        loop.start(self.route_scenario.monitor, name="route scenario")


@functools.lru_cache(maxsize=4)
def _annotations(path: Path) -> dict[str, list]:
    from scenarios.leaderboard1 import read_annotations

    return read_annotations(path)


def kept_scenarios(config: Any, route: Any, plan: list) -> list:
    """The route's kept scenarios (scenarios.route_scenario.PlannedScenario: name, type,
    trigger, route index) in route order: its own, the config's top-level ones and those a
    scenarios file places on it. A route with none of them imports nothing of the library."""
    own = list(route.definition.scenarios)
    if not own and not config.scenarios and route.annotations is None:
        return []
    from scenarios.leaderboard1 import place_scenarios
    from scenarios.route_scenario import plan_scenarios

    inline = route.definition.town is None  # a config's own route (a route file names towns)
    planned = plan_scenarios(own, plan, required=inline)
    planned += plan_scenarios(config.scenarios, plan)
    if route.annotations is not None:
        placed = place_scenarios(route.definition.town, plan, _annotations(route.annotations))
        planned += plan_scenarios(placed, plan)
    planned.sort(key=lambda p: p.index)
    return planned


def prepare(
    config: Any, route: Any, repetition: int, world: Any, ego: Any, plan: list, criteria: Any
) -> RouteScenarios | None:
    """The route's kept scenarios with their background activity; None when none is kept.
    A route with no scenario of its own, of the config's or placed by a scenarios file
    imports nothing of the scenario library."""
    planned = kept_scenarios(config, route, plan)
    if not planned:
        return None
    from scenarios.background import BackgroundActivity
    from scenarios.base import ScenarioContext
    from scenarios.route_scenario import RouteScenario

    def rng_for(name: str) -> np.random.Generator:
        return _rng(consumer_seed(config.seed, "scenario", route.id, repetition, name))

    ctx = ScenarioContext(world, ego, plan, criteria=ScenarioCriteriaSink(criteria))

    def not_started(*_args: Any, **_kw: Any) -> None:
        raise RuntimeError("route scenarios: attach(loop) before the loop runs")

    route_scenario = RouteScenario(ctx, planned, rng_for, not_started)
    background_rng = _rng(consumer_seed(config.seed, "background", route.id, repetition))
    ctx.background = BackgroundActivity(
        world, ego, plan, background_rng, route_scenario.route_index
    )
    ctx.background.spawn()
    return RouteScenarios(route_scenario)
