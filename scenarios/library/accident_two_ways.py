"""AccidentTwoWays (ScenarioRunner's route_obstacles.py): the Accident (a police car and
two crashed cars blocking the ego's lane), on a road whose lane left of the accident is
the oncoming one: 5 s after the ego comes within 50 m of the first crashed car, an
oncoming flow (gaps drawn from `frequency` m, at the ego's speed limit) runs on that lane
until the scenario ends (50 m past the accident, or the 240 s timeout)."""

from __future__ import annotations

from scenarios.errors import ScenarioError
from scenarios.library._blockers import opposite_flow, when_near
from scenarios.library._pending import FREQUENCY
from scenarios.library.accident import FIRST_DISTANCE, SECOND_DISTANCE, Accident
from scenarios.placement import move_forward


class AccidentTwoWays(Accident):
    type_name = "AccidentTwoWays"
    parameters = (*Accident.parameters, FREQUENCY)
    caps_background = False  # ScenarioRunner's stops the oncoming traffic instead

    def setup(self) -> None:
        super().setup()
        start = self.world.get_map().get_waypoint(self.trigger.location)
        first_wp = move_forward(move_forward(start, self.params["distance"]), FIRST_DISTANCE)
        self.first_location = first_wp.transform.location
        self.accident_wp = move_forward(first_wp, SECOND_DISTANCE)
        if self.accident_wp.get_left_lane() is None:
            raise ScenarioError(f"scenario {self.name}: no lane left of the accident")

    def behaviour(self) -> None:
        self.over = False
        self.flow: list = []

        def oncoming() -> None:
            self.flow = opposite_flow(self, self.accident_wp, self.params["frequency"])

        when_near(self, self.first_location, oncoming)
        try:
            super().behaviour()
        finally:
            self.over = True
