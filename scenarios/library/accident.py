"""Accident (ScenarioRunner's route_obstacles.py): `distance` m past the trigger, a police
car with its lights on, then 10 m and 6 m further two crashed cars, all shifted toward
`direction` in the ego's lane and held by their hand brakes, a warning sign past the
outermost driving or parking lane at the trigger (on the sidewalk, say). The lane stays
blocked; the scenario ends when the ego is 50 m past the last car, or after 240 s (the
ScenarioTimeoutTest). 5 s after the ego comes within 50 m of the first crashed car, the
background's cars drive no faster than `speed` km/h until the scenario ends."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import is_in_front
from scenarios.errors import ScenarioParameterError
from scenarios.library._blockers import when_near
from scenarios.params import Param
from scenarios.placement import move_forward, outermost_lane, shifted
from world.actors.controls import VehicleControl
from world.actors.vehicle_state import VehicleLightState
from world.map.lane_enums import LaneType

FIRST_DISTANCE = 10.0  # m from the police car to the first crashed car
SECOND_DISTANCE = 6.0  # m to the second
END_DISTANCE = 50.0  # m past the second: the ego has gone by
OFFSET = 0.6  # of half the lane width, toward `direction`
LIFT = 0.5  # m above the lane, as vehicles spawn
POLICE = "vehicle.dodge.charger_police_2020"
SIGN = "static.prop.warningaccident"
LIGHTS = VehicleLightState.Special1 | VehicleLightState.Special2 | VehicleLightState.Position


class Accident(Scenario):
    type_name = "Accident"
    parameters = (
        Param("distance", "float", 120.0),
        Param("direction", "str", "right"),
        Param("speed", "float", 60.0),
    )
    scenario_timeout = 240.0
    caps_background = True  # the background's cars no faster than `speed` near it

    def setup(self) -> None:
        direction = self.params["direction"]
        if direction not in ("left", "right"):
            raise ScenarioParameterError(
                self.type_name, "direction", f"expected 'left' or 'right', found {direction!r}"
            )
        distance = self.params["distance"]
        if self.ctx.background is not None:  # the obstacles' stretch of the route
            span = distance + FIRST_DISTANCE + SECOND_DISTANCE + 20.0
            self.ctx.background.clear_route(self.trigger_index, self.trigger_index + int(span))
        start = self.world.get_map().get_waypoint(self.trigger.location)
        side = outermost_lane(start, direction, (LaneType.Driving, LaneType.Parking))
        step = side.get_right_lane() if direction == "right" else side.get_left_lane()
        place = step if step is not None and step.lane_id * side.lane_id > 0 else side
        sign_tf = shifted(place, 0.3 * side.lane_width, direction, lift=0.2, yaw=90)
        sign = self.spawn(SIGN, sign_tf)
        sign.set_simulate_physics(False)
        police_wp = move_forward(start, distance)
        self.police = self._obstacle(police_wp, POLICE)
        self.police.set_light_state(self.police.get_light_state() | LIGHTS)
        first_wp = move_forward(police_wp, FIRST_DISTANCE)
        second_wp = move_forward(first_wp, SECOND_DISTANCE)
        crashed = [
            self._obstacle(wp, self.random_blueprint("vehicle.*", base_type="car", generation=2))
            for wp in (first_wp, second_wp)
        ]
        self.obstacles = [self.police, *crashed]
        self.end = move_forward(second_wp, END_DISTANCE).transform

    def _obstacle(self, wp, blueprint: str):
        offset = OFFSET * wp.lane_width / 2.0
        actor = self.spawn(blueprint, shifted(wp, offset, self.params["direction"], lift=LIFT))
        actor.apply_control(VehicleControl(hand_brake=True))
        return actor

    def behaviour(self) -> None:
        background = self.ctx.background
        if background is not None:  # ScenarioRunner's LeaveSpaceInFront
            span = self.params["distance"] + FIRST_DISTANCE + SECOND_DISTANCE + 20.0
            background.clear_ahead(0.0, span)
        self.over = False
        if background is not None and self.caps_background:  # ScenarioRunner's SetMaxSpeed
            cap = self.params["speed"]
            when_near(self, self.obstacles[1], lambda: background.set_max_speed(cap))
        try:
            self.wait_for_ego(lambda: is_in_front(self.ego, self.end))
        finally:
            self.over = True
            if background is not None and self.caps_background:
                background.set_max_speed(0.0)
