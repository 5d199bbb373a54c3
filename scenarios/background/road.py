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

from scenarios.background.route import Placement, among
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


def _ordered(rows: np.ndarray, key: np.ndarray) -> list[int]:
    return rows[np.argsort(key[rows], kind="stable")].tolist()


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


def upkeep(act: BackgroundActivity) -> None:
    """The road bubble: vehicles out of it or over its counts go, short lanes get one."""
    f = act.fleet
    t = act.tuning
    lanes = _lanes(act)
    inner, outer, behind = act.radii()
    if len(f):
        p = act.place()
        rel = p.arc - act.ego_arc()
        free = f.hold == FREE
        mine = f.group == ROAD
        member = mine & p.same_way & p.on_road & among(p.lane, lanes)
        member &= (rel >= -behind) & (rel <= outer + t.road_spawn_dist)
        drop = np.flatnonzero(mine & free & ~member).tolist()
        for lane in lanes:
            in_lane = member & (p.lane == lane)
            ahead = _ordered(np.flatnonzero(in_lane & (rel >= 0.0)), -rel)
            back = _ordered(np.flatnonzero(in_lane & (rel < 0.0)), rel)
            for rows, limit in ((ahead, t.road_front), (back, t.road_back)):
                extra = len(rows) - limit
                if extra > 0:
                    drop += [r for r in rows if free[r]][:extra]
        f.destroy(drop)
    if not act.route_sources or act.junction_entry:
        return
    for lane in lanes:
        if lane in act.removed_lanes:
            continue
        if len(f):  # placed again: a spawn on the last lane added a row
            p = act.place()
            _, _, speed = act.view()
            rel = p.arc - act.ego_arc()
            in_lane = (f.group == ROAD) & p.same_way & p.on_road & (p.lane == lane)
            ahead = np.flatnonzero(in_lane & (rel >= 0.0))
            back = np.flatnonzero(in_lane & (rel < 0.0))
        else:
            rel = speed = ahead = back = np.zeros(0)
        if len(back) < t.road_back:
            rear = float(rel[back].min()) if len(back) else 0.0
            spot_rel = min(-t.road_back * t.road_spawn_dist, rear - t.road_spawn_dist)
            if spot_rel >= -behind:
                spot = road_spot(act, spot_rel, lane)
                if spot is not None:
                    pace = act.ego_speed
                    if len(back):
                        pace = min(pace, float(speed[back[np.argmin(rel[back])]]))
                    f.spawn(spot, ROAD, speed=pace)
        if len(ahead) < t.road_front:
            lead = float(rel[ahead].max()) if len(ahead) else -np.inf
            spot_rel = max(inner, lead + t.road_spawn_dist)
            if spot_rel <= outer:
                spot = road_spot(act, spot_rel, lane)
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
    if not len(f):
        return
    t = act.tuning
    xy = act.xy()
    gap = xy - act.route.points[act.index, :2]
    along = (gap * act.route.tangent[act.index]).sum(axis=1)
    reach = max(t.opposite_source_dist, t.opposite_spawn_dist)
    far = (gap * gap).sum(axis=1) > reach * reach
    drop = (f.group == OPPOSITE) & (f.hold == FREE) & far & (along < BEHIND)
    f.destroy(np.flatnonzero(drop))


def speed_shares(act: BackgroundActivity, p: Placement) -> np.ndarray:
    """Each vehicle's target speed as a share of the ego's speed limit: road vehicles
    ahead full within the inner radius, down to 0 at the outer; behind faster the further
    back (up to twice; never past the ego while a scenario clears its way into a
    junction); junction vehicles full (0 before the junction when its entries are
    stopped; route-exit ones as road vehicles ahead, 1.5 times as far); oncoming full."""
    f = act.fleet
    t = act.tuning
    inner, outer, _ = act.radii()
    span = outer - inner
    rel = p.arc - act.ego_arc()
    dist = np.abs(rel)
    share = np.ones(len(f))
    ahead = rel >= 0.0
    road_vehicle = f.group == ROAD
    share = np.where(road_vehicle & ahead, np.clip((outer - dist) / span, 0.0, 1.0), share)
    if act.junction_entry:
        limit = max(act.speed_limit / 3.6, 0.1)
        back = np.clip(act.ego_speed / limit + (dist - t.road_spawn_dist) / span, 0.0, 1.0)
    else:
        back = np.clip(1.0 + dist / span, 0.0, 2.0)
    share = np.where(road_vehicle & ~ahead, back, share)
    if not act.active:
        return share
    xy = act.xy()
    on_route = np.zeros(len(f), dtype=bool)  # route-exit vehicles past their lane's reach
    for r, actor_id in enumerate(f.ids.tolist()):
        lane = act.exit_of.get(actor_id)
        if lane is not None and lane.route:
            gx, gy = xy[r, 0] - lane.location.x, xy[r, 1] - lane.location.y
            on_route[r] = gx * gx + gy * gy > lane.reach * lane.reach
    exit_share = np.clip(EXIT_FACTOR * (outer - dist) / span, 0.0, 1.0)
    for junction in act.active:
        mine = (f.group == JUNCTION) & (f.junction == junction.ordinal)
        if junction.stop_entries:
            route_sources = [s.id for s in junction.sources if s.key in junction.route_entry_keys]
            waiting = mine & (f.state == ENTRY) & (f.source >= 0)
            share = np.where(waiting & ~among(f.source, route_sources), 0.0, share)
        out = mine & (f.state == EXIT) & ahead & on_route
        share = np.where(out, exit_share, share)
    return share
