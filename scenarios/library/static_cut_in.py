"""StaticCutIn (ScenarioRunner's cut_in_with_static_vehicle.py): `distance` m past the
trigger, a row of parked cars on the lane to `direction` of the ego's, 11 m apart: two,
then the adversary, then three more. When the ego is 2.7 s or 15 m from the adversary's
place, the adversary pulls out into the ego's lane on the autopilot (60 km/h) and drives
70 m on; then it goes. The background leaves the lane of the parked cars empty meanwhile
(ScenarioRunner's RemoveRoadLane, then ReAddRoadLane)."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import (
    change_lane,
    destroy_actor,
    drive_distance,
    follow_lane,
    in_time_to_arrival,
    in_trigger_distance,
    wait_until,
)
from scenarios.errors import ScenarioError, ScenarioParameterError
from scenarios.params import Param
from world.actors.controls import VehicleControl
from world.geometry import Location, Transform

REACTION_TIME = 2.7  # s
MIN_TRIGGER_DISTANCE = 15.0  # m
BACK_VEHICLES, FRONT_VEHICLES = 2, 3
VEHICLE_GAP = 11.0  # m
SPEED = 60.0  # km/h
ADVERSARY_END_DISTANCE = 70.0  # m
TIMEOUT = 20.0  # s for the adversary's drive
LIFT = 0.5  # m
CLEAR_RADIUS = 8.0  # m of background traffic cleared around each parked car


class StaticCutIn(Scenario):
    type_name = "StaticCutIn"
    parameters = (Param("distance", "float", 100.0), Param("direction", "str", "right"))

    def _side(self, wp):
        side = wp.get_left_lane() if self.params["direction"] == "left" else wp.get_right_lane()
        if side is None or side.lane_id * wp.lane_id <= 0:
            raise ScenarioError(
                f"scenario {self.name}: no lane to the {self.params['direction']} at "
                f"{wp.transform.location}"
            )
        return side

    def _parked(self, wp):
        tf = self._side(wp).transform
        where = Transform(Location(tf.location.x, tf.location.y, tf.location.z + LIFT), tf.rotation)
        if self.ctx.background is not None:
            self.ctx.background.clear_near(where.location, CLEAR_RADIUS)
        car = self.spawn(self.random_blueprint("vehicle.*", base_type="car"), where)
        car.apply_control(VehicleControl(hand_brake=True))
        return car

    def _ahead(self, wp, distance: float):
        ahead = wp.next(distance)
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: the lane ends {distance} m on")
        return ahead[0]

    def setup(self) -> None:
        direction = self.params["direction"]
        if direction not in ("left", "right"):
            raise ScenarioParameterError(
                self.type_name, "direction", f"expected 'left' or 'right', found {direction!r}"
            )
        wp = self._ahead(self.world.get_map().get_waypoint(self.trigger.location), 1e-3)
        wp = self._ahead(wp, self.params["distance"])
        for _ in range(BACK_VEHICLES):
            self._parked(wp)
            wp = self._ahead(wp, VEHICLE_GAP)
        self.collision_wp = wp
        self.adversary = self._parked(wp)
        for _ in range(FRONT_VEHICLES):
            wp = self._ahead(wp, VEHICLE_GAP)
            self._parked(wp)

    def behaviour(self) -> None:
        background = self.ctx.background
        if background is not None:  # ScenarioRunner's LeaveSpaceInFront and RemoveRoadLane
            cars = BACK_VEHICLES + FRONT_VEHICLES + 1
            background.clear_ahead(0.0, self.params["distance"] + VEHICLE_GAP * cars)
            ego_wp = self.world.get_map().get_waypoint(self.ego.get_location())
            self.side_offset = background.lane_offset(self._side(ego_wp))
            background.remove_lane(self._side(ego_wp))
        target = self.collision_wp.transform.location
        arrives = in_time_to_arrival(self.ego, target, REACTION_TIME)
        near = in_trigger_distance(self.ego, target, MIN_TRIGGER_DISTANCE)
        wait_until(lambda: arrives() or near())
        self.adversary.apply_control(VehicleControl())  # the hand brake off
        follow_lane(self.adversary, SPEED)
        change_lane(self.adversary, "left" if self.params["direction"] == "right" else "right")
        drive_distance(self.adversary, ADVERSARY_END_DISTANCE, TIMEOUT)
        destroy_actor(self.adversary)

    def cleanup(self) -> None:
        offset = getattr(self, "side_offset", None)
        if self.ctx.background is not None and offset is not None:  # ReAddRoadLane
            self.ctx.background.readd_lane(offset)
        super().cleanup()
