"""What the actor-flow types share (ScenarioRunner's actor_flow.py): the flow parameters,
a lane walk from a flow's source toward its sink, the lanes of a waypoint's direction,
and `FlowScenario`, which runs flows until an end condition on the ego holds.

A flow (scenarios.behaviours.actor_flow) spawns vehicles at its source whenever the last
one is a gap drawn from `source_dist_interval` (m) away, drives them at `flow_speed`
(m/s, as ScenarioRunner's ActorFlow) and destroys them at its sink. With
`initial_actors` the stretch from source to sink is filled at the trigger as well (gaps
drawn the same way), so the ego meets a running flow, as ScenarioRunner's
ActorFlow(initial_actors=True) does. Flows end, and their vehicles go, with the
behaviour (the ego's end condition, the scenario timeout of 240 s, or the route's end).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import TM_PORT, actor_flow, follow_lane
from scenarios.errors import ScenarioError
from scenarios.params import Param
from world.geometry import Location, Transform
from world.map.lane_enums import LaneType

FLOW_PARAMETERS = (
    Param("start_actor_flow", "location"),
    Param("end_actor_flow", "location"),
    Param("flow_speed", "float", 10.0),
    Param("source_dist_interval", "interval", (20.0, 50.0)),
)
SINK_DISTANCE = 2.0  # m: a flow vehicle this near its sink goes; the ego this near ends
FLOW_TIMEOUT = 240.0  # s, ScenarioRunner's for every flow type
WALK_STEP = 2.0  # m between the points of a lane walk
SPAWN_LIFT = 0.3  # m above the lane, so a spawned car does not start in the ground
BLUEPRINT = "vehicle.lincoln.mkz_2017"


def same_direction_lanes(waypoint: Any) -> list[Any]:
    """The driving lanes of `waypoint`'s road and direction, from the leftmost (its own
    included; ScenarioRunner's get_same_dir_lanes)."""
    left: list[Any] = []
    right: list[Any] = []
    for side, found in (("get_left_lane", left), ("get_right_lane", right)):
        wp = getattr(waypoint, side)()
        while wp is not None and wp.lane_id * waypoint.lane_id > 0:
            if wp.lane_type == LaneType.Driving:
                found.append(wp)
            wp = getattr(wp, side)()
    return [*reversed(left), waypoint, *right]


def lane_walk(source: Any, sink: Location) -> list[Any]:
    """Waypoints every WALK_STEP m from `source` along its lanes until the walk is within
    WALK_STEP of `sink` (or ends); at a fork, the branch whose lane ends nearest `sink`
    (the traffic manager's rule for a path's junctions). At most three times the
    straight distance, plus 200 m."""
    limit = 3.0 * source.transform.location.distance(sink) + 200.0
    path = [source]
    travelled = 0.0
    while travelled < limit:
        here = path[-1]
        if here.transform.location.distance(sink) <= WALK_STEP:
            break
        options = here.next(WALK_STEP)
        if not options:
            break
        if len(options) > 1:
            options = sorted(
                options, key=lambda wp: _lane_end(wp).transform.location.distance(sink)
            )
        path.append(options[0])
        travelled += WALK_STEP
    return path


def _lane_end(wp: Any) -> Any:
    ahead = wp.next_until_lane_end(WALK_STEP)
    return ahead[-1] if ahead else wp


def first_junction_id(path: list[Any]) -> int | str | None:
    """The id of the first junction a lane walk passes through, if any."""
    for wp in path:
        if wp.is_junction:
            return wp.junction_id
    return None


def lifted(transform: Transform) -> Transform:
    loc = transform.location
    return Transform(Location(loc.x, loc.y, loc.z + SPAWN_LIFT), transform.rotation)


class FlowScenario(Scenario):
    """A scenario of actor flows: `flows()` names them ((source waypoint, sink waypoint,
    initial actors?)); `ended()` is the ego's end condition. Background vehicles on each
    flow's path are removed first (ScenarioRunner's HandleJunctionScenario and
    RemoveRoadLane remove the background from a flow's lanes)."""

    parameters = FLOW_PARAMETERS
    scenario_timeout = FLOW_TIMEOUT
    clear_ego_entry = True
    """Whether the background vehicles on the ego's route up to the end of its next
    junction go too (ScenarioRunner's clear_ego_entry and clear_junction), so that only
    the flow is there for the ego to meet."""
    oncoming_off = False
    """Whether the background's oncoming traffic stops while the flows run."""
    lane_off = False
    """Whether the background only leaves the flow's lane (a lane of the ego's road) empty,
    instead of handling the junction."""
    removed_offset: int | None = None

    def setup(self) -> None:
        carla_map = self.world.get_map()
        self.source_wp = self._waypoint(carla_map, "start_actor_flow")
        self.sink_wp = self._waypoint(carla_map, "end_actor_flow")

    def _waypoint(self, carla_map: Any, name: str) -> Any:
        wp = carla_map.get_waypoint(self.params[name])
        if wp is None:
            raise ScenarioError(f"scenario {self.name}: {name} {self.params[name]} is off the road")
        return wp

    # -- what a type writes ---------------------------------------------------------------------

    def flows(self) -> list[tuple[Any, Any, bool]]:
        return [(self.source_wp, self.sink_wp, True)]

    def ended(self) -> Callable[[], bool]:
        """Default: the ego within SINK_DISTANCE of a lane of the sink's direction."""
        sinks = [wp.transform.location for wp in same_direction_lanes(self.sink_wp)]
        ego = self.ego
        return lambda: any(ego.get_location().distance(s) < SINK_DISTANCE for s in sinks)

    # -- the behaviour --------------------------------------------------------------------------

    def behaviour(self) -> None:
        self._background(True)
        done = False
        for source, sink, initial in self.flows():
            path = lane_walk(source, sink.transform.location)
            self._clear(path)
            live = self._initial_actors(path) if initial else []
            self.in_parallel(self._run_flow, source, sink, live, lambda: done)
        try:
            self.wait_for_ego(self.ended())
        finally:
            done = True
            self._background(False)

    def _background(self, starting: bool) -> None:
        """ScenarioRunner's background handling of the flows: at the start the ego's way
        up to the end of its next junction is cleared (clear_ego_entry), that junction gets
        no background traffic from the flows' sources nor into their sinks, the route's
        lanes get no new background vehicles (SwitchRouteSources) and, with
        `oncoming_off`, neither do the oncoming lanes (ChangeOppositeBehavior); at the end
        the route's lanes and the oncoming lanes get them again. With `lane_off` only the
        flow's lane is left empty while the flows run."""
        background = self.ctx.background
        if background is None:
            return
        if self.lane_off:  # ScenarioRunner's RemoveRoadLane of the flow's source lane
            if starting:
                self.removed_offset = background.lane_offset(self.source_wp)
                background.remove_lane(self.source_wp)
            elif self.removed_offset is not None:
                background.readd_lane(self.removed_offset)
            return
        if not starting:
            background.switch_route_sources(True)
            if self.oncoming_off:
                background.set_opposite_flow(active=True)
            return
        if self.clear_ego_entry:
            background.clear_ahead(0.0, self._route_past_junction())
        sources, sinks = [], []
        for source, sink, _initial in self.flows():
            sources.append(source)
            sinks += same_direction_lanes(sink)
        background.handle_junction(
            clear_junction=self.clear_ego_entry,
            clear_ego_entry=self.clear_ego_entry,
            remove_entries=sources,
            remove_exits=sinks,
        )
        background.switch_route_sources(False)
        if self.oncoming_off:
            background.set_opposite_flow(active=False)

    def _route_past_junction(self) -> float:
        """Metres of the route (1 m a point) from the trigger to the end of the first
        junction after it (the whole rest of the route if there is none)."""
        carla_map = self.world.get_map()
        inside = False
        rest = self.plan[self.trigger_index :]
        for k, (tf, _) in enumerate(rest):
            wp = carla_map.get_waypoint(tf.location)
            if wp is not None and wp.is_junction:
                inside = True
            elif inside:
                return float(k)
        return float(len(rest))

    def _run_flow(self, source: Any, sink: Any, live: list, until: Callable[[], bool]) -> None:
        """One flow, from `source` to `sink`, `live` holding its vehicles, until `until()`."""
        actor_flow(
            self.world,
            lifted(source.transform),
            sink.transform.location,
            self.params["flow_speed"] * 3.6,  # m/s, as ScenarioRunner's ActorFlow takes it
            self.params["source_dist_interval"],
            self.rng,
            blueprint=BLUEPRINT,
            sink_distance=SINK_DISTANCE,
            spawned=live,
            until=until,
        )

    def _clear(self, path: list[Any]) -> None:
        """Destroys the background vehicles within WALK_STEP of a point of the flow's path."""
        background = self.ctx.background
        if background is None:
            return
        background.clear_along([wp.transform.location for wp in path], WALK_STEP)

    def _initial_actors(self, path: list[Any]) -> list[Any]:
        """Vehicles along the flow's path, gaps drawn from the interval, the first a gap
        from the source; returned farthest first (the flow's order: newest last)."""
        low, high = self.params["source_dist_interval"]
        bp = self.world.get_blueprint_library().find(BLUEPRINT).copy()
        bp.set_attribute("role_name", "scenario")
        placed: list[Any] = []
        along = float(self.rng.uniform(low, high))
        while True:
            index = int(along / WALK_STEP)
            if index >= len(path) - int(SINK_DISTANCE / WALK_STEP) - 1:
                break
            actor = self.world.try_spawn_actor(bp, lifted(path[index].transform))
            if actor is not None:
                follow_lane(actor, self.params["flow_speed"] * 3.6, ignore_lights=True)
                tm = self.world.get_trafficmanager(TM_PORT)
                tm.set_path(actor, [path[-1].transform.location])
                placed.append(actor)
            along += float(self.rng.uniform(low, high))
        return list(reversed(placed))


def in_then_out_of_junction(ego: Any, carla_map: Any, junction: int | str | None):
    """ScenarioRunner's WaitEndIntersection: true once the ego has been in a junction
    (`junction`, or any when None) and is out of it again."""
    entered = False

    def check() -> bool:
        nonlocal entered
        wp = carla_map.get_waypoint(ego.get_location())
        inside = (
            wp is not None and wp.is_junction and (junction is None or wp.junction_id == junction)
        )
        if inside:
            entered = True
        return entered and not inside

    return check
