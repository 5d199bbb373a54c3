"""ParkedObstacle and ParkedObstacleTwoWays (ScenarioRunner's route_obstacles.py): a car
parked badly `distance` m ahead of the trigger, 0.7 of half a lane width towards
`direction`'s side, blinkers on, hand brake on, with a warning sign at the road's side.
The ego must leave its lane to pass; in the two-ways type the lane left of it is the
oncoming one, with a flow at `frequency` m gaps once the ego is near. The scenario ends
50 m past the car (or after 240 s, a ScenarioTimeoutTest failure)."""

from __future__ import annotations

from scenarios.library._blockers import (
    END_DISTANCE,
    LaneBlockScenario,
    check_direction,
    clear_stretch,
    hold,
    spawn_side_prop,
)
from scenarios.library._pending import ACCIDENT, FREQUENCY
from scenarios.placement import move_forward, shifted
from world.actors.vehicle_state import VehicleLightState

OFFSET = 0.7  # of half the lane width, towards `direction`
LIGHTS = VehicleLightState.RightBlinker | VehicleLightState.LeftBlinker | VehicleLightState.Position
SPAWN_LIFT = 0.5  # m


class ParkedObstacle(LaneBlockScenario):
    type_name = "ParkedObstacle"
    parameters = ACCIDENT

    def setup(self) -> None:
        direction = self.params["direction"]
        check_direction(self.name, direction)
        clear_stretch(self, self.params["distance"] + 20.0)
        start = self.start_wp()
        spawn_side_prop(self, start, direction, "static.prop.warningaccident")
        self.obstacle_wp = move_forward(start, self.params["distance"])
        shift = OFFSET * self.obstacle_wp.lane_width / 2.0
        self.car = self.spawn(
            self.random_blueprint("vehicle.*", base_type="car", generation=2),
            shifted(self.obstacle_wp, shift, direction, lift=SPAWN_LIFT),
            role_name="scenario no lights",
        )
        self.car.set_light_state(VehicleLightState(self.car.get_light_state() | LIGHTS))
        hold(self.car)
        self.near = self.obstacle_wp.transform.location
        self.end_wp = move_forward(self.obstacle_wp, END_DISTANCE)
        self.clear_distance = self.params["distance"] + 20.0


class ParkedObstacleTwoWays(ParkedObstacle):
    type_name = "ParkedObstacleTwoWays"
    parameters = (*ACCIDENT, FREQUENCY)
    two_ways = True
