"""The criteria a scenario adds after the route's: ScenarioTimeoutTest (the scenario gave up
waiting for the ego) and YieldToEmergencyVehicleTest (the ego kept an emergency vehicle
behind it). Their events are made when the route ends, as ScenarioRunner's."""

from __future__ import annotations

from runner.criteria.base import Criterion, TickView
from runner.scoring.events import TrafficEvent, TrafficEventType


class ScenarioTimeoutTest(Criterion):
    """The scenario calls `mark_timed_out()` when its own timeout fires (ScenarioRunner's
    blackboard entry ScenarioTimeout_<name>)."""

    name = "ScenarioTimeoutTest"

    def __init__(self, scenario_name: str) -> None:
        super().__init__()
        self.scenario_name = scenario_name
        self.timed_out = False
        self.actual_value = 0

    def mark_timed_out(self) -> None:
        self.timed_out = True

    def terminate(self, tick: TickView | None) -> None:
        if self.timed_out:
            self.actual_value = 1
            self.test_status = "FAILURE"
            frame = tick.frame if tick is not None else 0
            self.events.append(
                TrafficEvent(TrafficEventType.SCENARIO_TIMEOUT, frame, "Agent timed out a scenario")
            )
            self.timed_out = False
        super().terminate(tick)


class YieldToEmergencyVehicleTest(Criterion):
    """FAILURE while the emergency vehicle is behind the ego (the ego ahead of it along its
    forward vector); still failing when the route ends gives the event."""

    name = "YieldToEmergencyVehicleTest"

    def __init__(self, emergency_vehicle) -> None:
        super().__init__()
        self.ev = emergency_vehicle
        self._terminated = False

    def update(self, tick: TickView) -> None:
        if not self.ev.is_alive:
            return
        ev_transform = self.ev.get_transform()
        behind = (tick.location - ev_transform.location).dot(ev_transform.get_forward_vector())
        self.test_status = "FAILURE" if behind > 0 else "SUCCESS"

    def terminate(self, tick: TickView | None) -> None:
        if not self._terminated:
            if self.test_status == "FAILURE":
                frame = tick.frame if tick is not None else 0
                self.events.append(
                    TrafficEvent(
                        TrafficEventType.YIELD_TO_EMERGENCY_VEHICLE,
                        frame,
                        "Agent failed to yield to an emergency vehicle",
                    )
                )
            self._terminated = True
        super().terminate(tick)
