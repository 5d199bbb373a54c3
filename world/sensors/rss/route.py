"""The ego's route for the RSS check, kept tick by tick as CARLA's RssCheck::UpdateRoute does.

Each tick the route loses what the ego's rear has passed (and may gain what lies behind,
when the ego backs up); reached routing targets drop off; then the route is stretched to
50 m ahead. Where it cannot be (or new targets came, or the ego left it), a new route is
planned from each lane under the ego's centre, to the targets when there are some, else
every route 50 m ahead, and one is picked. Where CARLA picks with std::rand, lockstep
draws from the sensor's own generator, so the pick is the same every run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from world.geometry import Location
from world.sensors.rss.bindings import ad

__all__ = ["RouteKeeper", "runs_wrong_way"]

ROUTE_LENGTH = 50.0  # m ahead of the ego
TARGET_REACHED = 3.0  # m: a routing target this near the ego's centre is passed


def runs_wrong_way(route: Any, lane_id: Any) -> bool:
    """Whether `route` runs against `lane_id`'s direction where it holds that lane."""
    for road in route.road_segments:
        for lane in road.drivable_lane_segments:
            if lane.lane_interval.lane_id == lane_id:
                return bool(lane.lane_interval.wrong_way)
    return False


class RouteKeeper:
    """The ego's route and its routing targets."""

    def __init__(self, rng: np.random.Generator) -> None:
        lib = ad()
        self._rng = rng
        self.route = lib.map.route.FullRoute()
        self._targets: list[Any] = []  # ENU points still to reach, in order
        self._to_append: list[Any] = []  # ENU points given since the last update

    def append_target(self, location: Location) -> None:
        """A target (CARLA location; height dropped) for the next update to route through."""
        self._to_append.append(ad().map.point.createENUPoint(location.x, -location.y, 0.0))

    def targets(self) -> list[Location]:
        """The targets not reached yet, as CARLA locations on the ground."""
        return [Location(float(p.x.toBaseType), -float(p.y.toBaseType), 0.0) for p in self._targets]

    def reset_targets(self) -> None:
        self._targets.clear()
        self._to_append.clear()

    def drop(self) -> None:
        """Forgets the route: the next update plans a new one."""
        self.route = ad().map.route.FullRoute()

    def update(self, ego: Any) -> None:
        """Follows the ego (a matched ad.map.match.Object) one tick."""
        lib = ad()
        route_ops = lib.map.route
        boxes = ego.map_matched_bounding_box.reference_point_positions
        rear = lib.map.point.ParaPointList()
        for corner in (
            lib.map.match.ObjectReferencePoints.RearRight,
            lib.map.match.ObjectReferencePoints.RearLeft,
        ):
            for point in lib.map.match.getParaPoints(boxes[int(corner)]):
                rear.append(point)
        shortened = route_ops.shortenRoute(
            rear,
            self.route,
            route_ops.ShortenRouteMode.DontCutIntersectionAndPrependIfSucceededBeforeRoute,
        )
        kept = shortened in (
            route_ops.ShortenRouteResult.Succeeded,
            route_ops.ShortenRouteResult.SucceededIntersectionNotCut,
        )
        centre = ego.enu_position.center_point
        while (
            self._targets
            and float(lib.map.point.distance(self._targets[0], centre).toBaseType) < TARGET_REACHED
        ):
            self._targets.pop(0)
        replan = bool(self._to_append)
        self._targets.extend(self._to_append)
        self._to_append.clear()
        if not replan and kept:
            extensions = route_ops.FullRouteList()
            if route_ops.extendRouteToDistance(
                self.route, lib.physics.Distance(ROUTE_LENGTH), extensions
            ):
                pick = self._pick(len(extensions) + 1)  # the last choice keeps the route
                if pick < len(extensions):
                    self.route = extensions[pick]
                return
        planned = self._plan(ego)
        if planned:
            self.route = planned[self._pick(len(planned))]

    def _plan(self, ego: Any) -> list[Any]:
        """New routes from each lane under the ego's centre."""
        lib = ad()
        route_ops = lib.map.route
        heading = ego.enu_position.heading
        centre = ego.map_matched_bounding_box.reference_point_positions[
            int(lib.map.match.ObjectReferencePoints.Center)
        ]
        routes: list[Any] = []
        targets = lib.map.point.ENUPointList()
        for target in self._targets:
            targets.append(target)
        for position in centre:
            start = position.lane_point.para_point
            projected = lib.map.point.ParaPoint(start)
            if not lib.map.lane.isHeadingInLaneDirection(start, heading):
                lib.map.lane.projectPositionToLaneInHeadingDirection(start, heading, projected)
            origin = route_ops.createRoutingPoint(projected, heading)
            if self._targets and lib.map.point.isValid(targets, False):
                routes.append(
                    route_ops.planRoute(
                        origin, targets, route_ops.RouteCreationMode.AllRoutableLanes
                    )
                )
            else:
                routes.extend(
                    route_ops.predictRoutesOnDistance(
                        origin,
                        lib.physics.Distance(ROUTE_LENGTH),
                        route_ops.RouteCreationMode.AllRoutableLanes,
                    )
                )
        return routes

    def _pick(self, count: int) -> int:
        """One of `count` choices, from the sensor's generator (one draw only when choosing)."""
        return 0 if count == 1 else int(self._rng.integers(count))
