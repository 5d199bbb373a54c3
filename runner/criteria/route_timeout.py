"""The route's timeout (ScenarioRunner's RouteTimeoutBehavior): 300 s, plus for every metre
the ego advances the time to drive it at 10 % of its speed limit."""

from __future__ import annotations

from collections.abc import Sequence

from runner.criteria.base import RoutePath, TickView
from world.geometry import Transform

MIN_TIMEOUT = 300.0  # s
TIMEOUT_ROUTE_PERCENTAGE = 10  # % of the speed limit the extra time is counted at
WINDOW = 3


class RouteTimeout:
    """`timed_out` turns True when the simulated time since the first update passes the
    allowance; the route then stops and is scored 'Agent timed out'."""

    def __init__(self, route: Sequence[Transform] | RoutePath) -> None:
        self.path = RoutePath.of(route)
        self.timeout_value = MIN_TIMEOUT
        self.timed_out = False
        self._index = 0
        self._start: float | None = None

    @property
    def stops_route(self) -> bool:
        return self.timed_out

    def update(self, tick: TickView) -> None:
        if self._start is None:
            self._start = tick.time
        new_index = self.path.last_passed(self._index, WINDOW + 1, tick.location)
        if new_index > self._index:
            metres = self.path.accum[new_index] - self.path.accum[self._index]
            timeout_speed = tick.ego.get_speed_limit() / 3.6 * TIMEOUT_ROUTE_PERCENTAGE / 100
            self.timeout_value += metres / timeout_speed
            self._index = new_index
        if tick.time - self._start > self.timeout_value:
            self.timed_out = True
