"""The background around a junction the route crosses (ScenarioRunner's junction mode):
from when the ego comes within its detection distance until the ego's route point is
past the junction's exit.

- start: the road vehicles become the junction's (driving at the limit); each entry
  lane not on the route's way in gets a source `junction_source_dist` m upstream (none
  when there is less than `junction_min_source_dist` of road), each running with
  probability `junction_source_chance` (drawn from the background's generator); each
  lane out of the junction holds up to `road_front` vehicles `2 x junction_spawn_dist`,
  then `junction_spawn_dist` apart past the exit, and the route's exit lanes get them.
- upkeep: a running source adds a vehicle when its last one (or the ego, before the
  first) is `junction_spawn_dist` m from it, up to `junction_max_actors` alive; vehicles
  are followed from the entry into the junction and out: a lane out over its capacity
  loses its front-most vehicle, vehicles out by a lane off the route go past its reach,
  those out by the lane back along the ego's way in join the oncoming traffic.
- end: the vehicles on the ego's lanes within the road bubble stay (road vehicles again,
  or the next junction's), those heading against the route on its road become oncoming
  traffic, the rest go.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from scenarios.background.junctions import SOURCE_STEP, EntrySource, ExitLane, RouteJunction
from scenarios.background.route import among, lane_key
from scenarios.background.vehicles import (
    ENTRY,
    EXIT,
    FREE,
    JUNCTION,
    MIDDLE,
    OPPOSITE,
    ROAD,
)

if TYPE_CHECKING:
    from scenarios.background.activity import BackgroundActivity

__all__ = ["end", "handle", "start", "upkeep"]

EXIT_MATCH = 6.0  # m from a vehicle just out of the junction to its lane out's first point


def _oncoming(act: BackgroundActivity, rows: Sequence[int]) -> None:
    f = act.fleet
    for r in rows:
        f.group[r] = OPPOSITE
        f.junction[r] = -1
        f.tm.ignore_lights_percentage(f.actors[r], 100.0)
        f.tm.ignore_signs_percentage(f.actors[r], 100.0)


def _sources(act: BackgroundActivity, junction: RouteJunction) -> None:
    t = act.tuning
    for wp in junction.entries:
        key = lane_key(wp)
        if key in junction.route_entry_keys:
            continue
        moved, here = 0.0, wp
        while moved < t.junction_source_dist:
            back = here.previous(SOURCE_STEP)
            if not back or back[0].is_junction:
                break
            here = back[0]
            moved += SOURCE_STEP
        if moved < t.junction_min_source_dist:
            continue
        active = key not in junction.inactive_entries
        location = here.transform.location
        junction.sources.append(EntrySource(act.new_source_id(), here, key, location, active))
    for source in junction.sources:  # real junctions are not busy on every entry
        if act.rng.random() > t.junction_source_chance:
            source.active = False


def _exits(act: BackgroundActivity, junction: RouteJunction) -> None:
    t = act.tuning
    ego = act.ego.get_location()
    for wp in junction.exits:
        key = lane_key(wp)
        route, back = key in junction.route_exit_keys, key in junction.opposite_exit_keys
        lane = ExitLane(wp, key, route, back, wp.transform.location)
        junction.exit_lanes[key] = lane
        spot, reach = wp, 0.0
        if junction.exit_space > 0.0:
            ahead = spot.next(junction.exit_space)
            if not ahead:
                continue
            spot, reach = ahead[0], junction.exit_space
        for n in range(max(t.road_front, 1)):
            step = (2.0 if n == 0 else 1.0) * t.junction_spawn_dist
            ahead = spot.next(step)
            if not ahead:
                break
            spot = ahead[0]
            if lane.capacity > 0 and spot.is_junction:
                break
            lane.capacity += 1
            reach += step
            lane.spots.insert(0, spot)
        lane.reach = reach
        if not lane.route or key in junction.inactive_exits or not act.route_sources:
            continue
        for spot in lane.spots:
            where = spot.transform.location
            if spot.is_junction or where.distance(ego) < t.safe_distance:
                continue
            if act.keep_clear.blocks(where):
                continue
            actor = act.fleet.spawn(spot, JUNCTION, junction=junction.ordinal, state=EXIT)
            if actor is not None:
                lane.vehicles.append(actor)
                act.exit_of[actor.id] = lane


def start(act: BackgroundActivity, junction: RouteJunction) -> None:
    """The ego comes near `junction`: its sources and exit lanes start."""
    f = act.fleet
    if not act.active:
        road = f.group == ROAD
        f.group[road] = JUNCTION
        f.junction[road] = junction.ordinal
        f.state[road] = ENTRY
        f.source[road] = -1
        act.opposite.sources = []
        act.removed_lanes.clear()
    _sources(act, junction)
    _exits(act, junction)
    act.active.append(junction)


def _followers(act: BackgroundActivity) -> np.ndarray:
    """Vehicles behind the ego on its lanes (they follow it into the junction)."""
    p = act.place()
    lanes = act.route.lane_offsets(act.index)
    behind = p.arc < act.ego_arc()
    return p.same_way & p.on_road & among(p.lane, lanes) & behind


def _lane_out(junction: RouteJunction, xy: np.ndarray) -> ExitLane | None:
    best, best_gap = None, EXIT_MATCH * EXIT_MATCH
    for lane in junction.exit_lanes.values():
        loc = lane.location
        gap = (xy[0] - loc.x) * (xy[0] - loc.x) + (xy[1] - loc.y) * (xy[1] - loc.y)
        if gap < best_gap:
            best, best_gap = lane, gap
    return best


def upkeep(act: BackgroundActivity) -> None:
    """Follows the junctions' vehicles in and out; runs their sources."""
    f = act.fleet
    if len(f):
        xy = act.xy()
        free = f.hold == FREE
        drop: list[int] = []
        leave_oncoming: list[int] = []
        for junction in act.active:
            mine = (f.group == JUNCTION) & (f.junction == junction.ordinal)
            inside = junction.inside(xy)
            entering = mine & (f.state == ENTRY) & inside
            if junction.clear_middle and entering.any():
                gone = entering & ~_followers(act) & free
                drop += np.flatnonzero(gone).tolist()
                entering &= ~gone
            f.state[entering] = MIDDLE
            for r in np.flatnonzero(mine & (f.state == MIDDLE) & ~inside).tolist():
                lane = _lane_out(junction, xy[r])
                if lane is None:
                    continue
                if lane.opposite:
                    leave_oncoming.append(r)
                    continue
                f.state[r] = EXIT
                actor = f.actors[r]
                act.exit_of[actor.id] = lane
                lane.vehicles = [v for v in lane.vehicles if v.is_alive]
                lane.vehicles.append(actor)
                if lane.capacity and len(lane.vehicles) > lane.capacity:
                    first = f.row_of(lane.vehicles.pop(0))
                    if first >= 0 and free[first]:
                        drop.append(first)
            for r in np.flatnonzero(mine & (f.state == EXIT) & free).tolist():
                lane = act.exit_of.get(int(f.ids[r]))
                if lane is None or lane.route:
                    continue
                loc = lane.location
                gap = xy[r] - np.array([loc.x, loc.y])
                if float((gap * gap).sum()) > lane.reach * lane.reach:
                    drop.append(r)
        _oncoming(act, leave_oncoming)
        _forget(act, f.destroy(drop))
    for junction in act.active:
        _feed(act, junction)


def _feed(act: BackgroundActivity, junction: RouteJunction) -> None:
    f = act.fleet
    t = act.tuning
    ego = act.ego.get_location()
    for source in junction.sources:
        if not source.active:
            continue
        if int((f.source == source.id).sum()) >= t.junction_max_actors:
            continue
        here = source.location
        last = source.last if source.last is not None and source.last.is_alive else None
        ref = last.get_location() if last is not None else ego
        if ref.distance(here) <= t.junction_spawn_dist:
            continue
        if ego.distance(here) < t.safe_distance or act.keep_clear.blocks(here):
            continue
        actor = f.spawn(source.wp, JUNCTION, junction=junction.ordinal, source=source.id)
        if actor is not None:
            source.last = actor


def _forget(act: BackgroundActivity, gone: list[Any]) -> None:
    for actor in gone:
        act.exit_of.pop(actor.id, None)


def end(act: BackgroundActivity, junction: RouteJunction) -> None:
    """The ego is past `junction`'s exit: its vehicles stay on the road, turn oncoming, or go."""
    f = act.fleet
    f.prune()
    act.junction_entry = False
    act.road_start = junction.exit_index
    following = act.active[0] if act.active else None
    if not len(f):
        return
    p = act.place()
    rel = p.arc - act.ego_arc()
    _, outer, behind = act.radii()
    lanes = act.route.lane_offsets(act.index)
    mine = (f.group == JUNCTION) & (f.junction == junction.ordinal)
    held = f.hold != FREE
    on_road = p.same_way & p.on_road & among(p.lane, lanes)
    on_road &= (rel >= -behind) & (rel <= outer + act.tuning.road_spawn_dist)
    stay = mine & (on_road | held)
    oncoming = mine & ~stay & p.opposite_way & p.on_road
    f.group[stay] = JUNCTION if following is not None else ROAD
    f.junction[stay] = following.ordinal if following is not None else -1
    f.state[stay] = ENTRY
    f.source[stay] = -1
    _oncoming(act, np.flatnonzero(oncoming).tolist())
    for actor_id in f.ids[stay].tolist():
        act.exit_of.pop(actor_id, None)
    _forget(act, f.destroy(np.flatnonzero(mine & ~stay & ~oncoming)))


def handle(
    act: BackgroundActivity,
    junction: RouteJunction,
    *,
    clear_junction: bool,
    clear_ego_entry: bool,
    remove_entries: Sequence[Any],
    remove_exits: Sequence[Any],
    stop_entries: bool,
    extend_road_exit: float,
) -> list[Any]:
    """ScenarioRunner's HandleJunctionScenario on `junction` (see BackgroundActivity)."""
    f = act.fleet
    active = junction in act.active
    drop: list[int] = []
    if clear_junction:
        junction.clear_middle = True
        if len(f):
            xy = act.xy()
            drop += np.flatnonzero(junction.inside(xy) & (f.hold == FREE)).tolist()
    if clear_ego_entry:
        act.junction_entry = True
        if len(f):
            p = act.place()
            rel = p.arc - act.ego_arc()
            lanes = act.route.lane_offsets(act.index)
            to_exit = act.route.accum[min(junction.exit_index, len(act.route) - 1)] - act.ego_arc()
            way = (f.group != OPPOSITE) & p.same_way & p.on_road & among(p.lane, lanes)
            drop += np.flatnonzero(way & (rel >= 0.0) & (rel <= to_exit)).tolist()
    for wp in remove_entries:
        key = junction.entry_key_of(wp)
        if key is None:
            continue
        if key not in junction.inactive_entries:
            junction.inactive_entries.append(key)
        for source in junction.sources:
            if source.key == key:
                source.active = False
                drop += np.flatnonzero((f.source == source.id) & (f.state == ENTRY)).tolist()
    for wp in remove_exits:
        key = junction.exit_key_of(wp)
        if key is None:
            continue
        if key not in junction.inactive_exits:
            junction.inactive_exits.append(key)
        lane = junction.exit_lanes.get(key)
        if lane is not None:
            drop += [r for r in (f.row_of(v) for v in lane.vehicles if v.is_alive) if r >= 0]
    if stop_entries:
        junction.stop_entries = True
    if extend_road_exit > 0.0:
        junction.exit_space += float(extend_road_exit)
        if active and len(f):
            xy = act.xy()
            for key in junction.route_exit_keys:
                lane = junction.exit_lanes.get(key)
                if lane is None:
                    continue
                lane.reach += float(extend_road_exit)
                loc = lane.location
                for v in lane.vehicles:
                    r = f.row_of(v)
                    if r >= 0 and v.get_location().distance(loc) < junction.exit_space:
                        drop.append(r)
    gone = f.destroy(drop)
    _forget(act, gone)
    return gone
