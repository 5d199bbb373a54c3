"""What a scenario asks of the runner's scoring, without importing the runner.

The runner hands each scenario a `CriteriaSink` (runner/criteria/scenario_criteria.py
implements it on the route's criteria): `scenario_timeout(name)` declares the
ScenarioTimeoutTest of a scenario and returns the function that marks it timed out
(ScenarioRunner's ScenarioTimeout behaviour, scored as the 0.7 penalty);
`yield_to_emergency_vehicle(actor)` adds the YieldToEmergencyVehicleTest for that
vehicle (0.7 penalty when the ego kept it behind).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["CriteriaSink", "NullCriteria"]


class CriteriaSink(Protocol):
    def scenario_timeout(self, scenario_name: str) -> Callable[[], None]: ...

    def yield_to_emergency_vehicle(self, actor: Any) -> None: ...


class NullCriteria:
    """A sink that scores nothing (scenarios run outside an evaluation, in tests)."""

    def __init__(self) -> None:
        self.timed_out: list[str] = []
        self.emergency_vehicles: list[Any] = []

    def scenario_timeout(self, scenario_name: str) -> Callable[[], None]:
        return lambda: self.timed_out.append(scenario_name)

    def yield_to_emergency_vehicle(self, actor: Any) -> None:
        self.emergency_vehicles.append(actor)
