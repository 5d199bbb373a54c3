"""VehicleOpensDoorTwoWays (ScenarioRunner's vehicle_opens_door.py): a car parked on the
lane beside the ego's (`direction`'s side, a parking lane or sidewalk) `distance` m ahead
of the trigger, moved towards the ego's lane by a quarter of (lane width - its half
width), opens its road-side door (FL on the right, FR on the left) when the ego is 3 s
from it at its speed, or 10 m; 5 s later an oncoming flow (gaps from `frequency`) runs on
the lane left of the ego's, which the ego must borrow. The background vehicles behind the
ego stop when the door opens, until the scenario ends 50 m past the car (or after 240 s,
a ScenarioTimeoutTest failure)."""

from __future__ import annotations

from scenarios.behaviours import in_time_to_arrival, in_trigger_distance, open_door, wait_until
from scenarios.errors import ScenarioError
from scenarios.library._blockers import (
    END_DISTANCE,
    LaneBlockScenario,
    check_direction,
    clear_stretch,
    hold,
    opposite_flow,
)
from scenarios.library._pending import DIRECTION, FREQUENCY, SPEED
from scenarios.params import Param
from scenarios.placement import move_forward, shifted
from world.actors.vehicle_state import VehicleDoor

REACTION_TIME = 3.0  # s: the door opens when the ego is this far from the car at its speed
MIN_TRIGGER_DISTANCE = 10.0  # m: or this near
SPAWN_LIFT = 0.5  # m


class VehicleOpensDoorTwoWays(LaneBlockScenario):
    type_name = "VehicleOpensDoorTwoWays"
    parameters = (Param("distance", "float", 50.0), DIRECTION, SPEED, FREQUENCY)

    def setup(self) -> None:
        direction = self.params["direction"]
        check_direction(self.name, direction)
        clear_stretch(self, self.params["distance"] + 20.0)
        ahead = self.start_wp().next(self.params["distance"])
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: no place for the parked car")
        self.front_wp = ahead[0]
        side = (
            self.front_wp.get_right_lane()
            if direction == "right"
            else self.front_wp.get_left_lane()
        )
        if side is None:
            raise ScenarioError(f"scenario {self.name}: no lane on the {direction} to park in")
        blueprint = self.random_blueprint("vehicle.*", base_type="car", has_dynamic_doors="true")
        self.car = self.spawn(blueprint, shifted(side, 0.0, lift=SPAWN_LIFT))
        # towards the ego's lane: a quarter of what the lane leaves beside the car's half width
        inward = (side.lane_width - self.car.bounding_box.extent.y) / 4.0
        away = "left" if direction == "right" else "right"
        self.car.set_location(shifted(side, inward, away, lift=SPAWN_LIFT).location)
        hold(self.car)
        self.door = VehicleDoor.FL if direction == "right" else VehicleDoor.FR
        self.obstacle_wp = self.front_wp
        self.near = self.front_wp.transform.location
        self.end_wp = move_forward(self.front_wp, END_DISTANCE)
        self.clear_distance = self.params["distance"] + 20.0

    def start_changes(self) -> None:
        self.door_opened = False

        def open_then_flow() -> None:
            soon = in_time_to_arrival(self.ego, self.near, REACTION_TIME)
            close = in_trigger_distance(self.ego, self.near, MIN_TRIGGER_DISTANCE)
            if not wait_until(lambda: self.over or soon() or close()) or self.over:
                return
            open_door(self.car, self.door)
            self.door_opened = True
            if self.ctx.background is not None:  # ScenarioRunner's StopBackVehicles
                self.ctx.background.stop_back_vehicles()
            if not wait_until(lambda: self.over, self.wait_duration):
                self.flow = opposite_flow(self, self.obstacle_wp, self.params["frequency"])

        self.in_parallel(open_then_flow)

    def cleanup(self) -> None:
        if self.ctx.background is not None and getattr(self, "door_opened", False):
            self.ctx.background.start_back_vehicles()  # ScenarioRunner's StartBackVehicles
        super().cleanup()
