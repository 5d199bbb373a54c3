"""OutsideRouteLanesTest: the metres of route the ego drove outside its lanes (off the
driving and parking lanes, or against the lane's direction), as one event updated in place
with the share of the route driven so far."""

from __future__ import annotations

from collections.abc import Sequence

from runner.criteria.base import Criterion, LaneSpot, RoutePath, TickView, lane_spot
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Transform
from world.map.lane_enums import LaneType

ALLOWED_OUT_DISTANCE = 0.5  # m beyond half the lane width (the shoulder before a sidewalk)
MAX_VEHICLE_ANGLE = 120.0  # degrees between the ego's yaw and its lane leaving a junction
MAX_WAYPOINT_ANGLE = 150.0  # degrees of lane direction change between two ticks
WINDOW = 3


class OutsideRouteLanesTest(Criterion):
    name = "OutsideRouteLanesTest"

    def __init__(self, route: Sequence[Transform] | RoutePath, world, ego) -> None:
        super().__init__()
        self.path = RoutePath.of(route)
        self._map = world.get_map()
        start = lane_spot(self._map, ego.get_location(), LaneType.Driving)
        self._last_junction = start.waypoint.is_junction
        self._last_yaw = start.yaw
        self._roads: dict[str, tuple[int | str, bool]] = {}  # by road id text (Waypoint.key)
        self._index = 0
        self._outside = False
        self._has_parking = True
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
        driving = tick.lane(LaneType.Driving)
        self._check_outside(tick, driving)
        self._check_wrong_lane(tick, driving)
        off = self._outside or (self.wrong_direction_active and self._wrong_lane)
        if off:
            self.test_status = "FAILURE"
        path = self.path
        points = path.points
        x, y, z = location.x, location.y, location.z
        for index in range(self._index + 1, min(self._index + WINDOW + 1, len(points))):
            px, py, pz, fx, fy, fz = points[index]
            if (x - px) * fx + (y - py) * fy + (z - pz) * fz > 0:  # past the point
                step = path.locations[self._index].distance(path.locations[index])
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

    def _check_outside(self, tick: TickView, driving: LaneSpot) -> None:
        """Outside when farther from the nearest driving or parking lane centre than half
        its width plus 0.5 m. Within half the width in plan view and 0.5 m in height the
        answer is known without the lane's width (an exact shortcut: the width costs a
        full waypoint pose); on a map without parking lanes the driving lane is the
        nearest, and its distance is worked out only when the shortcut does not answer."""
        location = tick.location
        parking = tick.lane(LaneType.Parking) if self._has_parking else None
        if parking is None:
            self._has_parking = False  # the map has no parking lane at all
            spot, distance = driving, None
        else:
            driving_distance = location.distance(driving.location)
            parking_distance = location.distance(parking.location)
            if driving_distance >= parking_distance:
                spot, distance = parking, parking_distance
            else:
                spot, distance = driving, driving_distance
        if spot.inside and abs(location.z - spot.location.z) <= ALLOWED_OUT_DISTANCE:
            self._outside = False
        else:
            if distance is None:
                distance = location.distance(spot.location)
            self._outside = distance > spot.waypoint.lane_width / 2 + ALLOWED_OUT_DISTANCE

    def _check_wrong_lane(self, tick: TickView, spot: LaneSpot) -> None:
        wp = spot.waypoint
        road_text, _section, lane = wp.key
        road = self._roads.get(road_text)
        if road is None:  # the road's id as CARLA shows it and whether it is in a junction
            road = self._roads[road_text] = (wp.road_id, wp.is_junction)
        road_id, junction = road
        if junction:
            self._wrong_lane = False
        elif self._last_road != road_id or self._last_lane != lane:
            if self._last_junction:
                angle = (spot.yaw % 360 - tick.transform.rotation.yaw % 360) % 360
                self._wrong_lane = not (
                    angle < MAX_VEHICLE_ANGLE or angle > 360 - MAX_VEHICLE_ANGLE
                )
            else:
                angle = (self._last_yaw % 360 - spot.yaw % 360) % 360
                if MAX_WAYPOINT_ANGLE < angle < 360 - MAX_WAYPOINT_ANGLE:
                    self._wrong_lane = not self._wrong_lane
        self._last_lane = lane
        self._last_road = road_id
        self._last_junction = junction
        self._last_yaw = spot.yaw
