"""Background activity around the ego, after ScenarioRunner's BackgroundActivity
(Leaderboard 2.0), on the world's autopilot: the task and the knobs scenarios turn.

The task (`run`) wakes each tick and does its upkeep every UPKEEP_SECONDS of simulated
time; between upkeeps the autopilot drives. An upkeep places every background vehicle
relative to the route (scenarios.background.route), then, by the ego's mode:

- on a road: the road bubble (scenarios.background.road) keeps up to `road_front`
  vehicles ahead and `road_back` behind on each lane of the ego's direction, and the
  oncoming sources feed the opposite lanes 80 m ahead;
- near and in a junction the route crosses (from 30 m + 1.5 m per m/s before it until
  the ego leaves it): the junction's entry sources feed it from its other roads and the
  route's exit lanes get their vehicles (scenarios.background.junction_mode).

Each vehicle's target speed follows ScenarioRunner's rules, relative to the ego's speed
limit: vehicles ahead slow down past the bubble's inner radius and stop at its outer
one, those behind go faster to keep up, the rest drive at the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scenarios.background import junction_mode, road
from scenarios.background.junctions import RouteJunction, route_junctions
from scenarios.background.keep_clear import ON_ROUTE, KeepClear
from scenarios.background.route import Placement, RouteFrame
from scenarios.background.tuning import Tuning
from scenarios.background.vehicles import (
    BRAKED,
    FREE,
    OPPOSITE,
    ROAD,
    STOPPED,
    Fleet,
)
from scenarios.tasks import tick
from world.geometry import Location, Vector3D

__all__ = ["BackgroundActivity"]

UPKEEP_SECONDS = 0.5  # simulated time between two upkeeps
WINDOW_BACK = 100  # plan points behind the ego where vehicles are placed on the route
WINDOW_AHEAD = 180  # and ahead
CROSSING_REMOVE = 20.0  # m around a crossing point: oncoming vehicles go (LeaveCrossingSpace)
CROSSING_STOP = 30.0  # m: oncoming vehicles stop


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
        tuning: Tuning | None = None,
    ) -> None:
        self.world, self.ego, self.plan = world, ego, plan
        self.rng = rng
        self.route_index = route_index
        self.tuning = tuning or Tuning()
        self.route = RouteFrame(world.get_map(), plan)
        self.fleet = Fleet(world, rng)
        self.upcoming: list[RouteJunction] = route_junctions(self.route)
        self.active: list[RouteJunction] = []
        self.keep_clear = KeepClear(self.route)
        self.index = 0  # the ego's route point at the last upkeep
        self.road_start = 0  # plan index where the ego's road began (its last junction's exit)
        self.removed_lanes: list[int] = []  # lane offsets the road bubble leaves empty
        self.route_sources = True  # road vehicles appear on the route's lanes
        self.opposite_active = True
        self.opposite: road.OppositeSources = road.OppositeSources()
        self.junction_entry = False  # a scenario cleared the ego's way into the junction
        self.exit_of: dict[int, Any] = {}  # actor id -> the junction exit lane it took
        self.ego_speed = 0.0
        self.speed_limit = 30.0
        self._source_ids = 0
        self._serial = 0
        self._view: tuple = (None, None, None)
        self._placed: tuple = (None, None, None)  # (serial, ids, placement) last computed

    # -- what the route scenario calls -------------------------------------------------------

    @property
    def vehicles(self) -> list[Any]:
        """The live background vehicles, in creation order."""
        self._fresh()
        return list(self.fleet.actors)

    def spawn(self) -> list[Any]:
        """The start (ScenarioRunner's initialise): on each lane of the ego's direction,
        `road_front` vehicles ahead and `road_back` behind, `road_spawn_dist` apart."""
        road.initial_vehicles(self)
        return self.vehicles

    def run(self) -> None:
        """The background's task: an upkeep every UPKEEP_SECONDS until the route stops."""
        dt = self.world.get_settings().fixed_delta_seconds or 0.05
        every = max(1, round(UPKEEP_SECONDS / dt))
        count = 0
        while True:
            if count % every == 0:
                self.update()
            count += 1
            if tick().stopping:
                return

    def destroy(self) -> None:
        self.fleet.destroy(range(len(self.fleet)))

    # -- the upkeep --------------------------------------------------------------------------

    def radii(self) -> tuple[float, float, float]:
        """The road bubble's inner and outer radius ahead and its radius behind (m), which
        grow with the ego's speed."""
        t = self.tuning
        grow = t.radius_per_speed * self.ego_speed
        inner = t.road_front * t.road_spawn_dist + t.road_extra_space + grow
        behind = (t.road_back + 1) * t.road_spawn_dist + grow
        return inner, inner + t.road_spawn_dist, behind

    def view(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The vehicles' positions, yaws and speeds (read once per upkeep or knob call and
        membership)."""
        key = (self.fleet.version, self._serial)
        if self._view[0] != key:
            self._view = (key, self.fleet.view(), None)
        return self._view[1]

    def xy(self) -> np.ndarray:
        return self.view()[0][:, :2]

    def place(self) -> Placement:
        """Every background vehicle placed on the route around the ego. Within one upkeep
        (or knob call) the vehicles placed already keep their placement: only new ones
        are placed."""
        xyz, yaw, _ = self.view()
        if self._view[2] is None:
            ids = self.fleet.ids
            serial, old_ids, old = self._placed
            if serial != self._serial or not len(old_ids) or not len(ids):
                placement = self._place_rows(xyz, yaw)
            else:
                at = np.minimum(np.searchsorted(old_ids, ids), len(old_ids) - 1)
                known = old_ids[at] == ids
                placement = old.take(at)
                if not known.all():
                    fresh = self._place_rows(xyz[~known], yaw[~known])
                    placement = Placement.merged(known, old.take(at[known]), fresh)
            self._placed = (self._serial, ids, placement)
            self._view = (self._view[0], self._view[1], placement)
        return self._view[2]

    def _place_rows(self, xyz: np.ndarray, yaw: np.ndarray) -> Placement:
        return self.route.place(xyz, yaw, self.index - WINDOW_BACK, self.index + WINDOW_AHEAD)

    def _fresh(self) -> None:
        """Positions are read anew (a new tick since the last read)."""
        self._serial += 1
        self.fleet.prune()
        self.index = max(self.index, int(self.route_index()))

    def ego_arc(self) -> float:
        return float(self.route.accum[self.index])

    def next_entry(self) -> int:
        """The plan index where the route enters its next junction (else its last point)."""
        return self.upcoming[0].enter_index if self.upcoming else len(self.route) - 1

    def new_source_id(self) -> int:
        self._source_ids += 1
        return self._source_ids

    def update(self) -> None:
        """One upkeep: the ego's mode, the vehicles kept or removed, new ones, speeds."""
        self._fresh()
        self.keep_clear.expire(self.index)
        velocity = self.ego.get_velocity()
        self.ego_speed = float(np.sqrt(velocity.x * velocity.x + velocity.y * velocity.y))
        self.speed_limit = float(self.ego.get_speed_limit())
        while self.active and self.index >= self.active[0].exit_index:
            junction_mode.end(self, self.active.pop(0))
        detection = self.tuning.junction_detection
        detection += self.tuning.detection_per_speed * self.ego_speed
        if self.upcoming:
            ahead = self.route.accum[self.upcoming[0].enter_index] - self.ego_arc()
            if ahead < detection:
                junction_mode.start(self, self.upcoming.pop(0))
        if self.active:
            junction_mode.upkeep(self)
        else:
            road.upkeep(self)
            road.feed_opposite(self)
        road.remove_far_oncoming(self)
        self.set_speeds()

    def set_speeds(self) -> None:
        """Target speeds for every vehicle, from the ego's speed limit (km/h)."""
        if not len(self.fleet):
            return
        share = road.speed_shares(self)
        kmh = self.speed_limit * share
        if self.tuning.max_speed > 0.0:
            kmh = np.minimum(kmh, self.tuning.max_speed)
        self.fleet.set_speeds(kmh)

    # -- queries -----------------------------------------------------------------------------

    def _on_route(self, first: int, last: int) -> np.ndarray:
        """Rows of the vehicles within ON_ROUTE of a plan point in [first, last]."""
        first, last = max(int(first), 0), min(int(last), len(self.route) - 1)
        if not len(self.fleet) or last < first:
            return np.zeros(0, dtype=np.int64)
        xy = self.xy()
        points = self.route.points[first : last + 1, :2]
        gap = xy[:, None, :] - points[None, :, :]
        near = ((gap * gap).sum(axis=2) <= ON_ROUTE * ON_ROUTE).any(axis=1)
        return np.flatnonzero(near)

    def _near(self, location: Location, radius: float) -> np.ndarray:
        if not len(self.fleet):
            return np.zeros(0, dtype=np.int64)
        xy = self.xy()
        gap = xy - np.array([location.x, location.y])
        return np.flatnonzero((gap * gap).sum(axis=1) < radius * radius)

    def front_vehicles(self, max_distance: float = 60.0) -> list[Any]:
        """Background vehicles on the route's lane ahead of the ego, within `max_distance`
        m (the dense plan's points are 1 m apart)."""
        self._fresh()
        first = int(self.route_index())
        rows = self._on_route(first, first + int(max_distance))
        return [self.fleet.actors[r] for r in rows.tolist()]

    # -- knobs: holding --------------------------------------------------------------------

    def stop_front_vehicles(self, max_distance: float = 60.0) -> list[Any]:
        """ScenarioRunner's StopFrontVehicles: the vehicles ahead of the ego on its route
        brake hard, off the autopilot, until `start_front_vehicles`."""
        self._fresh()
        first = int(self.route_index())
        return self.fleet.brake(self._on_route(first, first + int(max_distance)).tolist())

    def start_front_vehicles(self) -> None:
        """ScenarioRunner's StartFrontVehicles: the stopped vehicles drive on."""
        self.release()

    def stop_back_vehicles(self) -> list[Any]:
        """ScenarioRunner's StopBackVehicles: the road vehicles behind the ego stop (target
        speed 0 on the autopilot) until `start_back_vehicles`."""
        self._fresh()
        p = self.place()
        rows = np.flatnonzero(
            (self.fleet.group == ROAD) & (self.fleet.hold == FREE) & (p.arc < self.ego_arc())
        )
        self.fleet.hold[rows] = STOPPED
        self.set_speeds()
        return [self.fleet.actors[r] for r in rows.tolist()]

    def start_back_vehicles(self) -> None:
        self.fleet.release(STOPPED)
        self.set_speeds()

    def stop_near(self, location: Location, radius: float) -> list[Any]:
        """Holds (brakes, off the autopilot) the background vehicles within `radius` m of
        `location` until `release`."""
        self._fresh()
        return self.fleet.brake(self._near(location, radius).tolist())

    def release(self) -> None:
        """Every held vehicle back on the autopilot at its speed."""
        self.fleet.release(BRAKED)
        self.fleet.release(STOPPED)

    def set_max_speed(self, kmh: float) -> None:
        """ScenarioRunner's SetMaxSpeed: no background vehicle faster than `kmh` (0: no cap)."""
        self.tuning.max_speed = max(float(kmh), 0.0)
        self.set_speeds()

    # -- knobs: clearing ---------------------------------------------------------------------

    def clear_route(self, first: int, last: int) -> list[Any]:
        """Destroys the background vehicles on the route's lane between plan indices `first`
        and `last`, and keeps that stretch free of new ones until the ego is past it (a
        scenario's obstacles get the lane to themselves); returns the vehicles."""
        self._fresh()
        self.keep_clear.add_stretch(first, last)
        return self.fleet.destroy(self._on_route(first, last))

    def clear_ahead(self, start: float, end: float) -> list[Any]:
        """clear_route from `start` to `end` m ahead of the ego's route point."""
        first = int(self.route_index())
        return self.clear_route(first + int(start), first + int(end))

    def leave_space_in_front(self, space: float) -> list[Any]:
        """ScenarioRunner's LeaveSpaceInFront: the ego's lane free of background vehicles
        for `space` m ahead (they go, rather than being moved on)."""
        return self.clear_ahead(0.0, space)

    def clear_near(self, location: Location, radius: float) -> list[Any]:
        """Destroys the background vehicles within `radius` m of `location` and keeps the
        area free of new ones until the ego is `radius` m past it; returns them."""
        self._fresh()
        self.keep_clear.add_area(location, radius)
        return self.fleet.destroy(self._near(location, radius))

    def clear_along(self, locations: Sequence[Location], radius: float) -> list[Any]:
        """Destroys the background vehicles within `radius` m of any of `locations` (a
        scenario's path); returns them. Nothing is kept clear afterwards."""
        self._fresh()
        if not len(self.fleet) or not len(locations):
            return []
        xy = self.xy()
        points = np.array([(p.x, p.y) for p in locations])
        dx = xy[:, 0:1] - points[:, 0]
        dy = xy[:, 1:2] - points[:, 1]
        near = (dx * dx + dy * dy < radius * radius).any(axis=1)
        return self.fleet.destroy(np.flatnonzero(near))

    def lane_offset(self, waypoint: Any) -> int:
        """The lane offset (from the route's lane, right positive) of `waypoint`'s lane,
        near the ego."""
        self._fresh()
        loc = waypoint.transform.location
        where = self.route.place(
            np.array([[loc.x, loc.y, loc.z]]),
            np.array([waypoint.transform.rotation.yaw]),
            self.index - WINDOW_BACK,
            self.index + WINDOW_AHEAD,
        )
        return int(where.lane[0])

    def remove_lane(self, waypoint: Any) -> list[Any]:
        """ScenarioRunner's RemoveRoadLane: the road bubble's lane of `waypoint` (a lane of
        the ego's road, its direction) is emptied and stays empty until `readd_lane` or the
        next junction."""
        offset = self.lane_offset(waypoint)
        if offset not in self.removed_lanes:
            self.removed_lanes.append(offset)
        if not len(self.fleet):
            return []
        p = self.place()
        rows = np.flatnonzero(
            (self.fleet.group != OPPOSITE) & p.same_way & (p.lane == offset) & p.on_road
        )
        return self.fleet.destroy(rows)

    def readd_lane(self, offset: int = 0) -> None:
        """ScenarioRunner's ReAddRoadLane: the lane `offset` lanes right of the route's
        (negative: left) gets vehicles again."""
        if offset in self.removed_lanes:
            self.removed_lanes.remove(offset)

    def switch_route_sources(self, enabled: bool) -> None:
        """ScenarioRunner's SwitchRouteSources: whether vehicles appear on the route's lanes."""
        self.route_sources = bool(enabled)
        for junction in self.active:
            for source in junction.sources:
                if source.key in junction.route_entry_keys:
                    source.active = bool(enabled)

    def set_opposite_flow(
        self,
        active: bool | None = None,
        spawn_dist: float | None = None,
        source_dist: float | None = None,
    ) -> None:
        """ScenarioRunner's ChangeOppositeBehavior: oncoming vehicles on or off, their
        spacing (the sources then stand twice that ahead) or their sources' distance."""
        if source_dist is not None:
            self.tuning.opposite_source_dist = float(source_dist)
        if spawn_dist is not None:
            self.tuning.opposite_spawn_dist = float(spawn_dist)
            self.tuning.opposite_source_dist = 2.0 * float(spawn_dist)
        if active is not None:
            self.opposite_active = bool(active)

    def change_road_behaviour(
        self,
        front: int | None = None,
        back: int | None = None,
        spawn_dist: float | None = None,
        extra_space: float | None = None,
    ) -> None:
        """ScenarioRunner's ChangeRoadBehavior: vehicles ahead and behind per lane, their
        spacing, and extra space that extends the bubble ahead of the ego."""
        t = self.tuning
        t.road_front = t.road_front if front is None else int(front)
        t.road_back = t.road_back if back is None else int(back)
        t.road_spawn_dist = t.road_spawn_dist if spawn_dist is None else float(spawn_dist)
        t.road_extra_space = t.road_extra_space if extra_space is None else float(extra_space)

    def leave_crossing_space(self, waypoint: Any) -> list[Any]:
        """ScenarioRunner's LeaveCrossingSpace: oncoming vehicles within 20 m of the lane
        left of `waypoint` go, those within 30 m stop there; returns the ones gone."""
        left = waypoint.get_left_lane()
        if left is None or not len(self.fleet):
            return []
        self._fresh()
        here = left.transform.location
        oncoming = self.fleet.group == OPPOSITE
        gone = np.intersect1d(self._near(here, CROSSING_REMOVE), np.flatnonzero(oncoming))
        stop = np.intersect1d(self._near(here, CROSSING_STOP), np.flatnonzero(oncoming))
        for r in np.setdiff1d(stop, gone).tolist():
            self.fleet.actors[r].set_target_velocity(Vector3D(0.0, 0.0, 0.0))
        return self.fleet.destroy(gone)

    def handle_junction(
        self,
        *,
        clear_junction: bool = False,
        clear_ego_entry: bool = False,
        remove_entries: Sequence[Any] = (),
        remove_exits: Sequence[Any] = (),
        stop_entries: bool = False,
        extend_road_exit: float = 0.0,
        junction: Any = None,
    ) -> list[Any]:
        """ScenarioRunner's HandleJunctionScenario, for the junction the ego is in or comes
        to next (or the map junction `junction`, if the route crosses it still):
        `clear_junction` empties it and keeps it empty, `clear_ego_entry` removes
        the vehicles ahead of the ego up to it (and keeps those behind from passing),
        `remove_entries` / `remove_exits` (waypoints on the lanes) switch those lanes'
        traffic off, `stop_entries` holds the traffic of its other entries before it, and
        `extend_road_exit` m more are left free past the route's exit. Returns the
        vehicles removed."""
        self._fresh()
        candidates = self.active + self.upcoming
        if junction is not None:
            candidates = [c for c in candidates if any(j.id == junction.id for j in c.junctions)]
        if not candidates:
            return []
        return junction_mode.handle(
            self,
            candidates[0],
            clear_junction=clear_junction,
            clear_ego_entry=clear_ego_entry,
            remove_entries=remove_entries,
            remove_exits=remove_exits,
            stop_entries=stop_entries,
            extend_road_exit=extend_road_exit,
        )
