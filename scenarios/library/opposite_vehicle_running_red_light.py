"""OppositeVehicleRunningRedLight (ScenarioRunner's opposite_vehicle_taking_priority.py):
at the first signalized junction past the trigger, the ego's light is frozen green and the
others red; an adversary waits 30 m before the stop line of the crossing road coming from
`direction` (the ego's right or left). When the ego is 2.2 s or 9 m from its stop line,
the adversary drives straight through the junction at 70 km/h (a target velocity each
tick, as ScenarioRunner's constant-velocity agent) ignoring its red light. The
lights go back to their cycle once it has crossed (or after 15 s). From the trigger the
background keeps the junction and the ego's way into it clear and sends nothing from the
adversary's entry nor into its exit."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import (
    destroy_actor,
    in_time_to_arrival,
    in_trigger_distance,
    is_in_front,
    keep_velocity,
    wait_until,
)
from scenarios.errors import ScenarioError, ScenarioParameterError
from scenarios.params import Param
from world.actors.vehicle_state import TrafficLightState
from world.geometry import Location, Transform

ADVERSARY_SPEED = 70.0  # km/h
SYNC_TIME = 2.2  # s from the ego to its stop line that starts the adversary
MIN_TRIGGER_DISTANCE = 9.0  # m
SPAWN_DISTANCE = 30.0  # m before the adversary's stop line
EXIT_DISTANCE = 40.0  # m past its stop line, straight on: where it heads for
CROSSED_TIMEOUT = 15.0  # s
LIFT = 0.5  # m
STOP_LINE_REACH = 15.0  # m: the ego's stop line lies within this of the junction's border


def _yaw_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


class OppositeVehicleRunningRedLight(Scenario):
    type_name = "OppositeVehicleRunningRedLight"
    parameters = (Param("direction", "str", "right"),)

    def setup(self) -> None:
        direction = self.params["direction"]
        if direction not in ("left", "right"):
            raise ScenarioParameterError(
                self.type_name, "direction", f"expected 'left' or 'right', found {direction!r}"
            )
        wp = self.world.get_map().get_waypoint(self.trigger.location)
        for _ in range(500):  # 1 m steps to the junction
            ahead = wp.next(1.0)
            if not ahead:
                break
            if ahead[0].is_junction:
                junction = ahead[0].get_junction()
                break
            wp = ahead[0]
        else:
            junction = None
        if junction is None:
            raise ScenarioError(f"scenario {self.name}: no junction within 500 m of the trigger")
        self.entry = wp.transform
        self.junction = junction
        lights = self.world.get_traffic_lights_in_junction(junction.id)
        if not lights:
            raise ScenarioError(f"scenario {self.name}: junction {junction.id} has no lights")
        ego_yaw = self.entry.rotation.yaw
        # coming from the ego's right, a vehicle heads toward the ego's left: yaw - 90
        wanted = ego_yaw - 90.0 if direction == "right" else ego_yaw + 90.0
        self.ego_light = self.adversary_light = None
        adversary_stop = None
        nearest = STOP_LINE_REACH
        for light in lights:
            for stop in light.get_stop_waypoints():
                yaw = stop.transform.rotation.yaw
                gap = stop.transform.location.distance(self.entry.location)
                if _yaw_gap(yaw, ego_yaw) < 30.0 and gap < nearest:
                    self.ego_light, self.ego_stop, nearest = light, stop.transform, gap
                elif _yaw_gap(yaw, wanted) < 30.0:
                    self.adversary_light, adversary_stop = light, stop
        if self.ego_light is None or adversary_stop is None:
            raise ScenarioError(
                f"scenario {self.name}: junction {junction.id} has no light for the ego's lane "
                f"or for a road from the {direction}"
            )
        self.lights = lights
        for light in lights:
            green = light == self.ego_light
            light.set_state(TrafficLightState.Green if green else TrafficLightState.Red)
            light.freeze(True)
        self.adversary_stop = adversary_stop
        back = adversary_stop.previous(SPAWN_DISTANCE)
        if not back:
            raise ScenarioError(f"scenario {self.name}: no lane {SPAWN_DISTANCE} m before")
        tf = back[0].transform
        start = Transform(Location(tf.location.x, tf.location.y, tf.location.z + LIFT), tf.rotation)
        self.adversary = self.spawn(self.random_blueprint("vehicle.*", base_type="car"), start)
        stop_tf = adversary_stop.transform
        forward = stop_tf.get_forward_vector()
        loc = stop_tf.location
        self.exit = Transform(
            Location(loc.x + forward.x * EXIT_DISTANCE, loc.y + forward.y * EXIT_DISTANCE, loc.z),
            stop_tf.rotation,
        )

    def behaviour(self) -> None:
        background = self.ctx.background
        if background is not None:  # ScenarioRunner's HandleJunctionScenario
            background.handle_junction(
                junction=self.junction,
                clear_junction=True,
                clear_ego_entry=True,
                remove_entries=[self.adversary_stop],
                remove_exits=[self.world.get_map().get_waypoint(self.exit.location)],
            )
        target = self.ego_stop.location
        arrives = in_time_to_arrival(self.ego, target, SYNC_TIME)
        near = in_trigger_distance(self.ego, target, MIN_TRIGGER_DISTANCE)
        wait_until(lambda: arrives() or near())
        keep_velocity(
            self.adversary,
            ADVERSARY_SPEED / 3.6,
            duration=CROSSED_TIMEOUT,
            until=lambda: is_in_front(self.adversary, self.exit),
        )
        destroy_actor(self.adversary)

    def cleanup(self) -> None:
        for light in getattr(self, "lights", []):
            if light.is_alive:
                light.freeze(False)
        super().cleanup()
