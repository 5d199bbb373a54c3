"""sensor.other.lane_invasion: the lane markings the parent's box corners crossed since last tick.

CARLA's client-side sensor (LibCarla LaneInvasionSensor and
LaneCrossingCalculator): the four corners of the parent's box at ground level,
previous and current; for each corner that moved, the crossed marking is found
from the nearest lanes (driving, bidirectional, biking, parking) at both ends:

* nothing when either end has no lane, the two lie on different roads or lane
  sections, or either is in a junction, or both are off the road;
* nothing when both lie inside the same lane;
* otherwise one marking: moving to the right of the origin lane's direction
  crosses the origin's right marking (or, from off the road, the destination's
  left marking), moving left the origin's left marking (or the destination's
  right marking).

An event lists the markings of all four corners; none is sent when nothing was
crossed, and nothing is measured on a tick when any corner did not move.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from world import elementary as el
from world.map.lane_enums import LaneType
from world.sensors.base import SensorBehaviour, SensorContext
from world.sensors.data import LaneInvasionEvent

__all__ = ["LaneInvasionSensor", "crossed_marking"]

_MARKED_LANES = LaneType.Driving | LaneType.Bidirectional | LaneType.Biking | LaneType.Parking
_STILL = 10.0 * float(np.finfo(np.float32).eps)


def crossed_marking(world_map: Any, origin: np.ndarray, destination: np.ndarray):
    """The lane marking crossed going from `origin` to `destination` (CARLA frame), or None."""
    pts = np.stack([origin, destination])
    w0, w1 = world_map.get_waypoints_batch(pts, True, _MARKED_LANES)
    if w0 is None or w1 is None:
        return None
    if w0.road_id != w1.road_id or w0.section_id != w1.section_id:
        return None
    if w0.is_junction or w1.is_junction:
        return None
    off0, off1 = (w is None for w in world_map.get_waypoints_batch(pts, False, _MARKED_LANES))
    if off0 and off1:
        return None
    if w0.lane_id == w1.lane_id and not off0 and not off1:
        return None
    forward = w0.transform.get_forward_vector()
    dx, dy = float(destination[0] - origin[0]), float(destination[1] - origin[1])
    norm = el.hypot(dx, dy)
    if norm > 0.0:
        dx, dy = dx / norm, dy / norm
    to_right = (-forward.x * dy + forward.y * dx) < 0.0
    if to_right:
        return w1.left_lane_marking if off0 else w0.right_lane_marking
    return w1.right_lane_marking if off0 else w0.left_lane_marking


class LaneInvasionSensor(SensorBehaviour):
    """Reports the lane markings its parent crosses."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self._corners: np.ndarray | None = None

    def _parent_corners(self) -> np.ndarray | None:
        parent = self.sensor.parent
        if parent is None:
            return None
        tf = parent.get_transform()
        box = parent.bounding_box
        yaw = math.radians(tf.rotation.yaw)
        c, s = el.cos(yaw), el.sin(yaw)
        ex, ey = box.extent.x, box.extent.y
        local = np.array([[ex, ey], [-ex, ey], [ex, -ey], [-ex, -ey]])
        centre = np.array([tf.location.x + box.location.x, tf.location.y + box.location.y])
        xy = centre + np.stack(
            [c * local[:, 0] - s * local[:, 1], s * local[:, 0] + c * local[:, 1]], 1
        )
        z = np.full((4, 1), tf.location.z + box.location.z)
        return np.hstack([xy, z])

    def measure(self, ctx: SensorContext) -> list[LaneInvasionEvent]:
        corners = self._parent_corners()
        if corners is None:
            return []
        previous, self._corners = self._corners, corners
        if previous is None:
            return []
        if np.any(np.linalg.norm(corners - previous, axis=1) < _STILL):
            self._corners = previous  # CARLA keeps the old corners when one did not move
            return []
        world_map = ctx.world.get_map()
        crossed = [crossed_marking(world_map, previous[i], corners[i]) for i in range(4)]
        crossed = [m for m in crossed if m is not None]
        if not crossed:
            return []
        return [
            LaneInvasionEvent(
                ctx.frame,
                ctx.timestamp,
                self.sensor.get_transform(),
                actor=self.sensor.parent,
                crossed_lane_markings=crossed,
            )
        ]
