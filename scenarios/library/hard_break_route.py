"""HardBreakRoute (ScenarioRunner's hard_break.py): the background vehicles ahead of the
ego brake hard, stay stopped for 10 s, then drive on; the scenario ends once the ego has
driven 15 m more. No actors of its own; the route's collision test scores it."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import drive_distance, wait
from scenarios.errors import ScenarioError

STOP_SECONDS = 10.0
END_DISTANCE = 15.0  # m the ego drives after the vehicles start again


class HardBreakRoute(Scenario):
    type_name = "HardBreakRoute"
    parameters = ()

    def setup(self) -> None:
        if self.ctx.background is None:
            raise ScenarioError(f"scenario {self.name}: HardBreakRoute needs background traffic")

    def behaviour(self) -> None:
        background = self.ctx.background
        self.stopped = background.stop_front_vehicles()
        wait(STOP_SECONDS)
        background.start_front_vehicles()
        drive_distance(self.ego, END_DISTANCE)
