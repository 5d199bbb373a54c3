"""PedestrianCrossing (ScenarioRunner's pedestrian_crossing.py): a group of three pedestrians
crosses the road in front of the ego where its lane enters the next junction, at the
crosswalk there, and the ego has to wait for them.

Where: the route's junction after the trigger (`_junctions.route_junction`), entered from
the route's last lane point before it. The crossing line runs square to that point's
heading through the middle of the map's crosswalk that the route passes through from 8 m
before the junction to 8 m into it (`Map.get_crosswalks()`; generated towns have them 0.5
to 3.5 m before their junctions, CARLA's Town04 and Town10HD 2 to 7 m inside theirs), or,
without one, 1 m past the lane point (ScenarioRunner's place for its middle walker). The
walkers stand on the first sidewalk right of the ego's lane, facing across the road, in
ScenarioRunner's arrangement: 0.6 m before the line, on it and 0.6 m past it; across the
sidewalk its spread is halved and centred (on the centre, 0.5 m further out, 0.5 m further
in) so the group fits a 2 m sidewalk.

What: when the ego reaches the trigger the background cars on the route up to the junction
go (ScenarioRunner's HandleJunctionScenario with clear_ego_entry). Once the ego is 3.5 s (at
its speed) or 12 m from where the crossing line meets its lane, each walker waits its idle
time, then walks straight across at its speed until it has reached the far side of the road
(the centre of the sidewalk across; the outer edge of the last lane where there is none) or
spent the time that takes, and goes. Idle times (0 to 1.5 s) and speeds (1.3 to 2 m/s) are
drawn per walker, in order, from the scenario's generator, then the walkers' blueprints. The
scenario ends when every walker has crossed and the ego has driven 40 m from the moment they
set off.
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
    wait,
    wait_until,
)
from scenarios.errors import ScenarioError
from scenarios.library._junctions import route_junction
from scenarios.placement import crosswalks, inside
from world.geometry import Location, Rotation, Transform
from world.map.lane_enums import LaneType

GROUP = ((-0.6, 0.0), (0.0, 0.5), (0.6, -0.5))  # m (along the road, outwards) per walker
IDLE = (0.0, 1.5)  # s, drawn per walker
SPEED = (1.3, 2.0)  # m/s, drawn per walker
REACTION_TIME = 3.5  # s
TRIGGER_DISTANCE = 12.0  # m
END_DISTANCE = 40.0  # m the ego drives once the walkers set off
CROSSWALK_BEFORE = 8  # route points (1 m apart) before the junction searched for a crosswalk
CROSSWALK_INTO = 8  # route points into the junction searched for a crosswalk
NO_CROSSWALK_ALONG = 1.0  # m past the lane point: the crossing line without a crosswalk
WALKER_LIFT = 1.2  # m above the sidewalk
MAX_LANES = 20  # lanes walked across the road before giving up


class PedestrianCrossing(Scenario):
    type_name = "PedestrianCrossing"
    parameters = ()

    def _crossing_along(self, entry: Any, enter_index: int) -> float:
        """m past `entry` (along its heading) of the crossing line: through the middle of
        the crosswalk the route passes through near the junction, if any."""
        world_map = self.world.get_map()
        polygons = crosswalks(world_map)
        first = max(self.trigger_index, enter_index - CROSSWALK_BEFORE)
        last = min(len(self.plan), enter_index + CROSSWALK_INTO)
        for index in range(first, last):
            point = self.plan[index][0].location
            for polygon in polygons:
                if inside(polygon, point):
                    n = float(len(polygon))
                    middle = Location(
                        sum(c.x for c in polygon) / n, sum(c.y for c in polygon) / n, 0.0
                    )
                    return _along(entry.transform, middle)
        return NO_CROSSWALK_ALONG

    def _sidewalk(self, entry: Any) -> Any:
        """The first sidewalk right of the ego's lane, on its side of the road."""
        wp = entry.get_right_lane()
        while wp is not None and wp.lane_id * entry.lane_id > 0:
            if wp.lane_type == LaneType.Sidewalk:
                return wp
            wp = wp.get_right_lane()
        raise ScenarioError(
            f"scenario {self.name}: no sidewalk right of the ego's lane at "
            f"{entry.transform.location}"
        )

    def _far_side(self, entry: Any) -> tuple[Location, float]:
        """The far side of the road from the ego's lane: a point and how far past it the
        walkers stop (0 at a sidewalk's centre; half the lane width at the outer edge of
        the last lane when there is no sidewalk)."""
        step, wp = "get_left_lane", entry
        for _ in range(MAX_LANES):
            nxt = getattr(wp, step)()
            if nxt is None:
                break
            if nxt.lane_id * wp.lane_id < 0:
                step = "get_right_lane"  # across the centre: outwards is the other lane's right
            wp = nxt
            if wp.lane_type == LaneType.Sidewalk:
                return wp.transform.location, 0.0
        return wp.transform.location, 0.5 * wp.lane_width

    def setup(self) -> None:
        junction = route_junction(self, self.name)
        entry = junction.entry
        self.clear_to = junction.enter_index
        along = self._crossing_along(entry, junction.enter_index)
        tf = entry.transform
        forward, right = tf.get_forward_vector(), tf.get_right_vector()
        loc = tf.location
        self.crossing = Location(loc.x + along * forward.x, loc.y + along * forward.y, loc.z)
        sidewalk = self._sidewalk(entry).transform.location
        far, beyond = self._far_side(entry)
        self.idle: list[float] = []
        self.speed: list[float] = []
        for _ in GROUP:
            self.idle.append(float(self.rng.uniform(*IDLE)))
            self.speed.append(float(self.rng.uniform(*SPEED)))
        self.walkers: list[Any] = []
        self.distances: list[float] = []
        facing = Rotation(tf.rotation.pitch, tf.rotation.yaw - 90.0, tf.rotation.roll)
        for dx, dy in GROUP:
            x, y = along + dx, _along(tf, sidewalk, right) + dy
            start = Location(
                loc.x + x * forward.x + y * right.x,
                loc.y + x * forward.y + y * right.y,
                sidewalk.z + WALKER_LIFT,
            )
            self.distances.append(_along(tf, start, right) - _along(tf, far, right) + beyond)
            walker = self.spawn(
                self.random_blueprint("walker.pedestrian.*"), Transform(start, facing)
            )
            self.walkers.append(walker)

    def behaviour(self) -> None:
        if self.ctx.background is not None:
            self.ctx.background.clear_route(self.trigger_index, self.clear_to)
        arrives = in_time_to_arrival(self.ego, self.crossing, REACTION_TIME)
        near = in_trigger_distance(self.ego, self.crossing, TRIGGER_DISTANCE)
        wait_until(lambda: arrives() or near())
        for k, walker in enumerate(self.walkers):
            self.in_parallel(self._cross, walker, self.idle[k], self.speed[k], self.distances[k])
        drive_distance(self.ego, END_DISTANCE)
        wait_until(lambda: not any(w.is_alive for w in self.walkers))

    @staticmethod
    def _cross(walker: Any, idle: float, speed: float, distance: float) -> None:
        """One walker: waits `idle` s, walks `distance` m across at `speed`, goes."""
        wait(idle)
        keep_velocity(walker, speed, duration=distance / speed, distance=distance)
        destroy_actor(walker)


def _along(tf: Transform, where: Location, axis: Any = None) -> float:
    """m of `where` from `tf`'s location along `axis` (default: `tf`'s heading)."""
    axis = tf.get_forward_vector() if axis is None else axis
    return (where.x - tf.location.x) * axis.x + (where.y - tf.location.y) * axis.y
