"""PriorityAtJunction (ScenarioRunner's route support scenario of the same name): the
ego's light at the route's next junction turns green and every other light of the
junction red, frozen until the ego has driven through; the ego keeps its speed and the
other entries stop. The lights run on again afterwards."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import wait_until
from scenarios.errors import ScenarioError
from scenarios.library._junctions import in_junction, light_of, route_junction
from world.actors.vehicle_state import TrafficLightState


class PriorityAtJunction(Scenario):
    type_name = "PriorityAtJunction"
    parameters = ()

    def setup(self) -> None:
        self.route = route_junction(self, self.name)
        junction = self.route.junction
        self.lights = self.world.get_traffic_lights_in_junction(junction.id)
        if not self.lights:
            raise ScenarioError(f"scenario {self.name}: the route's junction has no lights")
        self.ego_light = light_of(self.world, junction, self.route.entry)

    def behaviour(self) -> None:
        for light in self.lights:
            green = light.id == self.ego_light.id
            light.set_state(TrafficLightState.Green if green else TrafficLightState.Red)
            light.freeze(True)
        inside = in_junction(self.world, self.ego)
        wait_until(inside)
        wait_until(lambda: not inside())

    def cleanup(self) -> None:
        for light in getattr(self, "lights", []):
            if light.is_alive:
                light.freeze(False)
        super().cleanup()
