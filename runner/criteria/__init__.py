"""The leaderboard's route criteria, updated once per tick from a lockstep World and the ego,
each producing ScenarioRunner's traffic events with its messages (docs/scoring.md).

API (what the runner calls):

    criteria = RouteCriteria(world, ego, route_transforms)   # the dense route, ~1 m apart;
                                         # MinSpeedTest compares with role_name "background"
    ...each tick, after world.tick() and the recorder:
    criteria.update(world, ego)           # every criterion, in the leaderboard's order
    if criteria.stop_reason():            # "completed", "InRouteTest", "AgentBlockedTest",
        ...stop the route                 # "route timeout", or "" to go on
    ...at the end (whatever ended it):
    criteria.terminate()
    scored = ScoredRoute(points, criteria, criteria.timeout.timed_out)  # iterates all()

`criteria.add(criterion)` appends a scenario's criteria (ScenarioTimeoutTest,
YieldToEmergencyVehicleTest, ...) after the route's. Each criterion has `name`,
`test_status`, `events` (runner.scoring.events.TrafficEvent) and `update(tick)` /
`terminate(tick)` with a TickView (TickView.capture(world, ego)).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from runner.criteria.agent_blocked import AgentBlockedTest
from runner.criteria.base import Criterion, NearScreen, RoutePath, TickView
from runner.criteria.collision import CollisionTest, collision_kind
from runner.criteria.in_route import InRouteTest
from runner.criteria.min_speed import MinSpeedTest
from runner.criteria.outside_lanes import OutsideRouteLanesTest
from runner.criteria.red_light import RunningRedLightTest
from runner.criteria.route_completion import RouteCompletionTest
from runner.criteria.route_timeout import RouteTimeout
from runner.criteria.scenario_criteria import ScenarioTimeoutTest, YieldToEmergencyVehicleTest
from runner.criteria.stop_sign import RunningStopTest
from world.geometry import Transform

__all__ = [
    "AgentBlockedTest",
    "CollisionTest",
    "Criterion",
    "InRouteTest",
    "MinSpeedTest",
    "NearScreen",
    "OutsideRouteLanesTest",
    "RouteCompletionTest",
    "RouteCriteria",
    "RoutePath",
    "RouteTimeout",
    "RunningRedLightTest",
    "RunningStopTest",
    "ScenarioTimeoutTest",
    "TickView",
    "YieldToEmergencyVehicleTest",
    "collision_kind",
]


class RouteCriteria:
    """The route's criteria in RouteScenario's order, then any scenario criteria, and the
    route's timeout."""

    def __init__(
        self, world, ego, route: Sequence[Transform], traffic_role: str = "background"
    ) -> None:
        path = RoutePath(route)  # one path for the criteria that walk the route
        self.completion = RouteCompletionTest(path)
        self.route: list[Criterion] = [
            self.completion,
            OutsideRouteLanesTest(path, world, ego),
            CollisionTest(),
            RunningRedLightTest(world),
            RunningStopTest(world),
            MinSpeedTest(path, checkpoints=4, traffic_role=traffic_role),
            InRouteTest(path, offroad_max=30),
            AgentBlockedTest(min_speed=0.1, max_time=180.0),
        ]
        self.scenario: list[Criterion] = []
        self.timeout = RouteTimeout(path)
        self._last_tick: TickView | None = None

    def add(self, criterion: Criterion) -> None:
        self.scenario.append(criterion)

    def all(self) -> list[Criterion]:
        return [*self.route, *self.scenario]

    def __iter__(self) -> Iterator[Criterion]:
        return iter(self.all())

    def update(self, world, ego) -> TickView:
        tick = TickView.capture(world, ego)
        self._last_tick = tick
        for criterion in self.route:
            criterion.update(tick)
        for criterion in self.scenario:
            criterion.update(tick)
        self.timeout.update(tick)
        return tick

    def stop_reason(self) -> str:
        """Why the route ends now: "completed", the failing criterion's name, "route timeout",
        or "" while it goes on."""
        if self.completion.stops_route:
            return "completed"
        for criteria in (self.route, self.scenario):
            for criterion in criteria:
                if criterion is not self.completion and criterion.stops_route:
                    return criterion.name
        if self.timeout.timed_out:
            return "route timeout"
        return ""

    def terminate(self) -> None:
        for criterion in self.all():
            criterion.terminate(self._last_tick)
