"""InRouteTest: the ego may leave the route, but not by 30 m or more, and not for more than
30 % of the route while beyond half of that; failing stops the route."""

from __future__ import annotations

import math
from collections.abc import Sequence

from runner.criteria.base import Criterion, RoutePath, TickView, at_text
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Transform

MAX_ROUTE_PERCENTAGE = 30  # % of the route driven beyond the safe distance
WINDOW = 5  # points ahead of the current one looked at each tick


class InRouteTest(Criterion):
    name = "InRouteTest"
    terminate_on_failure = True

    def __init__(self, route: Sequence[Transform] | RoutePath, offroad_max: float = 30) -> None:
        super().__init__()
        self.path = RoutePath.of(route)
        self.offroad_max = offroad_max
        self.offroad_min = offroad_max / 2
        self._index = 0
        self._out_distance = 0.0
        self._in_safe_route = True

    def update(self, tick: TickView) -> None:
        if self.test_status == "FAILURE":
            self._fail_stops()
            return
        location = tick.location
        x, y = location.x, location.y
        shortest = float("inf")
        closest = -1
        points = self.path.points
        for index in range(self._index, min(self._index + WINDOW + 1, len(points))):
            px, py = points[index][:2]
            distance = math.sqrt((x - px) ** 2 + (y - py) ** 2)
            if distance <= shortest:
                closest, shortest = index, distance
        if closest == -1:
            return
        off_route = True
        if shortest < self.offroad_max:
            off_route = False
            self._in_safe_route = shortest < self.offroad_min
        if closest != self._index:
            gained = self.path.accum[closest] - self.path.accum[self._index]
            if not self._in_safe_route:
                self._out_distance += gained
                if 100 * self._out_distance / self.path.accum[-1] > MAX_ROUTE_PERCENTAGE:
                    off_route = True
            self._index = closest
        if off_route:
            self.events.append(
                TrafficEvent(
                    TrafficEventType.ROUTE_DEVIATION,
                    tick.frame,
                    f"Agent deviated from the route at {at_text(location)}",
                    {"location": location},
                )
            )
            self.test_status = "FAILURE"
            self._fail_stops()
