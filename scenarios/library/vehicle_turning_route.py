"""VehicleTurningRoute and VehicleTurningRoutePedestrian (ScenarioRunner's
object_crash_intersection.py): after the ego turns at the route's junction, a cyclist
or a pedestrian crosses the road it turned into.

VehicleTurningRoute: a bicycle waits on the right sidewalk 11 m past the junction's exit
(1.5 m right of the rightmost lane when there is no sidewalk), facing the road; when the
ego is 1.8 s (at its speed) or 6 m from the bicycle's crossing point on the ego's lane it
rides across at 1.8 m/s for twice its distance to that point, then is removed.
VehicleTurningRoutePedestrian: a pedestrian waits on a sidewalk 0.5 m past the exit, the
far one when the ego turns right, the near one when it turns left; at 2.2 s or 6 m it
walks at 1.8 m/s across to the other sidewalk, then is removed. Each scenario ends 40 m
of ego driving later.
"""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import (
    destroy_actor,
    drive_distance,
    in_time_to_arrival,
    in_trigger_distance,
    keep_velocity,
    stop_vehicle,
    wait_until,
)
from scenarios.library._junctions import downstream, route_junction
from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform
from world.map.lane_enums import LaneType

SPEED = 1.8  # m/s, the adversary's
TRIGGER_DISTANCE = 6.0  # m from the crossing point
END_DISTANCE = 40.0  # m the ego drives after
SIDE_OFFSET = 1.5  # m right of a lane that is not a sidewalk
BICYCLE = "vehicle.diamondback.century"


def _sidewalk(wp: Any, side: str = "right") -> Any:
    """The sidewalk reached walking `side` from `wp` (the last lane if there is none)."""
    while wp.lane_type != LaneType.Sidewalk:
        nxt = wp.get_right_lane() if side == "right" else wp.get_left_lane()
        if nxt is None:
            break
        wp = nxt
    return wp


def _opposite_sidewalk(wp: Any) -> Any | None:
    """The sidewalk on the far side of the road: across the opposite-direction lanes."""
    left = wp.get_left_lane()
    while left is not None and left.lane_id * wp.lane_id > 0:
        left = left.get_left_lane()
    if left is None:
        return None
    return _sidewalk(left, "right")


def _facing_road(wp: Any, lift: float, yaw_offset: float = 270.0) -> Transform:
    """ScenarioRunner's sidewalk transform: turned to face the road, moved 1.5 m right when
    `wp` is not a sidewalk, lifted by `lift`."""
    tf = wp.transform
    loc = tf.location
    if wp.lane_type != LaneType.Sidewalk:
        right = tf.get_right_vector()
        loc = Location(loc.x + SIDE_OFFSET * right.x, loc.y + SIDE_OFFSET * right.y, loc.z)
    rotation = Rotation(tf.rotation.pitch, tf.rotation.yaw + yaw_offset, tf.rotation.roll)
    return Transform(Location(loc.x, loc.y, loc.z + lift), rotation)


class _TurningCrossing(Scenario):
    """Waits for the ego to near the crossing point, then moves the adversary across."""

    parameters = ()
    reaction_time = 1.8

    def _start(self) -> None:
        timed = in_time_to_arrival(self.ego, self.collision, self.reaction_time)
        close = in_trigger_distance(self.ego, self.collision, TRIGGER_DISTANCE)
        wait_until(lambda: timed() or close())

    def _end(self) -> None:
        destroy_actor(self.adversary)
        drive_distance(self.ego, END_DISTANCE)


class VehicleTurningRoute(_TurningCrossing):
    type_name = "VehicleTurningRoute"
    start_distance = 11.0  # m past the junction's exit

    def setup(self) -> None:
        route = route_junction(self, self.name)
        crossing = downstream(route.exit, self.start_distance)
        self.collision = crossing.transform.location
        self.place = _facing_road(_sidewalk(crossing), 0.2)
        self.adversary = self.spawn(BICYCLE, self.place)
        self.adversary.apply_control(VehicleControl(hand_brake=True))

    def behaviour(self) -> None:
        self._start()
        self.adversary.apply_control(VehicleControl())
        distance = self.collision.distance(self.place.location)
        keep_velocity(self.adversary, SPEED, duration=2.0 * distance / SPEED, distance=2 * distance)
        stop_vehicle(self.adversary)
        self._end()


class VehicleTurningRoutePedestrian(_TurningCrossing):
    type_name = "VehicleTurningRoutePedestrian"
    reaction_time = 2.2

    def setup(self) -> None:
        route = route_junction(self, self.name)
        crossing = downstream(route.exit, 0.5)
        self.collision = crossing.transform.location
        near = _sidewalk(crossing)
        far = _opposite_sidewalk(crossing)
        yaw_offset = 270.0
        if far is None:  # a one-way road: the sidewalk on its left
            far, yaw_offset = _sidewalk(crossing, "left"), 90.0
        self.distance = near.transform.location.distance(far.transform.location)
        entry = route.entry.transform.get_forward_vector()
        leave = route.exit.transform.get_forward_vector()
        turned_right = entry.x * leave.y - entry.y * leave.x > 0.0
        start, offset = (far, yaw_offset) if turned_right else (near, 270.0)
        self.place = _facing_road(start, 1.2, offset)
        library = self.world.get_blueprint_library()
        walkers = sorted(bp.id for bp in library.filter("walker.pedestrian.*"))
        self.adversary = self.spawn(walkers[int(self.rng.integers(len(walkers)))], self.place)

    def behaviour(self) -> None:
        self._start()
        keep_velocity(self.adversary, SPEED, duration=self.distance / SPEED, distance=self.distance)
        self._end()
