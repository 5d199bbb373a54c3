"""The ego's motion against its route (RssEgoDynamicsOnRoute), as CARLA's RssCheck works it.

The route's heading at the ego (from the route section's borders), the nominal centre of
the lane the ego is in, the ego's speed split along and across the route, the
accelerations of those parts since the last check and their running average (2/3 old,
1/3 new), whether the centre is within the route, and the distance the ego needs to stop
after its response time (RSS's stated braking pattern: accel_max for the response time,
then brake_min_correct). sin and cos are lockstep's own (world.elementary).
"""

from __future__ import annotations

import math
from typing import Any

from world import elementary as el
from world.sensors.rss.bindings import ad
from world.sensors.rss.data import RssEgoDynamicsOnRoute
from world.sensors.rss.route import runs_wrong_way
from world.snapshot import Timestamp

__all__ = ["ego_motion_on_route", "stopping_distance"]

FALLBACK_STOPPING_DISTANCE = 100.0  # m, CARLA's when the stopping distance cannot be worked
MIN_DELTA_TIME = 0.0001  # s: below this no acceleration is worked


def stopping_distance(speed: float, dynamics: Any) -> float:
    """The distance to stop from `speed` with `dynamics`' response (ad-rss's conservative
    minimum stopping distance), or 100 m when ad-rss cannot work it."""
    lib = ad()
    found = lib.physics.Distance(0.0)
    ok = lib.rss.structured.calculateLongitudinalDistanceOffsetAfterStatedBrakingPattern(
        lib.physics.Speed(speed),
        lib.physics.Speed.getMax(),
        dynamics.response_time,
        dynamics.alpha_lon.accel_max,
        dynamics.alpha_lon.brake_min_correct,
        found,
    )
    return float(found.toBaseType) if ok else FALLBACK_STOPPING_DISTANCE


def ego_motion_on_route(
    timestamp: Timestamp,
    speed: float,
    heading_rate: float,
    steering_angle: float,
    ego: Any,
    route: Any,
    dynamics: Any,
    last: RssEgoDynamicsOnRoute,
) -> RssEgoDynamicsOnRoute:
    """This tick's RssEgoDynamicsOnRoute of the matched ego `ego` on `route`."""
    lib = ad()
    physics, point, lane_ops, route_ops = lib.physics, lib.map.point, lib.map.lane, lib.map.route
    new = RssEgoDynamicsOnRoute()
    new.timestamp = timestamp
    new.ego_speed = physics.Speed(speed)
    new.ego_center = point.ENUPoint(ego.enu_position.center_point)
    new.ego_heading = point.ENUHeading(ego.enu_position.heading)
    new.ego_heading_change = physics.AngularVelocity(heading_rate)
    new.ego_steering_angle = physics.Angle(steering_angle)

    section = route_ops.getRouteSection(
        ego, route, route_ops.RouteSectionCreationMode.AllRouteLanes
    )
    border = route_ops.getENUBorderOfRoute(section)
    new.route_heading = lane_ops.getENUHeading(border, ego.enu_position.center_point)
    centre = route_ops.findCenterWaypoint(ego, section)
    if centre.Valid:
        lane_point = point.ParaPoint(centre.queryPosition)
        nominal = lane_ops.getENULanePoint(lane_point)
        if abs(float(new.route_heading.toBaseType)) > math.pi:
            # the centre is off the route: take the heading at the lane's centre instead
            new.route_heading = lane_ops.getENUHeading(border, nominal)
        if runs_wrong_way(section, lane_point.lane_id):
            lane_ops.projectPositionToLaneInHeadingDirection(
                lane_point, new.route_heading, lane_point
            )
            nominal = lane_ops.getENULanePoint(lane_point)
        new.route_nominal_center = nominal
    else:
        new.route_nominal_center = point.ENUPoint(last.route_nominal_center)
        new.route_heading = point.ENUHeading(last.route_heading)

    new.heading_diff = point.normalizeENUHeading(new.route_heading - new.ego_heading)
    diff = float(new.heading_diff.toBaseType)
    new.route_speed_lon = physics.Speed(abs(el.cos(diff)) * speed)
    new.route_speed_lat = physics.Speed(el.sin(diff) * speed)

    delta = timestamp.elapsed_seconds - last.timestamp.elapsed_seconds
    if last.timestamp.elapsed_seconds > 0.0 and delta > MIN_DELTA_TIME:
        lat = (
            float(new.route_speed_lat.toBaseType) - float(last.route_speed_lat.toBaseType)
        ) / delta
        lon = (
            float(new.route_speed_lon.toBaseType) - float(last.route_speed_lon.toBaseType)
        ) / delta
        new.route_accel_lat = physics.Acceleration(lat)
        new.route_accel_lon = physics.Acceleration(lon)
        new.avg_route_accel_lat = physics.Acceleration(
            (float(last.avg_route_accel_lat.toBaseType) * 2.0 + lat) / 3.0
        )
        new.avg_route_accel_lon = physics.Acceleration(
            (float(last.avg_route_accel_lon.toBaseType) * 2.0 + lon) / 3.0
        )
    else:
        for name in (
            "route_accel_lat",
            "route_accel_lon",
            "avg_route_accel_lat",
            "avg_route_accel_lon",
        ):
            setattr(new, name, physics.Acceleration(getattr(last, name)))

    lane_in = lib.map.match.MapMatchedPositionType.LANE_IN
    inside = lib.map.point.ParaPointList()
    for position in ego.map_matched_bounding_box.reference_point_positions[
        int(lib.map.match.ObjectReferencePoints.Center)
    ]:
        if position.type == lane_in:
            inside.append(position.lane_point.para_point)
    new.ego_center_within_route = bool(route_ops.findNearestWaypoint(inside, route).Valid)
    new.crossing_border = False
    new.min_stopping_distance = physics.Distance(stopping_distance(speed, dynamics))
    return new
