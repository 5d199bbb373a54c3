"""Junction geometry the junction scenario types share: the junction the route crosses
after its trigger, the junction's entry lanes and which side of the ego each comes from,
where an entry's traffic leaves the junction, and the lights that govern an entry.

Sides come from headings alone (dot and cross products of forward vectors, no angles):
an entry whose traffic heads against the ego's is "opposite"; one whose traffic heads to
the ego's right comes from the "left" (CARLA's frame: the right of a heading is its yaw
plus 90 degrees), one heading to the ego's left comes from the "right".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scenarios.errors import ScenarioError
from world.geometry import Location

__all__ = [
    "RouteJunction",
    "clear_junction",
    "crossing_point",
    "downstream",
    "entries_of",
    "entry_on",
    "exit_of",
    "in_junction",
    "light_of",
    "route_junction",
    "side_of",
    "upstream",
]

STEP = 1.0  # m between the waypoints walked


@dataclass
class RouteJunction:
    """The junction the route crosses: its entry and exit waypoints on the route and the
    plan indices where the route enters and leaves it."""

    junction: Any
    entry: Any  # the route's last waypoint before the junction
    exit: Any  # its first waypoint after
    enter_index: int
    leave_index: int


def route_junction(scenario: Any, name: str) -> RouteJunction:
    """The first junction the plan enters at or after the trigger."""
    world_map = scenario.world.get_map()
    plan = scenario.plan
    previous = None
    for index in range(scenario.trigger_index, len(plan)):
        wp = world_map.get_waypoint(plan[index][0].location)
        if wp is not None and wp.is_junction:
            if previous is None:
                raise ScenarioError(f"scenario {name}: the trigger is inside a junction")
            leave = index
            while leave < len(plan):
                out = world_map.get_waypoint(plan[leave][0].location)
                if out is not None and not out.is_junction:
                    return RouteJunction(wp.get_junction(), previous, out, index, leave)
                leave += 1
            raise ScenarioError(f"scenario {name}: the route ends inside its junction")
        previous = wp
    raise ScenarioError(f"scenario {name}: the route crosses no junction after its trigger")


def _lane_key(wp: Any) -> tuple[str, int]:
    return (str(wp.road_id), int(wp.lane_id))


def entries_of(junction: Any) -> list[Any]:
    """One waypoint per lane that leads into the junction (just before it), in the
    junction's lane order."""
    out: dict[tuple[str, int], Any] = {}
    for start, _end in junction.get_waypoints():
        before = start.previous(STEP)
        if not before:
            continue
        out.setdefault(_lane_key(before[0]), before[0])
    return list(out.values())


def side_of(ego_entry: Any, other: Any) -> str:
    """Where `other`'s traffic comes from, seen from the ego entering at `ego_entry`:
    "same", "opposite", "left" or "right"."""
    ego = ego_entry.transform.get_forward_vector()
    fwd = other.transform.get_forward_vector()
    along = ego.x * fwd.x + ego.y * fwd.y
    across = ego.x * fwd.y - ego.y * fwd.x  # > 0: heading to the ego's right
    if abs(along) >= abs(across):
        return "same" if along > 0 else "opposite"
    return "left" if across > 0 else "right"


def entry_on(junction: Any, ego_entry: Any, side: str, name: str) -> Any:
    """The entry lane from `side` (the rightmost when there are several)."""
    found = [e for e in entries_of(junction) if side_of(ego_entry, e) == side]
    if not found:
        raise ScenarioError(f"scenario {name}: the junction has no entry from the {side}")
    entry = found[0]
    while True:
        right = entry.get_right_lane()
        same_way = right is not None and right.lane_id * entry.lane_id > 0
        if not same_way or right.lane_type != entry.lane_type:
            return entry
        entry = right


def exit_of(entry: Any, turn: str = "straight") -> Any:
    """The first waypoint after the junction for traffic from `entry` going "straight",
    "left" or "right" (the junction lane whose end heading fits best)."""
    heading = entry.transform.get_forward_vector()

    def score(end: Any) -> float:
        fwd = end.transform.get_forward_vector()
        along = heading.x * fwd.x + heading.y * fwd.y
        across = heading.x * fwd.y - heading.y * fwd.x  # > 0: turned right
        return {"straight": along, "right": across, "left": -across}[turn]

    inside = entry.next(STEP)
    if not inside:
        where = entry.transform.location
        raise ScenarioError(f"no lane leads on from the junction entry at {where}")
    starts = [wp for wp in inside if wp.is_junction] or inside
    best = None
    for start in starts:
        wp = start
        while wp.is_junction:
            nexts = wp.next(STEP)
            if not nexts:
                break
            wp = nexts[0]
        if best is None or score(wp) > score(best) + 1e-6:
            best = wp
    return best


def upstream(entry: Any, distance: float) -> Any:
    """The waypoint `distance` m back from `entry` along its lane, or the last one before
    another junction."""
    wp = entry
    walked = 0.0
    while walked < distance:
        back = wp.previous(5.0)
        if not back or back[0].is_junction:
            break
        wp = back[0]
        walked += 5.0
    return wp


def downstream(wp: Any, distance: float) -> Any:
    """The waypoint `distance` m on from `wp` (its first branch)."""
    ahead = wp.next(distance)
    return ahead[0] if ahead else wp


def light_of(world: Any, junction: Any, entry: Any) -> Any | None:
    """The junction's light whose stop waypoints include `entry`'s lane (else the light
    nearest to it)."""
    lights = world.get_traffic_lights_in_junction(junction.id)
    key = _lane_key(entry)
    for light in lights:
        if any(_lane_key(stop) == key for stop in light.get_stop_waypoints()):
            return light
    if not lights:
        return None
    where = entry.transform.location
    return min(lights, key=lambda light: light.get_location().distance(where))


def crossing_point(a: Any, b: Any) -> Any | None:
    """Where the lines through waypoints `a` and `b` along their headings cross (x-y;
    z of `a`), or None when they are parallel."""
    pa, da = a.transform.location, a.transform.get_forward_vector()
    pb, db = b.transform.location, b.transform.get_forward_vector()
    det = da.x * db.y - da.y * db.x
    if abs(det) < 1e-9:
        return None
    t = ((pb.x - pa.x) * db.y - (pb.y - pa.y) * db.x) / det
    return Location(pa.x + t * da.x, pa.y + t * da.y, pa.z)


CLEAR_MARGIN = 15.0  # m around a junction's box


def clear_junction(
    scenario: Any,
    route: RouteJunction,
    *,
    remove_entries: Sequence[Any] = (),
    remove_exits: Sequence[Any] = (),
    stop_entries: bool = True,
    extend_road_exit: float = 0.0,
) -> None:
    """ScenarioRunner's HandleJunctionScenario for the route's junction: the background
    vehicles on the route up to the junction's exit and those in or near the junction go,
    the junction is kept clear, the lanes of `remove_entries` / `remove_exits` get no
    traffic, `stop_entries` holds the other entries' traffic before the junction and
    `extend_road_exit` m more are left free past the route's exit."""
    background = scenario.ctx.background
    if background is None:
        return
    background.clear_ahead(0.0, float(route.leave_index - scenario.trigger_index))
    box = route.junction.bounding_box
    background.clear_near(box.location, max(box.extent.x, box.extent.y) + CLEAR_MARGIN)
    background.handle_junction(
        junction=route.junction,
        clear_junction=True,
        clear_ego_entry=True,
        remove_entries=remove_entries,
        remove_exits=remove_exits,
        stop_entries=stop_entries,
        extend_road_exit=extend_road_exit,
    )


def in_junction(world: Any, actor: Any) -> Callable[[], bool]:
    """A predicate: `actor` is on a junction lane now."""
    world_map = world.get_map()

    def check() -> bool:
        wp = world_map.get_waypoint(actor.get_location())
        return wp is not None and wp.is_junction

    return check
