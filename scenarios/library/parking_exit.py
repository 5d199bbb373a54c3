"""ParkingExit (ScenarioRunner's parking_exit.py): the ego starts parked. At set-up it is
moved from the route's first point to the lane on `direction`'s side (a parking lane, or
the sidewalk where there is none), to the outer part of that lane by a quarter of (lane
width - its half width), between two parked cars `front_vehicle_distance` m ahead and
`behind_vehicle_distance` m behind it (placed the same way, hand brakes on); a car
spawned beside it on the route's lane drives off on the autopilot and is taken away after
50 m; the background cars within `flow_distance` m of the parking place go and the road
bubble spaces its cars `flow_distance` apart while the scenario runs (ScenarioRunner's
ChangeRoadBehavior; 15 m again after it). The ego must pull out and
merge; the scenario ends once it has driven front_vehicle_distance + 15 m (or after
240 s, a ScenarioTimeoutTest failure). Use it as the route's first scenario, triggered at
the route's first point."""

from __future__ import annotations

from scenarios.base import Scenario
from scenarios.behaviours import destroy_actor, drive_distance, follow_lane
from scenarios.errors import ScenarioError
from scenarios.library._blockers import (
    SCENARIO_TIMEOUT,
    check_direction,
    hold,
    odometer,
    park_car,
)
from scenarios.library._pending import DIRECTION, SPEED
from scenarios.params import Param
from scenarios.placement import outer_part, shifted
from world.geometry import Location

SIDE_END_DISTANCE = 50.0  # m the car beside the ego drives before it is taken away
END_MARGIN = 15.0  # m past the front car's distance: the ego has merged
ROAD_SPACING = 15.0  # m between the background's road vehicles once it is over
SPAWN_LIFT = 0.5  # m, the car beside the ego
EGO_LIFT = 0.05  # m, ScenarioRunner's: just clear of the ground


class ParkingExit(Scenario):
    type_name = "ParkingExit"
    parameters = (
        Param("front_vehicle_distance", "float", 20.0),
        Param("behind_vehicle_distance", "float", 10.0),
        DIRECTION,
        Param("flow_distance", "float", 25.0),
        SPEED,
    )
    scenario_timeout = SCENARIO_TIMEOUT

    def setup(self) -> None:
        direction = self.params["direction"]
        check_direction(self.name, direction)
        reference = self.world.get_map().get_waypoint(self.trigger.location)
        parking = reference.get_right_lane() if direction == "right" else reference.get_left_lane()
        if parking is None:
            raise ScenarioError(f"scenario {self.name}: no lane on the {direction} to park in")
        front = parking.next(self.params["front_vehicle_distance"])
        behind = parking.previous(self.params["behind_vehicle_distance"])
        if not front or not behind:
            raise ScenarioError(f"scenario {self.name}: no room for the parked cars")
        self.front_car = park_car(self, front[0], direction)
        hold(self.front_car)
        self.behind_car = park_car(self, behind[0], direction)
        hold(self.behind_car)
        self.ego.set_location(outer_part(parking, self.ego, direction, EGO_LIFT))
        self._leave_gap(self.ego.get_location(), self.params["flow_distance"])
        blueprint = self.random_blueprint("vehicle.*", base_type="car", generation=2)
        self.side_car = self.spawn(blueprint, shifted(reference, 0.0, lift=SPAWN_LIFT))

    def _leave_gap(self, around: Location, radius: float) -> None:
        """The background cars within `radius` m of the ego's parking place go: the gap in
        the road's traffic ScenarioRunner makes by spacing it `flow_distance` apart."""
        if self.ctx.background is not None:
            self.ctx.background.clear_near(around, radius)

    def behaviour(self) -> None:
        if self.ctx.background is not None:  # ScenarioRunner's ChangeRoadBehavior
            self.ctx.background.change_road_behaviour(spawn_dist=self.params["flow_distance"])
            self.spaced = True

        def side_car_drives_off() -> None:
            follow_lane(self.side_car)
            drive_distance(self.side_car, SIDE_END_DISTANCE)
            destroy_actor(self.side_car)

        self.in_parallel(side_car_drives_off)
        self.wait_for_ego(odometer(self.ego, self.params["front_vehicle_distance"] + END_MARGIN))

    def cleanup(self) -> None:
        if self.ctx.background is not None and getattr(self, "spaced", False):
            self.ctx.background.change_road_behaviour(spawn_dist=ROAD_SPACING)
        super().cleanup()
