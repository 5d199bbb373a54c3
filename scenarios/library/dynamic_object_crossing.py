"""DynamicObjectCrossing (ScenarioRunner's object_crash_vehicle.py): `distance` m past the
trigger, a blocker prop (`blocker_model`) on the sidewalk toward `direction` hides a
walker; when the ego is 2.1 s (plus 0.1 s per 5 degrees of `crossing_angle`) or 6 m from
the crossing point, the walker crosses the road at 2 m/s, twice its distance to the
crossing point; then walker and blocker go, and the scenario ends 40 m later."""

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
from scenarios.errors import ScenarioError, ScenarioParameterError
from scenarios.params import Param
from scenarios.placement import shifted
from world.geometry import Location, Rotation, Transform
from world.map.lane_enums import LaneType

WALKER_SPEED = 2.0  # m/s
REACTION_TIME = 2.1  # s the ego has to react, plus 0.1 s per 5 degrees of crossing angle
MIN_TRIGGER_DISTANCE = 6.0  # m from the crossing point
EGO_END_DISTANCE = 40.0  # m
SIDE_OFFSET = 1.5  # m right of a non-sidewalk lane's centre for the blocker
WALKER_SIDE_OFFSET = 1.2  # m, the same for the walker
WALKER_LIFT = 1.2  # m above the sidewalk


def sidewalk_transform(wp, direction: str, yaw: float, offset: float, lift: float) -> Transform:
    """ScenarioRunner's sidewalk placement: on a sidewalk lane its centre, otherwise
    `offset` m further out; turned `yaw` degrees (mirrored for the left), raised `lift`."""
    if wp.lane_type == LaneType.Sidewalk:
        tf = wp.transform
        sign = 1.0 if direction == "right" else -1.0
        loc = tf.location
        rot = tf.rotation
        where = Location(loc.x, loc.y, loc.z + lift)
        return Transform(where, Rotation(rot.pitch, rot.yaw + sign * yaw, rot.roll))
    return shifted(wp, offset, direction, lift=lift, yaw=yaw)


class DynamicObjectCrossing(Scenario):
    type_name = "DynamicObjectCrossing"
    parameters = (
        Param("distance", "float", 12.0),
        Param("direction", "str", "right"),
        Param("blocker_model", "str", "static.prop.vendingmachine"),
        Param("crossing_angle", "float", 0.0),
    )

    def setup(self) -> None:
        direction, angle = self.params["direction"], self.params["crossing_angle"]
        if direction not in ("left", "right"):
            raise ScenarioParameterError(
                self.type_name, "direction", f"expected 'left' or 'right', found {direction!r}"
            )
        if abs(angle) > 90:
            raise ScenarioParameterError(
                self.type_name, "crossing_angle", f"must be within -90..90, found {angle}"
            )
        start = self.world.get_map().get_waypoint(self.trigger.location)
        ahead = start.next(self.params["distance"])
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: no lane {self.params['distance']} m on")
        self.collision_wp = ahead[0]
        side = self.collision_wp
        while side.lane_type != LaneType.Sidewalk:
            step = side.get_right_lane() if direction == "right" else side.get_left_lane()
            if step is None or step.lane_id * side.lane_id <= 0:
                break
            side = step
        model = self.params["blocker_model"]
        blocker_yaw = 0.0 if "vehicle" in model else 90.0
        self.blocker = self.spawn(
            model, sidewalk_transform(side, direction, blocker_yaw, SIDE_OFFSET, 0.0)
        )
        self.blocker.set_simulate_physics(False)
        behind = side.next(self.blocker.bounding_box.extent.x + 0.5)
        if not behind:
            raise ScenarioError(f"scenario {self.name}: no place for the walker")
        walker_yaw = 270.0 - angle
        self.walker_tf = sidewalk_transform(
            behind[0], direction, walker_yaw, WALKER_SIDE_OFFSET, WALKER_LIFT
        )
        self.walker = self.spawn(self.random_blueprint("walker.pedestrian.*"), self.walker_tf)
        self.collision_distance = self.collision_wp.transform.location.distance(
            self.walker_tf.location
        )

    def behaviour(self) -> None:
        if self.ctx.background is not None:
            self.ctx.background.clear_ahead(0.0, self.params["distance"] + 10.0)
        target = self.collision_wp.transform.location
        reaction = REACTION_TIME + 0.1 * math.floor(self.params["crossing_angle"] / 5.0)
        arrives = in_time_to_arrival(self.ego, target, reaction)
        near = in_trigger_distance(self.ego, target, MIN_TRIGGER_DISTANCE)
        wait_until(lambda: arrives() or near())
        if self.ctx.background is not None:  # ScenarioRunner's LeaveCrossingSpace
            self.ctx.background.leave_crossing_space(self.collision_wp)
        distance = 2.0 * self.collision_distance
        keep_velocity(
            self.walker, WALKER_SPEED, duration=distance / WALKER_SPEED, distance=distance
        )
        destroy_actor(self.walker)
        destroy_actor(self.blocker)
        drive_distance(self.ego, EGO_END_DISTANCE)
