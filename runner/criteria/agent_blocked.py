"""AgentBlockedTest: the ego slower than 0.1 m/s for more than 180 s stops the route."""

from __future__ import annotations

from runner.criteria.base import Criterion, TickView, at_text
from runner.scoring.events import TrafficEvent, TrafficEventType

MIN_SPEED = 0.1  # m/s
MAX_TIME = 180.0  # s


class AgentBlockedTest(Criterion):
    """The clock restarts on every tick at or above the speed. As ScenarioRunner's, the first
    slow tick only starts the clock (a start time of 0.0 counts as not started)."""

    name = "AgentBlockedTest"
    terminate_on_failure = True

    def __init__(self, min_speed: float = MIN_SPEED, max_time: float = MAX_TIME) -> None:
        super().__init__()
        self.min_speed = min_speed
        self.max_time = max_time
        self._last_moving: float | None = None
        self.active = True

    def set_active(self, active: bool, tick: TickView) -> None:
        """Switch the test off during a scenario that holds the ego on purpose (and back)."""
        self.active = active
        self._last_moving = tick.time

    def update(self, tick: TickView) -> None:
        if self.active:
            if tick.speed < self.min_speed and self._last_moving:
                if tick.time - self._last_moving > self.max_time:
                    self.test_status = "FAILURE"
                    self.events.append(
                        TrafficEvent(
                            TrafficEventType.VEHICLE_BLOCKED,
                            tick.frame,
                            f"Agent got blocked at {at_text(tick.location)}",
                            {"location": tick.location},
                        )
                    )
            else:
                self._last_moving = tick.time
        self._fail_stops()
