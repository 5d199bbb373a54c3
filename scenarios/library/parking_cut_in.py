"""ParkingCutIn (ScenarioRunner's parking_cut_in.py): a car parked beside the ego's lane
pulls out into it in front of the ego.

Two cars stand on the lane to `direction` of the ego's lane on its side of the road (a
parking lane; on a road without one, whatever lane is there, as ScenarioRunner takes it),
at the outer part of that lane (placement.outer_part): a blocker 28 m past the trigger,
its hand brake on, and the cut-in car 35 m past it. When the ego reaches the trigger the
background cars in the 45 m ahead go. Once the ego is 2.35 s (at its speed) or 10 m from
the cut-in car's point on the ego's lane, the car drives off on the autopilot at 20 km/h
ignoring lights (ScenarioRunner's BasicAgent, which follows the nearest driving lane: the
ego's), so it cuts into the ego's lane in front of it; after 30 m of its drive both cars
go and the scenario ends.
"""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import (
    destroy_actor,
    drive_distance,
    follow_lane,
    in_time_to_arrival,
    in_trigger_distance,
    wait_until,
)
from scenarios.errors import ScenarioError
from scenarios.library._blockers import check_direction, hold, park_car
from scenarios.library._pending import DIRECTION

BLOCKER_DISTANCE = 28.0  # m past the trigger
CUT_IN_DISTANCE = 35.0  # m past the trigger
LEAVE_SPACE = 10.0  # m past the cut-in car kept free of background traffic
REACTION_TIME = 2.35  # s
TRIGGER_DISTANCE = 10.0  # m
SPEED = 20.0  # km/h, a BasicAgent's own
END_DISTANCE = 30.0  # m the cut-in car drives


class ParkingCutIn(Scenario):
    type_name = "ParkingCutIn"
    parameters = (DIRECTION,)

    def _parking_lane(self, wp: Any) -> Any:
        """The lane to `direction` of `wp`, on its side of the road."""
        direction = self.params["direction"]
        side = wp.get_right_lane() if direction == "right" else wp.get_left_lane()
        if side is None or side.lane_id * wp.lane_id <= 0:
            raise ScenarioError(
                f"scenario {self.name}: no lane to park in on the {direction} of the ego's "
                f"lane at {wp.transform.location}"
            )
        return side

    def _ahead(self, wp: Any, distance: float) -> Any:
        ahead = wp.next(distance)
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: the lane ends before {distance} m")
        return ahead[0]

    def setup(self) -> None:
        direction = self.params["direction"]
        check_direction(self.name, direction)
        reference = self.world.get_map().get_waypoint(self.trigger.location)
        blocker_wp = self._ahead(reference, BLOCKER_DISTANCE)
        self.blocker = park_car(self, self._parking_lane(blocker_wp), direction)
        hold(self.blocker)
        self.collision_wp = self._ahead(reference, CUT_IN_DISTANCE)
        self.adversary = park_car(
            self, self._parking_lane(self.collision_wp), direction, "scenario", special_type=""
        )

    def behaviour(self) -> None:
        if self.ctx.background is not None:  # ScenarioRunner's LeaveSpaceInFront
            self.ctx.background.clear_ahead(0.0, CUT_IN_DISTANCE + LEAVE_SPACE)
        target = self.collision_wp.transform.location
        arrives = in_time_to_arrival(self.ego, target, REACTION_TIME)
        near = in_trigger_distance(self.ego, target, TRIGGER_DISTANCE)
        wait_until(lambda: arrives() or near())
        follow_lane(self.adversary, SPEED, ignore_lights=True)
        drive_distance(self.adversary, END_DISTANCE)
        destroy_actor(self.adversary)
        destroy_actor(self.blocker)
