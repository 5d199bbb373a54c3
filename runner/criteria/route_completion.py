"""RouteCompletionTest: how much of the route the ego has passed, as a percentage; the
route's end condition (over 99 % and within 10 m of the last point)."""

from __future__ import annotations

from collections.abc import Sequence

from runner.criteria.base import Criterion, RoutePath, TickView
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Transform

WINDOW = 2  # points ahead of the current one looked at each tick
DISTANCE_THRESHOLD = 10.0  # m from the last point
PERCENTAGE_THRESHOLD = 99  # %


class RouteCompletionTest(Criterion):
    """One ROUTE_COMPLETION event (frame 0), updated in place; its value is an int 0 until a
    point is passed, then the passed point's share of the route rounded to 2 decimals, and
    the int 100 once the end is reached."""

    name = "RouteCompletionTest"

    def __init__(self, route: Sequence[Transform] | RoutePath) -> None:
        super().__init__()
        self.path = RoutePath.of(route)
        total = self.path.accum[-1]
        # each point's share of the route as the event shows it (rounded once, not a tick)
        self._shown = [round(metres / total * 100, 2) for metres in self.path.accum]
        self._index = 0
        self.actual_value: float | int = 0
        self._event = TrafficEvent(TrafficEventType.ROUTE_COMPLETION, 0)
        self._publish()
        self.events.append(self._event)

    def _publish(self) -> None:
        self._event.data = {"route_completed": self.actual_value}
        self._event.message = f"Agent has completed {self.actual_value} of the route"

    def update(self, tick: TickView) -> None:
        if self.test_status == "SUCCESS":
            self.stops_route = True
            return
        if self.test_status not in ("RUNNING", "INIT"):
            return
        location = tick.location
        index = self.path.last_passed(self._index, WINDOW + 1, location)
        if index >= 0:
            self._index = index
            value = self._shown[index]
            if value != self.actual_value or type(value) is not type(self.actual_value):
                self.actual_value = value
                self._publish()  # the same value would give the same message and data
        if (
            self.actual_value > PERCENTAGE_THRESHOLD
            and location.distance(self.path.locations[-1]) < DISTANCE_THRESHOLD
        ):
            self.test_status = "SUCCESS"
            self.actual_value = 100

    def terminate(self, tick: TickView | None) -> None:
        self.actual_value = round(self.actual_value, 2)
        self._publish()
        if self.test_status == "INIT":
            self.test_status = "FAILURE"
        super().terminate(tick)
