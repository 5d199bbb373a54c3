"""The road bubble and the oncoming lanes while the ego drives between junctions, and
every background vehicle's target speed (ScenarioRunner's road behaviour).

Road bubble, per lane of the ego's direction (lane offsets from the route's lane):

- at most `road_front` vehicles ahead of the ego and `road_back` behind; beyond that the
  farthest go, and so does any road vehicle that leaves the bubble (more than its outer
  radius plus one spacing ahead, more than its radius behind, off the ego's lanes);
- a lane short of vehicles behind gets one `road_back` spacings behind the ego (or a
  spacing behind its last), one short ahead gets one at the bubble's front, between its
  inner and outer radius; never nearer the ego than `safe_distance`, in a junction, past
  the route's next junction or before its last one, on a lane too narrow, in a place a
  scenario keeps clear, or within CLEARANCE of any vehicle, walker or prop.

Oncoming lanes: a source on each opposite lane at the route point `opposite_source_dist`
m ahead (never past the next junction) adds a vehicle whenever its last one is
`opposite_spawn_dist` m away; oncoming vehicles ignore lights and signs and go once they
are that far behind the ego.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from scenarios.background.route import among
from scenarios.background.vehicles import ENTRY, EXIT, FREE, JUNCTION, OPPOSITE, ROAD

if TYPE_CHECKING:
    from scenarios.background.activity import BackgroundActivity

__all__ = [
    "OppositeSources",
    "feed_opposite",
    "initial_vehicles",
    "remove_far_oncoming",
    "speed_shares",
    "upkeep",
]

BEHIND = -0.17  # m along the ego's heading: further back is behind it (ScenarioRunner's)
NARROW_MARGIN = 0.2  # m over lane_width_min for a road vehicle's lane
ONCOMING_SAFE = 20.0  # m from the ego to a new oncoming vehicle at least
EXIT_FACTOR = 1.5  # route-exit vehicles of a junction slow down later than road ones


@dataclass
class OppositeSource:
    wp: Any
    last: Any = None


@dataclass
class OppositeSources:
    sources: list[OppositeSource] = field(default_factory=list)


def _lanes(act: BackgroundActivity) -> list[int]:
    return act.route.lane_offsets(act.index)


def _usable(act: BackgroundActivity, wp: Any | None, width_min: float) -> bool:
    if wp is None or wp.is_junction or wp.lane_width < width_min:
        return False
    where = wp.transform.location
    if where.distance(act.ego.get_location()) < act.tuning.safe_distance:
        return False
    return not act.keep_clear.blocks(where)


def road_spot(act: BackgroundActivity, rel: float, lane: int) -> Any | None:
    """The waypoint `rel` m along the route from the ego on lane offset `lane`, where a
    road vehicle may appear; None when it may not."""
    r = act.route
    t = act.tuning
    arc = act.ego_arc() + rel
    wp = None
    if arc < 0.0:
        if act.road_start > 0:
            return None  # behind the last junction
        wp = r.lane_waypoint(0, lane)
        walked = 0.0
        while wp is not None and walked < -arc - 1e-6:
            step = min(t.road_spawn_dist, -arc - walked)
            back = wp.previous(step)
            wp = back[0] if len(back) == 1 and not back[0].is_junction else None
            walked += step
    elif arc <= r.length:
        k = r.index_at(arc)
        if k < act.road_start or k > act.next_entry() or r.in_junction(k):
            return None
        wp = r.lane_waypoint(k, lane)
    return wp if _usable(act, wp, t.lane_width_min + NARROW_MARGIN) else None


def initial_vehicles(act: BackgroundActivity) -> None:
    """ScenarioRunner's initialise: on each lane of the ego's direction at the route's
    start, `road_front` vehicles ahead and `road_back` behind, a spacing apart, up to a
    junction or a fork."""
    t = act.tuning
    for lane, wp in act.route.lanes_at(0):
        if lane in act.removed_lanes:
            continue
        spots = []
        for step, count in (("next", t.road_front), ("previous", t.road_back)):
            here = wp
            for _ in range(count):
                found = getattr(here, step)(t.road_spawn_dist)
                if len(found) != 1 or found[0].is_junction:
                    break
                here = found[0]
                spots.append(here)
        for spot in spots:
            if spot.lane_width >= t.lane_width_min and not act.keep_clear.blocks(
                spot.transform.location
            ):
                act.fleet.spawn(spot, ROAD)


def _lane_sides(act: BackgroundActivity, member: np.ndarray) -> dict[tuple[int, bool], list]:
    """The member rows by (lane offset, ahead of the ego?), each list farthest first."""
    p = act.place()
    rel = p.arc - act.ego_arc()
    rows = np.flatnonzero(member)
    order = rows[np.lexsort((-np.abs(rel[rows]), rel[rows] >= 0.0, p.lane[rows]))]
    out: dict[tuple[int, bool], list] = {}
    ahead = (rel[order] >= 0.0).tolist()
    for r, lane, front in zip(order.tolist(), p.lane[order].tolist(), ahead, strict=True):
        out.setdefault((lane, front), []).append(r)
    return out


def _members(act: BackgroundActivity, lanes: list[int]) -> np.ndarray:
    """Road vehicles on the ego's lanes, its way, within the bubble."""
    f = act.fleet
    _, outer, behind = act.radii()
    p = act.place()
    rel = p.arc - act.ego_arc()
    member = (f.group == ROAD) & p.same_way & p.on_road & among(p.lane, lanes)
    return member & (rel >= -behind) & (rel <= outer + act.tuning.road_spawn_dist)


def upkeep(act: BackgroundActivity) -> None:
    """The road bubble: vehicles out of it or over its counts go, short lanes get one."""
    f = act.fleet
    t = act.tuning
    lanes = _lanes(act)
    inner, outer, behind = act.radii()
    limits = {True: t.road_front, False: t.road_back}
    if len(f):
        member = _members(act, lanes)
        free = (f.hold == FREE).tolist()
        drop = np.flatnonzero((f.group == ROAD) & (f.hold == FREE) & ~member).tolist()
        for (_, ahead), rows in _lane_sides(act, member).items():
            extra = len(rows) - limits[ahead]
            if extra > 0:
                drop += [r for r in rows if free[r]][:extra]
        f.destroy(drop)
    if not act.route_sources or act.junction_entry:
        return
    sides = _lane_sides(act, _members(act, lanes)) if len(f) else {}
    rel = act.place().arc - act.ego_arc() if len(f) else np.zeros(0)
    speed = act.view()[2] if len(f) else np.zeros(0)
    for lane in lanes:
        if lane in act.removed_lanes:
            continue
        back = sides.get((lane, False), [])
        if len(back) < t.road_back:
            rear = float(rel[back[0]]) if back else 0.0
            spot_rel = min(-t.road_back * t.road_spawn_dist, rear - t.road_spawn_dist)
            spot = road_spot(act, spot_rel, lane) if spot_rel >= -behind else None
            if spot is not None:
                pace = min(act.ego_speed, float(speed[back[0]])) if back else act.ego_speed
                f.spawn(spot, ROAD, speed=pace)
        ahead = sides.get((lane, True), [])
        if len(ahead) < t.road_front:
            lead = float(rel[ahead[0]]) if ahead else -np.inf
            spot_rel = max(inner, lead + t.road_spawn_dist)
            spot = road_spot(act, spot_rel, lane) if spot_rel <= outer else None
            if spot is not None:
                f.spawn(spot, ROAD, speed=act.ego_speed)


def feed_opposite(act: BackgroundActivity) -> None:
    """The oncoming sources, at the route point `opposite_source_dist` ahead (or the next
    junction's entry, if nearer), one per opposite lane; distances to a source are taken
    to its route point."""
    sources = act.opposite
    if not act.opposite_active:
        return
    t = act.tuning
    r = act.route
    k = min(r.index_at(act.ego_arc() + t.opposite_source_dist), act.next_entry())
    if r.in_junction(k):
        return
    lanes = r.opposite_at(k)
    if len(lanes) != len(sources.sources):
        sources.sources = [OppositeSource(wp) for wp in lanes]
    for source, wp in zip(sources.sources, lanes, strict=True):
        source.wp = wp
    x, y = float(r.points[k, 0]), float(r.points[k, 1])
    ego = act.ego.get_location()
    if (ego.x - x) * (ego.x - x) + (ego.y - y) * (ego.y - y) < ONCOMING_SAFE * ONCOMING_SAFE:
        return
    for source in sources.sources:
        last = source.last
        if last is not None and last.is_alive:
            at = last.get_location()
            gap = (at.x - x) * (at.x - x) + (at.y - y) * (at.y - y)
            if gap <= t.opposite_spawn_dist * t.opposite_spawn_dist:
                continue
        if source.wp.lane_width < t.lane_width_min:
            continue
        if act.keep_clear.blocks(source.wp.transform.location):
            continue
        actor = act.fleet.spawn(source.wp, OPPOSITE, ignore_lights=True)
        if actor is not None:
            source.last = actor


def remove_far_oncoming(act: BackgroundActivity) -> None:
    """Oncoming vehicles further than the sources' distance from the ego and behind it go."""
    f = act.fleet
    if not (f.group == OPPOSITE).any():
        return
    t = act.tuning
    xy = act.xy()
    gap = xy - act.route.points[act.index, :2]
    along = (gap * act.route.tangent[act.index]).sum(axis=1)
    reach = max(t.opposite_source_dist, t.opposite_spawn_dist)
    far = (gap * gap).sum(axis=1) > reach * reach
    drop = (f.group == OPPOSITE) & (f.hold == FREE) & far & (along < BEHIND)
    f.destroy(np.flatnonzero(drop))


def speed_shares(act: BackgroundActivity) -> np.ndarray:
    """Each vehicle's target speed as a share of the ego's speed limit: road vehicles
    ahead full within the inner radius, down to 0 at the outer; behind faster the further
    back (up to twice; never past the ego while a scenario clears its way into a
    junction); junction vehicles full (0 before the junction when its entries are
    stopped; past their lane's reach, route-exit ones as road vehicles ahead, 1.5 times
    as far); oncoming full."""
    f = act.fleet
    t = act.tuning
    share = np.ones(len(f))
    road_vehicle = f.group == ROAD
    past_reach = np.zeros(len(f), dtype=bool)  # route-exit vehicles past their lane's reach
    if act.active:
        xy = act.xy()
        for r, actor_id in enumerate(f.ids.tolist()):
            lane = act.exit_of.get(actor_id)
            if lane is not None and lane.route:
                gx, gy = xy[r, 0] - lane.location.x, xy[r, 1] - lane.location.y
                past_reach[r] = gx * gx + gy * gy > lane.reach * lane.reach
        for junction in act.active:
            if junction.stop_entries:
                mine = (f.group == JUNCTION) & (f.junction == junction.ordinal)
                route = [s.id for s in junction.sources if s.key in junction.route_entry_keys]
                waiting = mine & (f.state == ENTRY) & (f.source >= 0)
                share = np.where(waiting & ~among(f.source, route), 0.0, share)
    if not (road_vehicle.any() or past_reach.any()):
        return share
    inner, outer, _ = act.radii()
    span = outer - inner
    rel = act.place().arc - act.ego_arc()
    dist = np.abs(rel)
    ahead = rel >= 0.0
    share = np.where(road_vehicle & ahead, np.clip((outer - dist) / span, 0.0, 1.0), share)
    if act.junction_entry:
        limit = max(act.speed_limit / 3.6, 0.1)
        back = np.clip(act.ego_speed / limit + (dist - t.road_spawn_dist) / span, 0.0, 1.0)
    else:
        back = np.clip(1.0 + dist / span, 0.0, 2.0)
    share = np.where(road_vehicle & ~ahead, back, share)
    exit_share = np.clip(EXIT_FACTOR * (outer - dist) / span, 0.0, 1.0)
    out = (f.group == JUNCTION) & (f.state == EXIT) & ahead & past_reach
    return np.where(out, exit_share, share)
