"""ParkingCrossingPedestrian (ScenarioRunner's object_crash_vehicle.py, a variation of
DynamicObjectCrossing): a pedestrian steps out from behind a car parked at the side of
the ego's lane and walks across it.

The car stands `distance` m on from the trigger, one lane width to the `direction` side
of the ego's lane, its hand brake on; the pedestrian waits just past its front (its half
length + 0.5 m further), facing the road, turned by `crossing_angle` (within +-90
degrees). When the ego reaches the trigger the background cars in the next
`distance` + 15 m go; once the ego is within 6 m of the pedestrian's crossing point or
2.15 s from it at its speed (0.1 s more per 5 degrees of crossing angle), the pedestrian
walks 8 m at 2 m/s. Then both are removed and the scenario ends 40 m of ego driving later.
"""

from __future__ import annotations

import math

from scenarios.base import Scenario
from scenarios.behaviours import (
    destroy_actor,
    drive_distance,
    in_time_to_arrival,
    in_trigger_distance,
    keep_velocity,
    wait_until,
)
from scenarios.errors import ScenarioError
from scenarios.params import Param
from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform

SPEED = 2.0  # m/s, the pedestrian's
TRIGGER_DISTANCE = 6.0  # m from the crossing point
WALK_DISTANCE = 8.0  # m: across one lane of a one-way road
END_DISTANCE = 40.0  # m the ego drives after
CLEAR_MARGIN = 15.0  # m past the car kept free of background traffic
FRONT_GAP = 0.5  # m between the car's front and the pedestrian
REACTION_TIME = 2.15  # s, at a square crossing
REACTION_PER_STEP = 0.1  # s more per ANGLE_STEP degrees
ANGLE_STEP = 5.0
CARS = ("vehicle.audi.a2", "vehicle.citroen.c3", "vehicle.nissan.micra", "vehicle.seat.leon")


class ParkingCrossingPedestrian(Scenario):
    type_name = "ParkingCrossingPedestrian"
    parameters = (
        Param("distance", "float", 12.0),
        Param("crossing_angle", "float", 0.0),
        Param("direction", "str", "right"),
    )

    def _beside(self, wp, lift: float) -> Location:
        """One lane width to the scenario's side of `wp`, lifted by `lift`."""
        loc = wp.transform.location
        right = wp.transform.get_right_vector()
        sign = 1.0 if self.params["direction"] == "right" else -1.0
        width = wp.lane_width * sign
        return Location(loc.x + width * right.x, loc.y + width * right.y, loc.z + lift)

    def setup(self) -> None:
        angle, direction = self.params["crossing_angle"], self.params["direction"]
        if abs(angle) > 90.0:
            raise ScenarioError(
                f"scenario {self.name}: crossing_angle must be within -90 and 90, not {angle}"
            )
        if direction not in ("left", "right"):
            raise ScenarioError(
                f"scenario {self.name}: direction must be 'left' or 'right', not {direction!r}"
            )
        start = self.world.get_map().get_waypoint(self.trigger.location)
        ahead = start.next(self.params["distance"])
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: the road ends before the parked car")
        car_wp = ahead[0]
        car_tf = Transform(self._beside(car_wp, 0.5), car_wp.transform.rotation)
        self.car = self.spawn(CARS[int(self.rng.integers(len(CARS)))], car_tf)
        self.car.apply_control(VehicleControl(hand_brake=True))
        walker_wps = car_wp.next(self.car.bounding_box.extent.x + FRONT_GAP)
        if not walker_wps:
            raise ScenarioError(f"scenario {self.name}: no room past the parked car")
        self.crossing = walker_wps[0].transform.location
        rot = walker_wps[0].transform.rotation
        turn = 270.0 - angle if direction == "right" else 90.0 + angle
        self.walker_tf = Transform(
            self._beside(walker_wps[0], 1.2), Rotation(rot.pitch, rot.yaw + turn, rot.roll)
        )
        library = self.world.get_blueprint_library()
        walkers = sorted(bp.id for bp in library.filter("walker.pedestrian.*"))
        self.walker = self.spawn(walkers[int(self.rng.integers(len(walkers)))], self.walker_tf)
        self.reaction = REACTION_TIME + REACTION_PER_STEP * math.floor(angle / ANGLE_STEP)

    def behaviour(self) -> None:
        if self.ctx.background is not None:
            self.ctx.background.clear_ahead(0.0, self.params["distance"] + CLEAR_MARGIN)
        timed = in_time_to_arrival(self.ego, self.crossing, self.reaction)
        close = in_trigger_distance(self.ego, self.crossing, TRIGGER_DISTANCE)
        wait_until(lambda: timed() or close())
        keep_velocity(self.walker, SPEED, duration=WALK_DISTANCE / SPEED, distance=WALK_DISTANCE)
        destroy_actor(self.walker)
        destroy_actor(self.car)
        drive_distance(self.ego, END_DISTANCE)
