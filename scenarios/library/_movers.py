"""Driving a vehicle along its lane at a sideways offset from the lane's centre, which the
world's traffic manager does not do (ScenarioRunner drives these with a BasicAgent and its
`offset` option): each tick the vehicle gets a target velocity along the lane at its
place, steered back towards the offset line, and the lane's heading. Used for the slow
bicycles at a lane's side (HazardAtSideLane) and the cars that cut a curve into the ego's
lane (InvadingTurn)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from scenarios.behaviours import TM_PORT, step
from world.actors.controls import VehicleControl
from world.geometry import Rotation, Transform, Vector3D

CORRECTION = 0.5  # 1/m: how hard the velocity turns back towards the offset line
HEADING_TOLERANCE = 1.0  # degrees off the lane's heading before the body is turned to it


def lateral_offset(wp: Any, location: Any) -> float:
    """m of `location` to the right of `wp`'s lane centre (negative: left)."""
    tf = wp.transform
    right = tf.get_right_vector()
    return (location.x - tf.location.x) * right.x + (location.y - tf.location.y) * right.y


def drive_with_offset(
    actor: Any,
    speed: float,
    offset: float,
    *,
    distance: float | None = None,
    until: Callable[[], bool] | None = None,
    lane_of: Callable[[Any], Any] | None = None,
) -> float:
    """Drives `actor` at `speed` m/s along its lane, `offset` m right of the centre
    (negative: left), for `distance` m or until `until()`; returns the distance driven.
    `lane_of(location)` gives the lane point to follow (default: the map's nearest driving
    lane point)."""
    world_map = actor.get_world().get_map()
    lane_of = lane_of or world_map.get_waypoint
    actor.set_autopilot(False, TM_PORT)
    actor.apply_control(VehicleControl())
    travelled = 0.0
    last = actor.get_location()
    while (distance is None or travelled < distance) and (until is None or not until()):
        here = actor.get_location()
        wp = lane_of(here)
        lane = wp.transform
        forward, right = lane.get_forward_vector(), lane.get_right_vector()
        error = offset - lateral_offset(wp, here)
        vx = forward.x + CORRECTION * error * right.x
        vy = forward.y + CORRECTION * error * right.y
        norm = math.sqrt(vx * vx + vy * vy)
        yaw = actor.get_transform().rotation.yaw
        if abs((yaw - lane.rotation.yaw + 180.0) % 360.0 - 180.0) > HEADING_TOLERANCE:
            rot = lane.rotation
            actor.set_transform(Transform(here, Rotation(rot.pitch, rot.yaw, rot.roll)))
        actor.set_target_velocity(Vector3D(speed * vx / norm, speed * vy / norm, 0.0))
        step()
        now = actor.get_location()
        travelled += now.distance(last)
        last = now
    return travelled
