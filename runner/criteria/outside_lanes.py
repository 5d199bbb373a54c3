"""OutsideRouteLanesTest: the metres of route the ego drove outside its lanes (off the
driving and parking lanes, or against the lane's direction), as one event updated in place
with the share of the route driven so far."""

from __future__ import annotations

from collections.abc import Sequence

from runner.criteria.base import Criterion, RoutePath, TickView
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Transform
from world.map.lane_enums import LaneType

ALLOWED_OUT_DISTANCE = 0.5  # m beyond half the lane width (the shoulder before a sidewalk)
MAX_VEHICLE_ANGLE = 120.0  # degrees between the ego's yaw and its lane leaving a junction
MAX_WAYPOINT_ANGLE = 150.0  # degrees of lane direction change between two ticks
WINDOW = 3


class OutsideRouteLanesTest(Criterion):
    name = "OutsideRouteLanesTest"

    def __init__(self, route: Sequence[Transform], world, ego) -> None:
        super().__init__()
        self.path = RoutePath(route)
        self._map = world.get_map()
        self._last_wp = self._map.get_waypoint(ego.get_location())
        self._index = 0
        self._outside = False
        self._wrong_lane = False
        self._last_road = None
        self._last_lane = None
        self.total_distance = 0.0
        self.wrong_distance = 0.0
        self.wrong_direction_active = True
        self._event: TrafficEvent | None = None
        self.actual_value: float | int = 0

    def update(self, tick: TickView) -> None:
        location = tick.location
        self._check_outside(location)
        self._check_wrong_lane(tick)
        off = self._outside or (self.wrong_direction_active and self._wrong_lane)
        if off:
            self.test_status = "FAILURE"
        for index in range(self._index + 1, min(self._index + WINDOW + 1, len(self.path))):
            if self.path.passed(index, location):
                step = self.path.locations[self._index].distance(self.path.locations[index])
                self.total_distance += step
                if off:
                    self.wrong_distance += step
                if self.wrong_distance:
                    self._publish(tick.frame)
                self._index = index

    def _publish(self, frame: int) -> None:
        if self._event is None:
            self._event = TrafficEvent(TrafficEventType.OUTSIDE_ROUTE_LANES_INFRACTION, frame)
            self.events.append(self._event)
        percentage = self.wrong_distance / self.total_distance * 100
        self.actual_value = round(percentage, 2)
        self._event.message = (
            f"Agent went outside its route lanes for about {round(self.wrong_distance, 3)} "
            f"meters ({round(percentage, 2)}% of the completed route)"
        )
        self._event.data = {"distance": self.wrong_distance, "percentage": percentage}
        self._event.frame = frame

    def _check_outside(self, location) -> None:
        driving = self._map.get_waypoint(location, lane_type=LaneType.Driving)
        parking = self._map.get_waypoint(location, lane_type=LaneType.Parking)
        driving_distance = location.distance(driving.transform.location)
        parking_distance = (
            location.distance(parking.transform.location) if parking is not None else float("inf")
        )
        if driving_distance >= parking_distance:
            distance, width = parking_distance, parking.lane_width
        else:
            distance, width = driving_distance, driving.lane_width
        self._outside = distance > width / 2 + ALLOWED_OUT_DISTANCE

    def _check_wrong_lane(self, tick: TickView) -> None:
        wp = self._map.get_waypoint(tick.location, lane_type=LaneType.Driving)
        if wp.is_junction:
            self._wrong_lane = False
        elif self._last_road != wp.road_id or self._last_lane != wp.lane_id:
            if self._last_wp.is_junction:
                angle = (wp.transform.rotation.yaw % 360 - tick.transform.rotation.yaw % 360) % 360
                self._wrong_lane = not (
                    angle < MAX_VEHICLE_ANGLE or angle > 360 - MAX_VEHICLE_ANGLE
                )
            else:
                last_yaw = self._last_wp.transform.rotation.yaw % 360
                angle = (last_yaw - wp.transform.rotation.yaw % 360) % 360
                if MAX_WAYPOINT_ANGLE < angle < 360 - MAX_WAYPOINT_ANGLE:
                    self._wrong_lane = not self._wrong_lane
        self._last_lane = wp.lane_id
        self._last_road = wp.road_id
        self._last_wp = wp
