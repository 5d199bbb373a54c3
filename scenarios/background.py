"""Background activity around the ego: a simplified version of ScenarioRunner's
BackgroundActivity, built on the world's autopilot.

At the route's start, vehicles are spawned on the ego's lane and on each neighbouring
lane of its direction, a few ahead and one behind (distances jittered by the route's
own generator), all on the world's traffic manager with lane changes off. The knobs
scenarios use: `front_vehicles()` (the ones on the route ahead of the ego),
`stop_front_vehicles()` / `start_front_vehicles()` (ScenarioRunner's StopFrontVehicles
and StartFrontVehicles: a hard brake off the autopilot, then back on it),
`clear_ahead(start, end)` / `clear_route(first, last)` (removes background vehicles from
a stretch of the route, so a scenario's obstacle has the lane to itself) and
`stop_near(location, radius)` / `release()` (holds a junction's traffic, then lets it go).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scenarios.behaviours import TM_PORT, follow_lane, stop_vehicle
from world.geometry import Location, Transform
from world.map.lane_enums import LaneType

__all__ = ["BackgroundActivity"]

BLUEPRINT = "vehicle.lincoln.mkz_2017"
AHEAD = (22.0, 45.0)  # m along the lane from the ego's start
BEHIND = (14.0,)
JITTER = 2.0  # m, drawn per vehicle
SPAWN_LIFT = 0.5  # m
ON_ROUTE = 1.5  # m from the route's points: a vehicle on the ego's lane


class BackgroundActivity:
    """The route's background vehicles and the knobs scenarios turn."""

    def __init__(
        self,
        world: Any,
        ego: Any,
        plan: Sequence,
        rng: np.random.Generator,
        route_index: Callable[[], int],
        *,
        ahead: Sequence[float] = AHEAD,
        behind: Sequence[float] = BEHIND,
    ) -> None:
        self.world, self.ego, self.plan = world, ego, plan
        self.rng = rng
        self.route_index = route_index
        self.ahead, self.behind = tuple(ahead), tuple(behind)
        self.vehicles: list[Any] = []
        self.stopped: list[Any] = []
        self._points = np.array(
            [(tf.location.x, tf.location.y, tf.location.z) for tf, _ in plan], dtype=np.float64
        )

    # -- spawning ------------------------------------------------------------------------------

    def _lanes(self) -> list:
        start = self.world.get_map().get_waypoint(self.plan[0][0].location)
        lanes = [start]
        for step in ("get_left_lane", "get_right_lane"):
            wp = getattr(start, step)()
            while wp is not None and wp.lane_id * start.lane_id > 0:
                if wp.lane_type == LaneType.Driving:
                    lanes.append(wp)
                wp = getattr(wp, step)()
        return lanes

    def spawn(self) -> list[Any]:
        """Spawns the vehicles (ahead, then behind, lane by lane); returns them."""
        bp = self.world.get_blueprint_library().find(BLUEPRINT).copy()
        bp.set_attribute("role_name", "background")
        for lane in self._lanes():
            places = [(d, lane.next) for d in self.ahead]
            places += [(d, lane.previous) for d in self.behind]
            for distance, walk in places:
                jitter = float(self.rng.uniform(-JITTER, JITTER))
                found = walk(max(distance + jitter, 1.0))
                if not found:
                    continue
                tf = found[0].transform
                where = Transform(
                    Location(tf.location.x, tf.location.y, tf.location.z + SPAWN_LIFT), tf.rotation
                )
                actor = self.world.try_spawn_actor(bp, where)
                if actor is not None:
                    follow_lane(actor)
                    self.vehicles.append(actor)
        return list(self.vehicles)

    # -- queries -------------------------------------------------------------------------------

    def _alive(self) -> list[Any]:
        self.vehicles = [v for v in self.vehicles if v.is_alive]
        return self.vehicles

    def _route_index_of(self, actor: Any, first: int) -> int | None:
        """The plan index (from `first` on) of the route point `actor` is on, if it is on
        the route (within 1.5 m of a point)."""
        points = self._points[first:]
        if len(points) == 0:
            return None
        loc = actor.get_location()
        gaps = ((points - np.array([loc.x, loc.y, loc.z])) ** 2).sum(axis=1)
        nearest = int(np.argmin(gaps))
        return first + nearest if gaps[nearest] <= ON_ROUTE * ON_ROUTE else None

    def _on_route(self, first: int, last: int) -> list[Any]:
        out = []
        for vehicle in self._alive():
            index = self._route_index_of(vehicle, first)
            if index is not None and index <= last:
                out.append(vehicle)
        return out

    def front_vehicles(self, max_distance: float = 60.0) -> list[Any]:
        """Background vehicles on the route ahead of the ego, within `max_distance` m (the
        dense plan's points are 1 m apart)."""
        first = self.route_index()
        return self._on_route(first, first + int(max_distance))

    # -- knobs ---------------------------------------------------------------------------------

    def stop_front_vehicles(self, max_distance: float = 60.0) -> list[Any]:
        """A hard brake for the vehicles ahead of the ego on its route."""
        front = self.front_vehicles(max_distance)
        for vehicle in front:
            stop_vehicle(vehicle, 1.0)
        self.stopped.extend(front)
        return front

    def start_front_vehicles(self) -> None:
        """The stopped vehicles drive on (back on the autopilot)."""
        self.release()

    def clear_ahead(self, start: float, end: float) -> list[Any]:
        """Destroys the background vehicles on the route between `start` and `end` m ahead
        of the ego; returns them."""
        first = self.route_index()
        return self.clear_route(first + int(start), first + int(end))

    def clear_route(self, first: int, last: int) -> list[Any]:
        """Destroys the background vehicles on the route between plan indices `first` and
        `last` (a scenario's obstacles get the lane to themselves); returns them."""
        gone = self._on_route(first, last)
        for vehicle in gone:
            vehicle.destroy()
        self._alive()
        return gone

    def stop_near(self, location: Location, radius: float) -> list[Any]:
        """Holds (brakes) the background vehicles within `radius` m of `location`."""
        held = [v for v in self._alive() if v.get_location().distance(location) < radius]
        for vehicle in held:
            stop_vehicle(vehicle, 1.0)
        self.stopped.extend(held)
        return held

    def release(self) -> None:
        """Every held vehicle back on the autopilot."""
        for vehicle in self.stopped:
            if vehicle.is_alive:
                vehicle.set_autopilot(True, TM_PORT)
        self.stopped.clear()

    def destroy(self) -> None:
        for vehicle in self._alive():
            vehicle.destroy()
        self.vehicles.clear()
