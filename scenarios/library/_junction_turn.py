"""The junction-turn scenarios' shared behaviour (ScenarioRunner's JunctionLeftTurn and
JunctionRightTurn): the ego turns at the route's junction across a flow of vehicles that
comes from one side (the opposite entry for a left turn, the left one for a right turn)
and drives straight on through the junction.

The flow's source is 5 s of its speed back from its entry (or the previous junction,
whichever is nearer), its sink 3 s of its speed past the junction; `flow_speed` is in
m/s, as ScenarioRunner's; when the ego triggers it, vehicles already stand on the flow's
entry lane (ScenarioRunner's initial actors) and the flow spawns more. Signalized: the
lights of the junction are frozen, the flow's green and the ego's red for the first 5 s,
then the ego's green too (every other light red); non-signalized: the lights are left
alone. The scenario ends 10 m after the ego leaves the junction (or after 240 s of
waiting: a ScenarioTimeoutTest failure).

The background traffic, as ScenarioRunner's HandleJunctionScenario leaves it: the
junction and the ego's way into it cleared, no traffic from the flow's entry lanes (nor,
turning left, into the flow's exit lanes or on the oncoming lanes), the other entries
held before the junction when it has no lights, and the flow's sink distance plus 20 m
past the route's exit left free.
"""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from scenarios.background.route import same_direction_lanes
from scenarios.base import Scenario
from scenarios.behaviours import TM_PORT, actor_flow, drive_distance, follow_lane, step, wait
from scenarios.library._junctions import (
    clear_junction,
    downstream,
    entry_on,
    exit_of,
    in_junction,
    light_of,
    route_junction,
    upstream,
)
from scenarios.params import Param
from world.actors.vehicle_state import TrafficLightState
from world.geometry import Location, Transform

JUNCTION_FLOW = (
    Param("flow_speed", "float", 20.0),
    Param("source_dist_interval", "interval", (25.0, 50.0)),
)
GREEN_DELAY = 5.0  # s the ego's light stays red
END_DISTANCE = 10.0  # m after the junction
SOURCE_SECONDS = 5.0
SINK_SECONDS = 3.0
KMH = 3.6
SPAWN_LIFT = 0.3  # m
FIRST_GAP = 6.0  # m before the entry: the initial vehicle nearest the junction
FLOW_BLUEPRINT = "vehicle.lincoln.mkz_2017"
EXIT_ROOM = 20.0  # m past the flow's sink distance left free past the route's exit


def _lifted(transform: Transform) -> Transform:
    return Transform(transform.location + Location(0.0, 0.0, SPAWN_LIFT), transform.rotation)


class JunctionTurn(Scenario):
    """A flow from `flow_side` crosses the junction the ego turns at."""

    parameters = JUNCTION_FLOW
    scenario_timeout = 240.0
    flow_side: ClassVar[str] = "opposite"
    signalized: ClassVar[bool] = False
    flow_blueprint: ClassVar[str] = FLOW_BLUEPRINT
    end_distance: ClassVar[float] = END_DISTANCE
    stop_other_entries: ClassVar[bool] = False  # the background's other entries wait
    clear_flow_exit: ClassVar[bool] = False  # no background traffic into the flow's exit
    oncoming_off: ClassVar[bool] = False  # no background oncoming traffic meanwhile

    def setup(self) -> None:
        self.route = route_junction(self, self.name)
        junction = self.route.junction
        entry, self.source, self.sink = self._flow_path(junction)
        self.entry = entry
        self.flow: list[Any] = []
        self.lights: list[Any] = []
        if self.signalized:
            self._lights(junction, entry)

    def _flow_path(self, junction: Any) -> tuple[Any, Any, Any]:
        """The flow's entry lane waypoint, its source and its sink."""
        speed = self.params["flow_speed"]
        entry = entry_on(junction, self.route.entry, self.flow_side, self.name)
        source = upstream(entry, SOURCE_SECONDS * speed)
        return entry, source, downstream(exit_of(entry, "straight"), SINK_SECONDS * speed)

    def _initial_flow(self) -> None:
        """Vehicles already on the flow's entry lane (ScenarioRunner's initial actors),
        gaps drawn from the flow's interval; nearest the source last, as the flow wants."""
        library = self.world.get_blueprint_library()
        blueprint = library.find(self.flow_blueprint).copy()
        blueprint.set_attribute("role_name", "scenario")
        tm = self.world.get_trafficmanager(TM_PORT)
        low, high = self.params["source_dist_interval"]
        room = self.entry.transform.location.distance(self.source.transform.location)
        back = FIRST_GAP
        while back < room - low:
            wp = self.entry.previous(back)
            if not wp:
                break
            actor = self.world.try_spawn_actor(blueprint, _lifted(wp[0].transform))
            if actor is not None:
                self.flow.append(actor)
                follow_lane(actor, self.params["flow_speed"] * KMH, ignore_lights=True)
                tm.set_path(actor, [self.sink.transform.location])
            back += float(self.rng.uniform(low, high))

    def _lights(self, junction: Any, entry: Any) -> None:
        self.lights = self.world.get_traffic_lights_in_junction(junction.id)
        ego = light_of(self.world, junction, self.route.entry)
        flow = light_of(self.world, junction, entry)
        self.ego_light = ego
        green, red = TrafficLightState.Green, TrafficLightState.Red
        self.initial = {light.id: green if light.id == flow.id else red for light in self.lights}
        self.later = {
            light.id: green if light.id in (flow.id, ego.id) else red for light in self.lights
        }

    def _set_lights(self, states: dict[int, Any]) -> None:
        for light in self.lights:
            light.set_state(states[light.id])
            light.freeze(True)

    def exit_room(self) -> float:
        """m past the route's exit the background leaves free."""
        return SINK_SECONDS * self.params["flow_speed"] + EXIT_ROOM

    def _background(self) -> None:
        background = self.ctx.background
        if background is None:
            return
        exits = [wp for _, wp in same_direction_lanes(self.sink)] if self.clear_flow_exit else []
        clear_junction(
            self,
            self.route,
            remove_entries=[wp for _, wp in same_direction_lanes(self.entry)],
            remove_exits=exits,
            stop_entries=self.stop_other_entries,
            extend_road_exit=self.exit_room(),
        )
        if self.oncoming_off:
            background.set_opposite_flow(active=False)

    def behaviour(self) -> None:
        self._background()
        self.done = False
        speed = self.params["flow_speed"]
        source = self.source.transform
        lifted = _lifted(source)
        self._initial_flow()
        flow = partial(
            actor_flow, blueprint=self.flow_blueprint, spawned=self.flow, until=lambda: self.done
        )
        self.in_parallel(
            flow,
            self.world,
            lifted,
            self.sink.transform.location,
            speed * KMH,
            self.params["source_dist_interval"],
            self.rng,
        )
        if self.signalized:
            self._set_lights(self.initial)
            wait(GREEN_DELAY)
            self._set_lights(self.later)
        inside = in_junction(self.world, self.ego)
        if self.wait_for_ego(inside) and self.wait_for_ego(lambda: not inside()):
            drive_distance(self.ego, self.end_distance)
        self.done = True
        step()

    def cleanup(self) -> None:
        self.done = True
        started = getattr(self, "done", None) is not None  # the behaviour ran
        if started and self.oncoming_off and self.ctx.background is not None:
            self.ctx.background.set_opposite_flow(active=True)
        for light in self.lights:
            if light.is_alive:
                light.freeze(False)
        super().cleanup()
