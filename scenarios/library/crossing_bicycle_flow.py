"""CrossingBicycleFlow (ScenarioRunner's cross_bicycle_flow.py): the ego turns at the
route's junction across a flow of bicycles that starts at `start_actor_flow` and rides
straight through the junction to 40 m past it, at `flow_speed` m/s, a new one each time
the last is a distance drawn from `source_dist_interval` away (some already on the way
when the ego triggers it). At a junction with lights every light is frozen red, the
ego's turning green after 5 s; the bicycles ignore lights. The scenario ends when the
ego leaves the junction (or after 240 s: a ScenarioTimeoutTest failure).

ScenarioRunner puts the flow on a bike lane (OpenDRIVE lane type "biking"). No map here
has one, so the flow rides the lane nearest `start_actor_flow` of type biking if one is
within 10 m, else the driving lane there; the background then gets no traffic from that
lane's entry either.
"""

from __future__ import annotations

from typing import Any

from scenarios.errors import ScenarioError
from scenarios.library._junction_turn import JunctionTurn
from scenarios.library._junctions import downstream, exit_of, light_of
from scenarios.params import Param
from world.actors.vehicle_state import TrafficLightState
from world.map.lane_enums import LaneType

SINK_DISTANCE = 40.0  # m past the junction
BIKE_LANE_REACH = 10.0  # m from start_actor_flow
STEP = 1.0  # m


class CrossingBicycleFlow(JunctionTurn):
    type_name = "CrossingBicycleFlow"
    parameters = (
        Param("start_actor_flow", "location"),
        Param("flow_speed", "float", 10.0),
        Param("source_dist_interval", "interval", (20.0, 50.0)),
    )
    flow_blueprint = "vehicle.diamondback.century"
    end_distance = 0.0
    stop_other_entries = True

    def exit_room(self) -> float:
        return 0.0

    def setup(self) -> None:
        self.signalized = False
        super().setup()
        if self.world.get_traffic_lights_in_junction(self.route.junction.id):
            self.signalized = True
            self._lights(self.route.junction, self.entry)

    def _flow_path(self, junction: Any) -> tuple[Any, Any, Any]:
        world_map = self.world.get_map()
        start = self.params["start_actor_flow"]
        source = world_map.get_waypoint(start, lane_type=LaneType.Biking)
        if source is None or source.transform.location.distance(start) > BIKE_LANE_REACH:
            source = world_map.get_waypoint(start)
        if source is None:
            raise ScenarioError(f"scenario {self.name}: no lane at start_actor_flow {start}")
        entry = source
        while True:
            ahead = entry.next(STEP)
            if not ahead:
                raise ScenarioError(f"scenario {self.name}: the bicycle lane reaches no junction")
            if ahead[0].is_junction:
                break
            entry = ahead[0]
        return entry, source, downstream(exit_of(entry, "straight"), SINK_DISTANCE)

    def _lights(self, junction: Any, entry: Any) -> None:
        self.lights = self.world.get_traffic_lights_in_junction(junction.id)
        ego = light_of(self.world, junction, self.route.entry)
        green, red = TrafficLightState.Green, TrafficLightState.Red
        self.initial = {light.id: red for light in self.lights}
        self.later = {light.id: green if light.id == ego.id else red for light in self.lights}
