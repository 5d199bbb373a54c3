"""YieldToEmergencyVehicle (ScenarioRunner's yield_to_emergency_vehicle.py): when the ego
reaches the trigger, the background traffic leaves the ego's lane (until the scenario
ends) and an emergency vehicle (lights on) appears `distance` m behind the trigger on that
lane, driving the route at the ego's speed plus 25 km/h. It ends 10 s after the vehicle
comes within 50 m of the ego, or once it is ahead of the ego and has driven 50 m more.
YieldToEmergencyVehicleTest scores the ego keeping it behind (0.7)."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import (
    TM_PORT,
    destroy_actor,
    follow_lane,
    is_in_front,
    speed_of,
    step,
)
from scenarios.errors import ScenarioError
from scenarios.params import Param
from world.actors.vehicle_state import VehicleLightState
from world.geometry import Location, Transform

SPEED_INCREMENT = 25.0  # km/h over the ego's speed
TRIGGER_DISTANCE = 50.0  # m between the vehicle and the ego that starts the idle time
IDLE_SECONDS = 10.0
END_DISTANCE = 50.0  # m the vehicle drives once ahead of the ego
LIFT = 0.5  # m
LIGHTS = VehicleLightState.Special1 | VehicleLightState.Special2


class YieldToEmergencyVehicle(Scenario):
    type_name = "YieldToEmergencyVehicle"
    parameters = (Param("distance", "float", 140.0),)

    def setup(self) -> None:
        start = self.world.get_map().get_waypoint(self.trigger.location)
        behind = start.previous(self.params["distance"])
        if not behind:
            raise ScenarioError(f"scenario {self.name}: no lane {self.params['distance']} m back")
        tf = behind[0].transform
        self.start_transform = Transform(
            Location(tf.location.x, tf.location.y, tf.location.z + LIFT), tf.rotation
        )
        self.blueprint = self.random_blueprint("vehicle.*", special_type="emergency")

    def behaviour(self) -> None:
        distance = self.params["distance"]
        background = self.ctx.background
        if background is not None:  # ScenarioRunner's RemoveRoadLane, on the route
            first = max(self.trigger_index - int(distance) - 10, 0)
            background.clear_route(first, self.trigger_index + int(TRIGGER_DISTANCE))
            background.remove_lane(self.world.get_map().get_waypoint(self.ego.get_location()))
        self.ev = self.spawn(self.blueprint, self.start_transform)
        self.ev.set_light_state(LIGHTS)
        self.ctx.criteria.yield_to_emergency_vehicle(self.ev)
        follow_lane(self.ev, SPEED_INCREMENT, ignore_lights=True)
        route_ahead = [tf.location for tf, _ in self.plan[self.trigger_index :: 10]]
        tm = self.world.get_trafficmanager(TM_PORT)
        tm.set_path(self.ev, route_ahead)
        idle = 0.0
        near = False
        ahead_from: Location | None = None
        driven = 0.0
        while True:
            tm.set_desired_speed(self.ev, speed_of(self.ego) * 3.6 + SPEED_INCREMENT)
            delta = step().delta_seconds
            if not near and self.ev.get_location().distance(self.ego.get_location()) < (
                TRIGGER_DISTANCE
            ):
                near = True
            if near:
                idle += delta
                if idle + 1e-9 >= IDLE_SECONDS:
                    break
            if ahead_from is None and is_in_front(self.ev, self.ego):
                ahead_from = self.ev.get_location()
            if ahead_from is not None:
                here = self.ev.get_location()
                driven += here.distance(ahead_from)
                ahead_from = here
                if driven >= END_DISTANCE:
                    break
        destroy_actor(self.ev)

    def cleanup(self) -> None:
        if self.ctx.background is not None:  # ScenarioRunner's ReAddRoadLane(0)
            self.ctx.background.readd_lane(0)
        super().cleanup()
