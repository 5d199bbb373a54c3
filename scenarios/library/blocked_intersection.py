"""BlockedIntersection (ScenarioRunner's blocked_intersection.py): the ego turns at the
route's junction to find its exit blocked by a stopped car 5 m past the junction. The car
appears when the ego reaches the trigger (the junction and the ego's way to it cleared of
background traffic), stands with its brakes on, and goes 10 s after the ego comes within
13 m of it; 240 s without the ego coming near score a ScenarioTimeoutTest failure."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import destroy_actor, in_trigger_distance, stop_vehicle, wait
from scenarios.library._junctions import clear_junction, downstream, route_junction
from world.geometry import Location, Transform

BLOCKER_DISTANCE = 5.0  # m past the junction's exit
TRIGGER_DISTANCE = 13.0  # m between the ego and the blocker
STOP_TIME = 10.0  # s
BLUEPRINT = "vehicle.lincoln.mkz_2017"
SPAWN_LIFT = 0.2  # m


class BlockedIntersection(Scenario):
    type_name = "BlockedIntersection"
    parameters = ()
    scenario_timeout = 240.0

    def setup(self) -> None:
        self.route = route_junction(self, self.name)
        self.place = downstream(self.route.exit, BLOCKER_DISTANCE).transform

    def behaviour(self) -> None:
        clear_junction(self, self.route)
        lifted = Transform(
            self.place.location + Location(0.0, 0.0, SPAWN_LIFT), self.place.rotation
        )
        self.blocker = self.spawn(BLUEPRINT, lifted)
        stop_vehicle(self.blocker)
        if self.wait_for_ego(in_trigger_distance(self.ego, self.blocker, TRIGGER_DISTANCE)):
            wait(STOP_TIME)
        destroy_actor(self.blocker)
