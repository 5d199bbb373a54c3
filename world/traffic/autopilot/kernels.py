"""Compiled loops of the autopilot's tick: route starts, path sampling, localisation, the
obstacle search, the speed targets and control, lane changes, the writing of the controls,
and the calls that make the tick of them (localise_fleet, plan_fleet, and tick_fleet, both
in one call).

Each kernel does, element for element, the arithmetic of the numpy expression it replaces
(the same operations in the same order, no fast-math), so the controls come out bit for bit
the same; it only skips the temporary arrays and the work that a cheaper test already rules
out. Cosines, sines and arc tangents are world.elementary's scalar kernels (the same bits
as its array forms, el.cos_v ..., compiled from the same code); the paths' segment headings
are taken once per map. These kernels call world.traffic.autopilot.control's and
world.physics.vehicle_dynamics' functions; world.kernels.compiled_cache keeps their compiled
code from going stale when those change.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from world import elementary as el
from world.kernels.array_table import column, matrix
from world.kernels.compiled import from_numba, njit
from world.physics.grid import cell_span, point_grid
from world.traffic.autopilot.control import (
    _clip,
    longitudinal,
    lookahead_distance,
    pursuit_tangents,
    steer_commands,
)

__all__ = [
    "FLEET_TABLE_KINDS",
    "ActorColumns",
    "Bodies",
    "Constants",
    "ControlColumns",
    "FleetSettings",
    "FleetState",
    "Kept",
    "LaneArrays",
    "OtherVehicles",
    "Work",
    "apply_controls",
    "blocked_exits",
    "body_arrays",
    "junction_stops",
    "localise_fleet",
    "locate_on_paths",
    "nearest_lanes",
    "obstacle_distances",
    "other_vehicles",
    "past_path_ends",
    "plan_fleet",
    "route_starts",
    "sample_paths",
    "sample_routes",
    "segment_tangents",
    "speed_controls",
    "speed_targets",
    "stuck_row",
    "tick_fleet",
    "vehicle_columns",
]


BODY_CELL = 16.0  # m: the cells of the bodies' grid are at least this wide
# The obstacle search passes over a block of samples when it is this much further from a
# body than the block could reach (m: far beyond any rounding of the town's coordinates)
BLOCK_ROOM = 1e-3
NO_TRIG = 2.0  # a cosine no heading has: the body's cosine and sine are not taken yet
# The loops over vehicles ask the CPU for the lane points the vehicle this many places on
# will read (world.kernels.intrinsics.prefetch): each vehicle's points lie anywhere in the
# lanes' tables, where the caches' own guesses never reach in time
PREFETCH_AHEAD = 2
PREFETCH_POINTS = 56  # of a route's path at most: the samples' 48 m of ~1 m apart points

_address, carray, prefetch = from_numba("world.kernels.intrinsics", "address", "carray", "prefetch")


class LaneArrays(NamedTuple):
    """LanePaths' arrays (world.traffic.autopilot.lane_paths) as the kernels read them."""

    points: np.ndarray
    cum: np.ndarray
    base: np.ndarray
    length: np.ndarray
    first: np.ndarray
    count: np.ndarray
    segment_tangent: np.ndarray
    segment_heading: np.ndarray
    junction: np.ndarray
    light: np.ndarray
    give_way: np.ndarray
    neighbour: np.ndarray
    width: np.ndarray
    point_junction: np.ndarray
    point_heading: np.ndarray
    grid_first: np.ndarray
    grid_point: np.ndarray
    grid_frame: np.ndarray
    successor_first: np.ndarray
    successor_flat: np.ndarray
    junction_member: np.ndarray
    junction_size: np.ndarray
    conflict_first: np.ndarray
    conflict_flat: np.ndarray


class ActorColumns(NamedTuple):
    """The actor table's columns the autopilot reads (world.state.ActorTable)."""

    alive: np.ndarray
    body: np.ndarray
    static_collider: np.ndarray
    kind: np.ndarray
    vrow: np.ndarray
    pos: np.ndarray
    rot: np.ndarray
    vel: np.ndarray
    extent: np.ndarray
    box_loc: np.ndarray


class ControlColumns(NamedTuple):
    """The vehicle table's columns the autopilot reads, and the controls and lights it writes
    (world.state.VehicleTable)."""

    wheelbase: np.ndarray
    cg_front: np.ndarray
    max_steer: np.ndarray
    speed_limit: np.ndarray
    tl_actor: np.ndarray
    tl_state: np.ndarray
    steer_kmh: np.ndarray
    steer_factor: np.ndarray
    throttle: np.ndarray
    steer: np.ndarray
    brake: np.ndarray
    hand_brake: np.ndarray
    reverse: np.ndarray
    manual_gear_shift: np.ndarray
    ackermann: np.ndarray
    lights: np.ndarray
    sign_boxes: np.ndarray


class FleetState(NamedTuple):
    """Each fleet vehicle's autopilot state (AutopilotFleet's arrays), updated in place."""

    actor: np.ndarray  # actor rows
    route: np.ndarray  # (N, ROUTE_SLOTS) lane paths
    arc: np.ndarray  # on the first path
    ignore: np.ndarray  # (N, 4) lights, signs, vehicles, walkers
    integral: np.ndarray
    hold_time: np.ndarray
    override: np.ndarray
    reason: np.ndarray
    changed_at: np.ndarray  # (N, 2)
    near_time: np.ndarray  # s within the approach of its next junction entry


class FleetSettings(NamedTuple):
    """The manager's per-vehicle settings (nan: the manager's global value)."""

    speed_pct: np.ndarray
    desired: np.ndarray
    lead: np.ndarray
    auto_lane_change: np.ndarray
    update_lights: np.ndarray


class Work(NamedTuple):
    """The tick's per-vehicle work arrays, written by the kernels in place (made again when
    the membership changes): localise_fleet's columns and positions, the vehicles past their
    path's end, and plan_fleet's lane changes."""

    k: np.ndarray  # vehicle rows
    pos: np.ndarray  # (N, 3)
    yaw: np.ndarray  # degrees
    cos_yaw: np.ndarray
    sin_yaw: np.ndarray
    speed: np.ndarray  # forward, at least 0
    front: np.ndarray  # half length
    half_width: np.ndarray
    lateral: np.ndarray  # distance off the current path
    past: np.ndarray  # vehicles past their path's end (the first localise_fleet's count)
    changers: np.ndarray  # vehicles changing lanes (the first plan_fleet's count)
    to_paths: np.ndarray  # their new paths
    segment: np.ndarray  # the segment each was located on (-1: none yet), next tick's hint


class Kept(NamedTuple):
    """What a vehicle's answers of its last tick were worked out from, for a vehicle standing
    still (about one in six at 100 vehicles on the 6x6 town, one in four at 1,000), whose
    answers are then kept instead of worked out again: its route samples (plan_fleet), the
    same for the same route and arc (they depend on nothing else: the distances and the
    lanes' arrays do not change), and its location (localise_fleet), the same for the same
    path, arc and position, which then stands where that location found the arc it started
    from (the arc, lateral distance and segment are still its answers). Made again, empty,
    with tick_fleet's table (AutopilotFleet's arguments: when the membership changes)."""

    route: np.ndarray  # (N, ROUTE_SLOTS) the samples': route...
    arc: np.ndarray  # ...and arc (nan: none)
    points: np.ndarray  # (N * M, 3): sample_routes' points, M samples a vehicle
    seg: np.ndarray  # (N, M): their segments
    located_path: np.ndarray  # the location's: path...
    located_arc: np.ndarray  # ...arc (nan: none, or the location moved it)...
    located_xy: np.ndarray  # ...and position (N, 2)


class Constants(NamedTuple):
    """The autopilot's constants (world.traffic.autopilot.fleet): PLAN_CONSTANTS,
    JUNCTION_CONSTANTS, CONTROL_CONSTANTS, LANE_CHANGE_CONSTANTS, OTHER_CONSTANTS, LIGHT_BITS
    and SAMPLE_DISTANCES."""

    plan: np.ndarray
    junction: np.ndarray
    control: np.ndarray
    lane_change: np.ndarray
    other: np.ndarray
    light_bits: np.ndarray
    sample_distances: np.ndarray


class OtherVehicles(NamedTuple):
    """The live vehicles outside the fleet as yield partners and leaders (other_vehicles)."""

    inside: np.ndarray  # the junction path each is inside (-1: none)
    entry_from: np.ndarray  # the lane before the junction it approaches (-1: none)
    d_entry: np.ndarray  # its centre's distance to that junction's entry along its lanes
    free: np.ndarray  # moving: a yield partner before the entry
    rows: np.ndarray  # actor rows
    path: np.ndarray  # the lane path each was put on (-1: none)
    arc: np.ndarray
    lateral: np.ndarray


class Bodies(NamedTuple):
    """The live bodies and props the obstacle and lane searches look at, in row order
    (body_arrays), and a grid of their centres (world.physics.grid.point_grid)."""

    rows: np.ndarray  # actor rows
    xy: np.ndarray  # (B, 2)
    yaw: np.ndarray  # degrees
    is_vehicle: np.ndarray
    is_walker: np.ndarray
    box_x: np.ndarray  # box centre x in the actor's frame
    ext: np.ndarray  # half extents x y (B, 2)
    frame: np.ndarray  # the grid: x0, y0, cell, nx, ny
    first: np.ndarray
    items: np.ndarray
    item_xy: np.ndarray  # (len(items), 2): xy[items], read in the cells' order
    # (len(items), 4): box_x, ext x y and the extents' diagonal of items, in the cells' order
    item_box: np.ndarray


# The dtype and dimensions of each array of tick_fleet's table (world.kernels.array_table),
# group by group, as _fleet_groups makes them again
_F8, _F8_2, _F4 = (np.float64, 1), (np.float64, 2), (np.float32, 1)
_I8, _I8_2, _I4, _I1 = (np.int64, 1), (np.int64, 2), (np.int32, 1), (np.int8, 1)
_B, _B_2, _U4 = (np.bool_, 1), (np.bool_, 2), (np.uint32, 1)
FLEET_TABLE_KINDS = (
    FleetState(
        actor=_I8, route=_I8_2, arc=_F8, ignore=_B_2, integral=_F8, hold_time=_F8,
        override=_F8, reason=_I8, changed_at=_F8_2, near_time=_F8,
    ),
    FleetSettings(speed_pct=_F8, desired=_F8, lead=_F8, auto_lane_change=_B, update_lights=_B),
    Work(
        k=_I4, pos=_F8_2, yaw=_F8, cos_yaw=_F8, sin_yaw=_F8, speed=_F8, front=_F8,
        half_width=_F8, lateral=_F8, past=_I8, changers=_I8, to_paths=_I8, segment=_I8,
    ),
    LaneArrays(
        points=_F8_2, cum=_F8, base=_F8, length=_F8, first=_I8, count=_I8,
        segment_tangent=_F8_2, segment_heading=_F8, junction=_I8, light=_I8, give_way=_B,
        neighbour=_I8_2, width=_F8, point_junction=_B, point_heading=_F8, grid_first=_I8,
        grid_point=_I8, grid_frame=_F8, successor_first=_I8, successor_flat=_I8,
        junction_member=_I8, junction_size=_I8, conflict_first=_I8, conflict_flat=_B,
    ),
    ActorColumns(
        alive=_B, body=_B, static_collider=_B, kind=_I1, vrow=_I4, pos=_F8_2, rot=_F8_2,
        vel=_F8_2, extent=_F8_2, box_loc=_F8_2,
    ),
    ControlColumns(
        wheelbase=_F8, cg_front=_F8, max_steer=_F8, speed_limit=_F8, tl_actor=_I4,
        tl_state=_I1, steer_kmh=_F8_2, steer_factor=_F8_2, throttle=_F4, steer=_F4, brake=_F4,
        hand_brake=_B, reverse=_B, manual_gear_shift=_B, ackermann=_B, lights=_U4,
        sign_boxes=_I1,
    ),
    Constants(
        plan=_F8, junction=_F8, control=_F8, lane_change=_F8, other=_F8, light_bits=_I8,
        sample_distances=_F8,
    ),
    (_I1,),  # the lights' states
    Kept(
        route=_I8_2, arc=_F8, points=_F8_2, seg=_I8_2, located_path=_I8, located_arc=_F8,
        located_xy=_F8_2,
    ),
)  # fmt: skip


@njit(cache=True, inline="always")
def _last_at_most(values, x, lo, hi):
    """The last index in [lo, hi) whose value is <= x, lo - 1 if none (values non-decreasing):
    numpy's searchsorted(values[lo:hi], x, side="right") - 1 + lo (lo >= 0: the reads index
    with unsigned integers)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[np.uint64(mid)] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True, inline="always")
def _last_at_most_from(values, x, lo, hi, hint):
    """_last_at_most(values, x, lo, hi), searched by walking from `hint` when it lies in
    [lo, hi) (a step or two from the answer: last tick's segment, a path's first point):
    the same index, as values never decrease (the last one <= x lies on the side of the
    hint that its own test points to; NaN x: lo - 1 either way)."""
    if hint < lo or hint >= hi:
        return _last_at_most(values, x, lo, hi)
    if values[np.uint64(hint)] <= x:
        while hint + 1 < hi and values[np.uint64(hint + 1)] <= x:
            hint += 1
        return hint
    while hint >= lo and not values[np.uint64(hint)] <= x:
        hint -= 1
    return hint


@njit(cache=True, inline="always")
def _same_bits(a, b):
    """Whether two float64 are the same bit for bit (NaN never: it marks none)."""
    return a == b and (a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b))


@njit(cache=True)
def sample_paths(points, cum, base, length, first, count, segment_tangent, path, dist):
    """LanePaths.at for flat arrays of paths and distances: points (K, 3), tangents (K, 2)."""
    k = len(path)
    pt, seg = sample_routes(
        points,
        cum,
        base,
        length,
        first,
        count,
        path.reshape((k, 1)),
        np.zeros((k, 1)),
        dist.reshape((k, 1)),
        np.full(k, -1, dtype=np.int64),
        0,
    )
    tan = np.empty((k, 2))
    for i in range(k):
        tan[i, 0] = segment_tangent[seg[i, 0], 0]
        tan[i, 1] = segment_tangent[seg[i, 0], 1]
    return pt.reshape((k, 3)), tan


@njit(cache=True)
def segment_tangents(points, first, count):
    """The unit travel direction of the segment that starts at each point (K, 2), as sampling
    gives it: toward the path's next point ((1, 0) for a zero-length step, a one-point path
    and a path's last point, which starts no segment)."""
    tan = np.zeros((len(points), 2))
    tan[:, 0] = 1.0
    for p in range(len(first)):
        lo = first[p]
        hi = lo + count[p] - 1
        top = hi - 1 if hi - 1 > lo else lo
        for i in range(lo, top + 1):
            j = i + 1 if i + 1 < hi else hi
            tx = points[j, 0] - points[i, 0]
            ty = points[j, 1] - points[i, 1]
            norm = np.sqrt(tx * tx + ty * ty)
            if norm > 0.0:
                tan[i, 0] = tx / norm
                tan[i, 1] = ty / norm
    return tan


@njit(cache=True)
def sample_routes(points, cum, base, length, first, count, route, start, d, hint, reach):
    """Points (N, M, 3) and segment indices (N, M) at distances d (N, M) along each route,
    whose paths begin at `start` (N, R) metres from the vehicle (inf for empty slots). Each
    distance is clipped to its path; its segment is the last one starting at or before it
    (its direction: the segment's row of LanePaths' segment_tangent and segment_heading),
    found, for a vehicle's further distances in the same slot (its path's numbers kept at
    hand), by walking on from the one before (the same segment), else by walking from `hint`
    (N,: a segment of the route's first path near its first distance, -1 for none) on that
    path or from the path's first point on the others (_last_at_most_from: the binary
    search's answer). With `reach` > 0, the points and arc lengths of up to `reach` points
    of each path a vehicle's samples reach are prefetched PREFETCH_AHEAD vehicles before (0:
    none). Written out as one loop: a helper function with array arguments makes it several
    times slower. The distances of one slot, ascending, are taken by an inner loop without
    the slot's count, and its reads index with unsigned integers (known not negative: no
    test for an index from the end), about a quarter less work a sample."""
    n, m = d.shape
    pt = np.empty((n * m, 3))
    seg = np.empty((n, m), dtype=np.int64)
    same = np.zeros(n, dtype=np.bool_)
    _sample_routes_into(
        points, cum, base, length, first, count, route, start, d, hint, reach, pt, seg, same
    )
    return pt.reshape((n, m, 3)), seg


@njit(cache=True)
def _sample_routes_into(
    points, cum, base, length, first, count, route, start, d, hint, reach, pt, seg, same
):
    """sample_routes into `pt` (N * M, 3) and `seg` (N, M), but for the vehicles whose rows
    there already hold their samples (`same`, N): neither taken again nor prefetched."""
    n, m = d.shape
    slots = route.shape[1]
    x0, y0, z0 = np.uint64(0), np.uint64(1), np.uint64(2)
    for v in range(n):
        w = v + PREFETCH_AHEAD
        if reach > 0 and w < n and not same[w]:
            for r in range(slots):
                p = route[w, r]
                if p < 0 or not start[w, r] <= d[w, m - 1]:
                    break
                lo, end = first[p], first[p] + count[p]
                a = hint[w] if r == 0 and lo <= hint[w] < end else lo
                b = min(end, a + reach)
                for i in range(a, b, 8):  # 8 float64 a cache line
                    prefetch(cum, i)
                for i in range(3 * a, 3 * b, 8):
                    prefetch(points, i)
        if same[v]:
            continue
        raw = -1
        slot = 0
        last_x = -np.inf
        after = start[v, 1] if slots > 1 else np.inf  # where the next slot's path begins
        # the numbers of the slot's path, taken again when the slot changes
        here = -1
        lo = hi = top = 0
        begins = size = offset = 0.0
        uv = np.uint64(v)
        row = np.uint64(v * m)  # the vehicle's first row of pt
        s = 0
        while s < m:
            x = d[uv, np.uint64(s)]
            # the slot: how many later paths begin at or before x (starts do not decrease
            # along a route), counted on from the last distance's when x is not nearer
            if not x >= last_x:
                slot = 0
                after = start[v, 1] if slots > 1 else np.inf
            while after <= x:
                slot += 1
                after = start[v, slot + 1] if slot + 1 < slots else np.inf
            fresh = slot != here
            if fresh:
                here = slot
                p = route[v, slot]
                begins, size, offset = start[v, slot], length[p], base[p]
                lo = first[p]
                hi = lo + count[p] - 1
                top = hi - 1 if hi - 1 > lo else lo
            # this distance and the next ones while they ascend within the slot
            while True:
                last_x = x
                local = x - begins
                if local < 0.0:
                    local = 0.0
                if local > size:
                    local = size
                g = offset + local
                if not fresh and raw >= lo and cum[np.uint64(raw)] <= g:
                    while raw < hi and cum[np.uint64(raw + 1)] <= g:
                        raw += 1
                else:
                    # g >= cum[lo], so searching the path's own points gives the clipped
                    # answer
                    raw = _last_at_most_from(cum, g, lo, hi + 1, hint[v] if slot == 0 else lo)
                fresh = False
                i = raw
                if i < lo:
                    i = lo
                if i > top:
                    i = top
                j = i + 1 if i + 1 < hi else hi
                seg[uv, np.uint64(s)] = i
                o = row + np.uint64(s)
                a, b = np.uint64(i), np.uint64(j)
                at = cum[a]
                span = cum[b] - at
                u = (g - at) / span if span > 0.0 else 0.0
                ax, ay, az = points[a, x0], points[a, y0], points[a, z0]
                pt[o, x0] = ax + u * (points[b, x0] - ax)
                pt[o, y0] = ay + u * (points[b, y0] - ay)
                pt[o, z0] = az + u * (points[b, z0] - az)
                s += 1
                if s == m:
                    break
                x = d[uv, np.uint64(s)]
                if not x >= last_x or after <= x:
                    break


@njit(cache=True)
def locate_on_paths(points, cum, base, first, count, path, near, xy, window, segment):
    """LanePaths.locate: arc and lateral distance of each point on its path, searching the
    segments around the arc `near`. `segment` (N,): a segment of the path near that arc to
    search from (_last_at_most_from; -1: none, a binary search), overwritten with the
    segment each point was located on (the autopilot's hint for its next tick). Its reads
    index with unsigned integers (no test for an index from the end)."""
    n = len(path)
    arc = np.empty(n)
    lateral = np.empty(n)
    zero, one = np.uint64(0), np.uint64(1)
    for v in range(n):
        w = v + PREFETCH_AHEAD
        if w < n and segment[w] >= 0:
            # the window's points and arc lengths around the vehicle's last segment
            prefetch(cum, segment[w])
            for i in range(3 * (segment[w] - 4), 3 * (segment[w] + 8), 8):
                prefetch(points, i)
        uv = np.uint64(v)
        p = np.uint64(path[uv])
        lo = first[p]
        hi = lo + count[p] - 2
        top = hi if hi > lo else lo
        x = base[p] + near[uv]
        end = lo + count[p]
        # the last point at or before x among all paths' points (cum never decreases); when
        # x lies within the path's own points it is one of them, found by searching those
        # only (a few cache lines, not the whole table's)
        if cum[np.uint64(lo)] <= x and (end >= len(cum) or cum[np.uint64(end)] > x):
            centre = _last_at_most_from(cum, x, lo, end, segment[uv])
        else:
            centre = _last_at_most(cum, x, 0, len(cum))
        px, py = xy[uv, zero], xy[uv, one]
        best = np.inf
        best_sq = np.inf
        best_k = lo
        best_u = 0.0
        for off in range((-window) // 2, window + 1):
            i = centre + off
            if i < lo:
                i = lo
            if i > top:
                i = top
            j = i + 1 if i + 1 < hi + 1 else hi + 1
            a, b = np.uint64(i), np.uint64(j)
            ax, ay = points[a, zero], points[a, one]
            abx, aby = points[b, zero] - ax, points[b, one] - ay
            apx, apy = px - ax, py - ay
            den = abx * abx + aby * aby
            u = (apx * abx + apy * aby) / (den if den > 0 else 1.0)
            if u < 0.0:
                u = 0.0
            if u > 1.0:
                u = 1.0
            fx = px - (ax + u * abx)
            fy = py - (ay + u * aby)
            sq = fx * fx + fy * fy
            # the root is monotonic: a square no smaller than the best's cannot have a root
            # below the best (nor can NaN), so only a smaller one is rooted and compared
            if not sq < best_sq:
                continue
            dist = np.sqrt(sq)
            if dist < best:
                best, best_sq, best_k, best_u = dist, sq, i, u
        k0 = np.uint64(best_k)
        k1 = np.uint64(best_k + 1 if best_k + 1 < hi + 1 else hi + 1)
        arc[uv] = cum[k0] + best_u * (cum[k1] - cum[k0]) - base[p]
        lateral[uv] = best
        segment[uv] = best_k
    return arc, lateral


@njit(cache=True)
def nearest_lanes(
    points,
    point_junction,
    point_heading,
    first,
    count,
    cum,
    base,
    grid_first,
    grid_point,
    grid_frame,
    xy,
    yaw,
    heading_penalty,
    junction_penalty,
    window,
):
    """LanePaths.nearest: for each pose (xy (N, 2), yaw (N,) degrees) the path of the nearest
    centre point (its distance counting heading_penalty more where the point's heading is over
    60 degrees off, junction_penalty more on junction points; the first point on a tie, as
    numpy's argmin) and the arc and lateral distance located on that path around the point.
    The points are visited by the cells of the grid (`grid_*`, LanePaths' point grid) in rings
    around the pose's cell, skipping a cell, a point or the rings left whose plain distance (a
    lower bound: the penalties only add) already exceeds the best so far, with room for
    rounding. The smallest gap and the first point on a tie do not depend on the order of the
    visits, so this is the answer of the full scan (which a pose far off the grid, or not
    finite, gets)."""
    n = len(yaw)
    path = np.empty(n, dtype=np.int64)
    near = np.empty(n)
    for v in range(n):
        best = _nearest_point(
            points, point_junction, point_heading, grid_first, grid_point, grid_frame,
            xy[v, 0], xy[v, 1], yaw[v], heading_penalty, junction_penalty,
        )  # fmt: skip
        p = _last_at_most(first, best, 0, len(first))
        path[v] = p
        near[v] = cum[best] - base[p]
    arc, lateral = locate_on_paths(
        points, cum, base, first, count, path, near, xy, window, np.full(n, -1, dtype=np.int64)
    )
    return path, arc, lateral


@njit(cache=True, inline="always")
def _nearest_point(
    points, point_junction, point_heading, grid_first, grid_point, grid_frame, x, y, yaw,
    heading_penalty, junction_penalty,
):  # fmt: skip
    """nearest_lanes' point for one pose: the grid's rings, or the full scan off the grid."""
    x0, y0, cell, nx, ny = (
        grid_frame[0],
        grid_frame[1],
        grid_frame[2],
        int(grid_frame[3]),
        int(grid_frame[4]),
    )
    slack = 1e-6 * cell  # room for the rounding of the cells' edges
    fx = np.floor((x - x0) / cell)
    fy = np.floor((y - y0) / cell)
    best = 0
    best_gap = np.inf
    if not (abs(fx) < 1e9 and abs(fy) < 1e9):
        for i in range(len(points)):
            best, best_gap = _nearer(
                points, point_junction, point_heading, i, x, y, yaw, heading_penalty,
                junction_penalty, best, best_gap,
            )  # fmt: skip
        return best
    cx, cy = int(fx), int(fy)
    first_ring = max(0, -cx, cx - (nx - 1), -cy, cy - (ny - 1))
    for ring in range(first_ring, first_ring + max(nx, ny) + 1):
        reach = best_gap * (1.0 + 1e-12) + 1e-9
        if (ring - 1) * cell - slack > reach:
            break
        for i in range(max(cx - ring, 0), min(cx + ring, nx - 1) + 1):
            edge = i == cx - ring or i == cx + ring
            bx = max(x0 + i * cell - slack - x, 0.0, x - (x0 + (i + 1) * cell + slack))
            # the ring's top and bottom cells of this column, or, on its left and right
            # edges, the column's cells on the grid: a pose far off the grid has rings far
            # larger than it, and walking their cells off the grid one by one stalled a soak
            # whose vehicle was flung kilometres away (relocalised every tick)
            j, top = cy - ring, cy + ring
            if edge:
                j, top = max(j, 0), min(top, ny - 1)
            while j <= top:
                if 0 <= j < ny:
                    by = max(y0 + j * cell - slack - y, 0.0, y - (y0 + (j + 1) * cell + slack))
                    reach = best_gap * (1.0 + 1e-12) + 1e-9
                    if bx * bx + by * by <= reach * reach:
                        cell_index = i * ny + j
                        for q in range(grid_first[cell_index], grid_first[cell_index + 1]):
                            best, best_gap = _nearer(
                                points, point_junction, point_heading, grid_point[q], x, y,
                                yaw, heading_penalty, junction_penalty, best, best_gap,
                            )  # fmt: skip
                j += 1 if edge else 2 * ring
    return best


@njit(cache=True, inline="always")
def _nearer(
    points, point_junction, point_heading, i, x, y, yaw, heading_penalty, junction_penalty,
    best, best_gap,
):  # fmt: skip
    """Point i against the best so far (index, gap) of nearest_lanes' search: the new best."""
    reach = best_gap * (1.0 + 1e-12) + 1e-9
    dx, dy = points[i, 0] - x, points[i, 1] - y
    if dx * dx + dy * dy > reach * reach:
        return best, best_gap
    gap = el.hypot(dx, dy)
    gap += junction_penalty if point_junction[i] else 0.0
    turn = abs((point_heading[i] - yaw + 180.0) % 360.0 - 180.0)
    gap += heading_penalty if turn > 60.0 else 0.0
    if gap < best_gap or (gap == best_gap and i < best):
        return i, gap
    return best, best_gap


@njit(cache=True)
def other_vehicles(rows, actors, n_actors, lanes, c):
    """The live vehicles other than the fleet's (`rows`), as yield partners: for each, the
    junction path it is inside (-1: none), the lane path before the junction it approaches
    (-1: none), its centre's distance to that junction's entry along its lanes, and whether
    it is free to go (moving, at c[4] m/s or more: a stopped one approaching a junction is no
    yield partner, whatever holds it; one inside stays one, see junction_stops). Each is put
    on the nearest lane heading its way (nearest_lanes, penalties c[0], c[1], window c[2]);
    one more than c[3] m off it is on no lane. The entry is looked for on its lane
    and, while within c[5] m and its lane has one successor outside a junction, on the next
    lanes. Also their actor rows and the path (-1: on none), arc and lateral distance each
    was put on, for lane_changes (OtherVehicles). Empty arrays when there are no such
    vehicles (no work then). `actors`: ActorColumns; `lanes`: LaneArrays."""
    heading_penalty, junction_penalty, window, lost = c[0], c[1], int(c[2]), c[3]
    held_speed, approach = c[4], c[5]
    a_pos, a_rot, a_vel = actors.pos, actors.rot, actors.vel
    length, path_junction = lanes.length, lanes.junction
    successor_first, successor_flat = lanes.successor_first, lanes.successor_flat
    fleet = np.zeros(n_actors, dtype=np.bool_)
    for r in rows:
        fleet[r] = True
    others = np.empty(n_actors, dtype=np.int64)
    m = 0
    for r in range(n_actors):
        if actors.alive[r] and actors.vrow[r] >= 0 and not fleet[r]:
            others[m] = r
            m += 1
    inside = np.full(m, -1, dtype=np.int64)
    entry_from = np.full(m, -1, dtype=np.int64)
    d_entry = np.full(m, np.inf)
    free = np.zeros(m, dtype=np.bool_)
    if m == 0:
        return OtherVehicles(
            inside, entry_from, d_entry, free, others[:0], inside, d_entry, d_entry
        )
    xy = np.empty((m, 2))
    yaw = np.empty(m)
    for o in range(m):
        r = others[o]
        xy[o, 0] = a_pos[r, 0]
        xy[o, 1] = a_pos[r, 1]
        yaw[o] = a_rot[r, 1]
    path, arc, lateral = nearest_lanes(
        lanes.points, lanes.point_junction, lanes.point_heading, lanes.first, lanes.count,
        lanes.cum, lanes.base, lanes.grid_first, lanes.grid_point, lanes.grid_frame, xy, yaw,
        heading_penalty, junction_penalty, window,
    )  # fmt: skip
    for o in range(m):
        r = others[o]
        free[o] = el.hypot(a_vel[r, 0], a_vel[r, 1]) >= held_speed
        if lateral[o] > lost:
            path[o] = -1
            continue
        p = path[o]
        if path_junction[p] >= 0:
            inside[o] = p
            continue
        ahead = length[p] - arc[o]
        for _ in range(len(length)):
            lo, hi = successor_first[p], successor_first[p + 1]
            enters = False
            for i in range(lo, hi):
                enters = enters or path_junction[successor_flat[i]] >= 0
            if enters:
                entry_from[o] = p
                d_entry[o] = ahead
                break
            if hi - lo != 1 or ahead >= approach:
                break
            p = successor_flat[lo]
            ahead += length[p]
    return OtherVehicles(inside, entry_from, d_entry, free, others[:m], path, arc, lateral)


@njit(cache=True)
def obstacle_distances(
    rows, row_xy, row_cos, row_sin, yaw, half_width, ignore, override, bodies, pts,
    segment_tangent, seg, d, c,
):  # fmt: skip
    """Distance along each vehicle's sampled path to the first body whose footprint, grown by
    the vehicle's half width (plus margin) across the path, covers it; inf when none.
    `ignore` (N, 4): the vehicles' ignore flags (vehicles and walkers: columns 2 and 3); a
    vehicle pushing on (`override` > 0) skips vehicles heading more than the crossing angle
    away from its `yaw`. `row_cos` and `row_sin` are el.sin_cos of the vehicles' `yaw` in
    radians: a body that is one of the vehicles takes its heading's from there (the same
    bits as its own). `bodies`: body_arrays' Bodies; the samples' distances `d` ascend along
    each row; their directions are their segments' (`seg`, sample_routes') rows of
    `segment_tangent`; `c`: autopilot.PLAN_CONSTANTS.

    The answer is the least of the bodies' first contacts, so the order the bodies are
    tested in does not matter; each test below only rules out a body (or a stretch of
    samples) the full test would not have found."""
    crossing_angle, behind_reach, coarse_stride = c[3], c[4], int(c[5])
    coarse_reach, path_margin = c[6], c[7]
    n, m = d.shape
    out = np.full(n, np.inf)
    coarse_sq = coarse_reach * coarse_reach
    # a body passing the coarse test lies within coarse_reach of a coarse sample in x and in
    # y, so only bodies in the samples' box grown by that much (and a rounding margin) are
    # visited: those of the grid's cells over that box, then by x and y
    box = coarse_reach + 0.01
    # the bodies' columns taken once: a NamedTuple's field read in the loops costs atomic
    # reference counts at each read
    body_yaw, frame, item_xy, item_box = bodies.yaw, bodies.frame, bodies.item_xy, bodies.item_box
    body_first, body_items, body_rows = bodies.first, bodies.items, bodies.rows
    body_is_vehicle, body_is_walker = bodies.is_vehicle, bodies.is_walker
    ny = int(frame[4])
    # the arrays the exact test reads, without a MemInfo: handed to it once per body, an
    # array with one costs two atomic reference counts
    pts_u, tangent_u = _unowned(pts), _unowned(segment_tangent)
    seg_u, d_u = _unowned(seg), _unowned(d)
    # the bodies' heading cosines and sines side by side: the vehicles' own, the others'
    # taken when a body first needs the exact test (NO_TRIG until then)
    trig = np.empty((len(body_yaw), 2))
    own_body = _fleet_trig(rows, row_cos, row_sin, body_rows, trig)
    # the samples in blocks, each about a coarse sample (the stride's samples around it, the
    # last block to the end): per block the sample after its last; per vehicle the coarse
    # samples and each block's reach from its own; per body its squared distance to each
    blocks = (m + coarse_stride - 1) // coarse_stride
    block_xy = np.empty((blocks, 2))
    block = np.empty((blocks, 3))  # end (a whole number), reach, squared distance
    block_u = _unowned(block)
    for k in range(blocks):
        block[k, 0] = (k + 1) * coarse_stride - coarse_stride // 2 if k + 1 < blocks else m
    for v in range(n):
        if v + PREFETCH_AHEAD < n:
            # the samples' directions, which the exact test reads where a body is near
            for s in range(0, m, 2):  # 2 samples 2 m apart: about one line of directions
                prefetch(segment_tangent, 2 * seg[v + PREFETCH_AHEAD, s])
        x0 = y0 = np.inf
        x1 = y1 = -np.inf
        for k in range(blocks):
            px, py = pts[v, k * coarse_stride, 0], pts[v, k * coarse_stride, 1]
            block_xy[k, 0], block_xy[k, 1] = px, py
            x0, x1 = min(x0, px), max(x1, px)
            y0, y1 = min(y0, py), max(y1, py)
        lo_x, hi_x, lo_y, hi_y = x0 - box, x1 + box, y0 - box, y1 + box
        i0, i1 = cell_span(frame[0], frame[2], frame[3], lo_x, hi_x)
        j0, j1 = cell_span(frame[1], frame[2], frame[4], lo_y, hi_y)
        if j1 < j0:
            continue
        _block_reaches(pts, v, block_xy, block)
        reach = d[v, m - 1] + 6.0
        reach_sq = reach * reach
        grow = half_width[v] + path_margin
        own = own_body[v]
        vx, vy, vc, vs = row_xy[v, 0], row_xy[v, 1], row_cos[v], row_sin[v]
        flagged = ignore[v, 2] or ignore[v, 3] or override[v] > 0.0
        for cell_x in range(i0, i1 + 1):
            # the column's cells j0 .. j1 are consecutive: their bodies are one run
            for q in range(body_first[cell_x * ny + j0], body_first[cell_x * ny + j1 + 1]):
                qx, qy = item_xy[q, 0], item_xy[q, 1]
                b = body_items[q]
                dx = qx - vx
                dy = qy - vy
                # the box, self, reach and behind tests counted, then one branch: each is
                # cheaper than a mispredicted branch (the box's bounds are not NaN here:
                # cell_span gives no cells then)
                passed = (
                    (qx >= lo_x) + (qx <= hi_x) + (qy >= lo_y) + (qy <= hi_y) + (b != own)
                    + (dx * dx + dy * dy < reach_sq) + (dx * vc + dy * vs > -behind_reach)
                )  # fmt: skip
                if passed != 7:
                    continue
                if flagged:
                    if ignore[v, 2] and body_is_vehicle[b]:
                        continue
                    if ignore[v, 3] and body_is_walker[b]:
                        continue
                    if override[v] > 0.0 and body_is_vehicle[b]:
                        turn = abs((body_yaw[b] - yaw[v] + 180.0) % 360.0 - 180.0)
                        if turn > crossing_angle:
                            continue
                near = False
                for k in range(blocks):
                    cx = block_xy[k, 0] - qx
                    cy = block_xy[k, 1] - qy
                    block_u[k, 2] = cx * cx + cy * cy
                    near |= block_u[k, 2] < coarse_sq
                if not near:
                    continue
                if not trig[b, 0] <= 1.0:
                    trig[b, 1], trig[b, 0] = el.sin_cos(np.radians(body_yaw[b]))
                box_x = item_box[q, 0]
                # the grown box's corner (as _first_contact's corner_sq, with room for
                # rounding) lies within 1.005 (diagonal + sqrt(2) |grow|) + 0.1 of its centre
                room = 1.005 * (item_box[q, 3] + 1.4143 * abs(grow)) + 0.1 + abs(box_x) + BLOCK_ROOM
                at = _first_contact(
                    pts_u, tangent_u, seg_u, d_u, v, qx + trig[b, 0] * box_x,
                    qy + trig[b, 1] * box_x, trig[b, 0], trig[b, 1], item_box[q, 1],
                    item_box[q, 2], grow, out[v], block_u, room,
                )  # fmt: skip
                if at < out[v]:
                    out[v] = at
    return out


@njit(inline="always")
def _unowned(array):
    """The same array's memory as an array without a MemInfo (numba's carray), valid while
    the array lives: handed to an inlined helper, it counts no references."""
    return carray(_address(np.int64(array.ctypes.data)), array.shape, array.dtype)


@njit(cache=True)
def _fleet_trig(rows, row_cos, row_sin, body_rows, trig):
    """The heading cosines and sines (trig's columns) of the bodies that are the vehicles of
    `rows`, taken from the vehicles' (row_cos, row_sin); NO_TRIG in the others' cosine. The
    body of each vehicle (-1 for none)."""
    top = 0
    for v in range(len(rows)):
        top = max(top, rows[v] + 1)
    vehicle = np.full(top, -1, dtype=np.int64)
    for v in range(len(rows)):
        vehicle[rows[v]] = v
    own = np.full(len(rows), -1, dtype=np.int64)
    for b in range(len(body_rows)):
        r = body_rows[b]
        if 0 <= r < top and vehicle[r] >= 0:
            trig[b, 0] = row_cos[vehicle[r]]
            trig[b, 1] = row_sin[vehicle[r]]
            own[vehicle[r]] = b
        else:
            trig[b, 0] = NO_TRIG
    return own


@njit(cache=True, inline="always")
def _block_reaches(pts, v, block_xy, block):
    """How far each block of vehicle v's samples reaches from its coarse sample (`block_xy`)
    at most, into block[:, 1] (the blocks' ends in block[:, 0]): the largest |dx| + |dy|,
    no less than the distance and without its root."""
    start = 0
    for k in range(len(block)):
        end = int(block[k, 0])
        far = 0.0
        for s in range(start, end):
            far = max(far, abs(pts[v, s, 0] - block_xy[k, 0]) + abs(pts[v, s, 1] - block_xy[k, 1]))
        block[k, 1] = far
        start = end


@njit(cache=True, inline="always")
def _first_contact(
    pts, segment_tangent, seg, d, v, ox0, oy0, c, sn, ext_x, ext_y, grow, bound, block, room
):  # fmt: skip
    """How far along vehicle v's samples its path first enters a body's box (box centre
    ox0, oy0; heading cosine c, sine sn; half extents ext_x, ext_y) grown across the path
    by `grow`: the first sample inside, moved back by the gaps of it and the sample before;
    inf when none is inside, or when the answer cannot be below `bound` (the nearest
    contact so far). The samples come in blocks (`block`: each one's end, reach from its
    centre and squared distance from the body's centre); a block further from the body's
    centre than its reach and `room` (at least the box centre's offset from the body's
    and the grown box's corner, with room for rounding) has no sample inside and is passed
    over whole."""
    # a sample further from the box centre than the grown box's corner (with room for
    # rounding) cannot be inside it
    corner_x, corner_y = ext_x + grow, ext_y + grow
    corner_sq = 1.01 * (corner_x * corner_x + corner_y * corner_y) + 0.01
    s = 0
    for k in range(len(block)):
        end = int(block[k, 0])
        far = room + block[k, 1]
        if block[k, 2] > far * far:
            # the distances ascend: a first contact from here on lies beyond the sample
            # before
            if s > 0 and not d[v, s - 1] < bound:
                return np.inf
            s = end
            continue
        while s < end:
            if s > 0 and not d[v, s - 1] < bound:
                return np.inf
            rx = pts[v, s, 0] - ox0
            ry = pts[v, s, 1] - oy0
            s += 1
            if rx * rx + ry * ry > corner_sq:
                continue
            i = seg[v, s - 1]
            t0, t1 = segment_tangent[i, 0], segment_tangent[i, 1]
            if _clear_of(rx, ry, t0, t1, c, sn, ext_x, ext_y, grow):
                continue
            gap = _box_gap(rx, ry, t0, t1, c, sn, ext_x, ext_y, grow)
            if gap <= 0.0:
                at = d[v, s - 1]
                if s > 1:
                    # the gap of the sample before, outside the box (it did not stop)
                    rx = pts[v, s - 2, 0] - ox0
                    ry = pts[v, s - 2, 1] - oy0
                    i = seg[v, s - 2]
                    t0, t1 = segment_tangent[i, 0], segment_tangent[i, 1]
                    prev_gap = _box_gap(rx, ry, t0, t1, c, sn, ext_x, ext_y, grow)
                    frac = prev_gap / (prev_gap - gap) if prev_gap > gap else 1.0
                    at = d[v, s - 2] + frac * (at - d[v, s - 2])
                return at
    return np.inf


@njit(cache=True, inline="always")
def _clear_of(rx, ry, t0, t1, c, sn, ext_x, ext_y, grow):
    """Whether _box_gap(rx, ry, ...) is surely above 0, told without its root: a distance
    beyond the grown box of more than 1e-150 on either axis gives a positive hypot (a
    smaller one, or NaN, is left to _box_gap)."""
    lx = rx * c + ry * sn
    ly = -rx * sn + ry * c
    hx = ext_x + grow * abs(-t1 * c + t0 * sn)
    hy = ext_y + grow * abs(t1 * sn + t0 * c)
    return abs(lx) - hx > 1e-150 or abs(ly) - hy > 1e-150


@njit(cache=True, inline="always")
def _box_gap(rx, ry, t0, t1, c, sn, ext_x, ext_y, grow):
    """Signed distance from a path sample, at (rx, ry) from a body's box centre, with path
    direction (t0, t1), to that box (heading cosine c, sine sn, half extents ext_x, ext_y)
    grown across the path by `grow`: <= 0 inside."""
    lx = rx * c + ry * sn
    ly = -rx * sn + ry * c
    across_x = abs(-t1 * c + t0 * sn)
    across_y = abs(t1 * sn + t0 * c)
    hx = ext_x + grow * across_x
    hy = ext_y + grow * across_y
    ox = abs(lx) - hx
    oy = abs(ly) - hy
    if ox <= 0.0 and oy <= 0.0:
        return ox if ox > oy else oy
    return el.hypot(ox if ox > 0.0 else 0.0, oy if oy > 0.0 else 0.0)


@njit(cache=True)
def junction_stops(
    fleet, start, route_end, lanes, light_state, front, speed, target, sign_actor, sign_state,
    sign_box, others, blocked, dt, c,
):  # fmt: skip
    """The stop point (m ahead of the centre), its reason, the crawl-capped target speed and
    whether the vehicle is inside a junction
    for each vehicle, from its route's end, the light and sign before its next junction entry,
    the vehicles it yields to there, and whether the lane after that junction is blocked
    (`blocked`, blocked_exits: it waits at the entry, held, as for a red light)
    (AutopilotFleet.tick explains the rules). `front` is the half length; `fleet` is the
    FleetState (its route, its ignore flags: lights and signs in columns 0 and 1, and its
    near_time); `light_state` is empty without lights; `sign_state` and `sign_box` are each
    vehicle's light state and whether it is in a stop or yield sign's effect box (a sign's
    red holds it only there); `c` holds the constants (see
    autopilot.JUNCTION_CONSTANTS). The vehicles outside the fleet (`others`, OtherVehicles)
    make one yield when inside the junction on a conflicting path (moving or not), or when
    free to go (moving) and nearer the entry from a lane any of whose junction successors
    conflicts (their exit is not known). Among the fleet's vehicles near their entries the
    turn goes by the time each has been near its own (`near_time`, seconds, updated in place
    by `dt`): first come, first served."""
    route, ignore, near_time = fleet.route, fleet.ignore, fleet.near_time
    path_junction, path_light, path_give_way = lanes.junction, lanes.light, lanes.give_way
    successor_first, successor_flat = lanes.successor_first, lanes.successor_flat
    conflict_table = (
        lanes.junction_member,
        lanes.junction_size,
        lanes.conflict_first,
        lanes.conflict_flat,
    )
    other_inside, other_entry_from = others.inside, others.entry_from
    other_d_entry, other_free = others.d_entry, others.free
    stop_line, max_decel, slow, crawl_speed, comfort, sign_zone, approach = (
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
        c[6],
    )
    red, yellow, green = 0, 1, 2
    n, slots = route.shape
    stop = np.empty(n)
    reason = np.zeros(n, dtype=np.int64)
    target = target.copy()
    d_entry = np.full(n, np.inf)
    entry_path = np.full(n, -1, dtype=np.int64)
    inside = np.zeros(n, dtype=np.bool_)
    held = np.zeros(n, dtype=np.bool_)
    near = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        if route[v, slots - 1] >= 0:
            stop[v] = np.inf
        else:
            stop[v] = route_end[v] - front[v] - 0.5
            reason[v] = 1
        was_in = route[v, 0] >= 0 and path_junction[route[v, 0]] >= 0
        inside[v] = was_in
        approach_path = -1
        for r in range(1, slots):
            now_in = route[v, r] >= 0 and path_junction[route[v, r]] >= 0
            if now_in and not was_in:
                d_entry[v] = start[v, r]
                entry_path[v] = route[v, r]
                approach_path = route[v, r - 1]
                break
            was_in = now_in
        front_to_entry = d_entry[v] - front[v]
        light = path_light[approach_path] if approach_path >= 0 else -1
        if light >= 0 and len(light_state) > 0:
            state = light_state[light]
            stoppable = front_to_entry > speed[v] * speed[v] / (2.0 * max_decel)
            stoppable = stoppable or speed[v] < slow
            is_red = state == red or (state == yellow and stoppable)
            if is_red and not ignore[v, 0] and front_to_entry > -front[v]:
                held[v] = True
                stop[v] = min(stop[v], front_to_entry - stop_line)
                reason[v] = 2
        sign = approach_path >= 0 and path_give_way[approach_path]
        if sign and not ignore[v, 1] and not inside[v]:
            room = d_entry[v] - sign_zone
            crawl = np.sqrt(crawl_speed * crawl_speed + 2.0 * comfort * max(room, 0.0))
            target[v] = min(target[v], crawl)
        # a sign's red holds only a vehicle about to enter its junction from the sign's lane
        # and in the sign's effect box: leaving the box does not set a car green again, so one
        # whose rear was still in the box when the sign turned it red (inside the junction,
        # where signs hold no one) leaves the junction red, and one pushed back out of the box
        # (a collision) keeps a red no check will ever lift; neither may stop for it (the one
        # before the box moves up into it, and the sign tells it red, then green)
        by_sign = sign and d_entry[v] < approach and sign_state[v] != green and sign_box[v]
        if sign_actor[v] < 0 and by_sign and not ignore[v, 1] and not inside[v]:
            stop[v] = min(stop[v], 0.0)
            reason[v] = 3
            held[v] = True
        near[v] = entry_path[v] >= 0 and not inside[v] and d_entry[v] < approach
        if blocked[v]:
            held[v] = True
            line = d_entry[v] - front[v] - stop_line
            if line < stop[v]:
                stop[v] = line
                reason[v] = 4
    # the vehicles that can make another give way, each listed under its junction: those
    # inside a junction, those near an entry that no light or sign holds, and the vehicles
    # outside the fleet inside or approaching one (paths of two junctions never conflict,
    # so a vehicle looks only at its own junction's lists)
    groups = len(conflict_table[1])
    in_key = np.full(n, -1, dtype=np.int64)
    free_key = np.full(n, -1, dtype=np.int64)
    for u in range(n):
        if inside[u]:
            in_key[u] = path_junction[route[u, 0]]
        if near[u] and not held[u]:
            free_key[u] = path_junction[entry_path[u]]
    in_first, in_items = _grouped(in_key, groups)
    free_first, free_items = _grouped(free_key, groups)
    other_first, other_items = _others_by_junction(
        other_inside, other_entry_from, path_junction, successor_first, successor_flat, groups
    )
    # first come, first served: among the vehicles near their entries, the one near its own
    # the longest (`near_time`, kept in place) goes first, ties to the nearer (then by row);
    # one that can no longer stop before the entry (max_decel) goes before all of them
    turn = np.zeros(n)
    for v in range(n):
        near_time[v] = near_time[v] + dt if near[v] else 0.0
        committed = d_entry[v] - front[v] < speed[v] * speed[v] / (2.0 * max_decel)
        turn[v] = np.inf if committed else near_time[v]
    for v in range(n):
        if not near[v]:
            continue
        e = entry_path[v]
        j = path_junction[e]
        gives_way = False
        key = d_entry[v] + 1e-6 * v
        for i in range(in_first[j], in_first[j + 1]):
            if _conflict(path_junction, conflict_table, e, route[in_items[i], 0]):
                gives_way = True
                break
        for i in range(free_first[j], free_first[j + 1]):
            if gives_way:
                break
            u = free_items[i]
            earlier = turn[u] > turn[v] or (turn[u] == turn[v] and d_entry[u] + 1e-6 * u < key)
            if earlier and _conflict(path_junction, conflict_table, e, entry_path[u]):
                gives_way = True
        for i in range(other_first[j], other_first[j + 1]):
            if gives_way:
                break
            o = other_items[i]
            q = other_inside[o]
            if q >= 0:
                gives_way = _conflict(path_junction, conflict_table, e, q)
            elif other_free[o] and other_d_entry[o] < d_entry[v]:
                a = other_entry_from[o]
                for k in range(successor_first[a], successor_first[a + 1]):
                    s = successor_flat[k]
                    if path_junction[s] >= 0 and _conflict(path_junction, conflict_table, e, s):
                        gives_way = True
        line = d_entry[v] - front[v] - stop_line
        if gives_way and line < stop[v]:
            stop[v] = line
            reason[v] = 4
    return stop, reason, target, inside


@njit(cache=True)
def blocked_exits(route, start, arc, rows, lanes, others, actors, c):
    """Whether each vehicle must wait before its next junction because the lane after it is
    blocked (CARLA's MotionPlanStage.SafeAfterJunction, with the junction end and safe point
    of LocalizationStage.ExtendAndFindSafeSpace): a vehicle outside a junction, its centre
    less than c[6] m from the entry along its route, does not go in while a vehicle (the
    fleet's or any other) stands slower than c[10] m/s with its centre on the exit lane
    before the safe point (c[7] m along it, or the lane's end) and within c[9] m of the
    middle between the lane's start and that point. Not for a junction whose path starts
    less than c[11] m from its end, nor when the safe point is within c[8] m of the start.
    The fleet's vehicles (`rows`, on route[:, 0] at `arc`) and the others (OtherVehicles'
    paths and arcs) are listed by lane and arc once, when a first vehicle needs them.
    `lanes`: LaneArrays; `actors`: ActorColumns; `c`: autopilot.JUNCTION_CONSTANTS."""
    approach, safe_after, min_interval, block_distance, min_speed, min_length = (
        c[6],
        c[7],
        c[8],
        c[9],
        c[10],
        c[11],
    )
    path_junction, length, points, first = lanes.junction, lanes.length, lanes.points, lanes.first
    cum, base, count = lanes.cum, lanes.base, lanes.count
    a_pos, a_vel = actors.pos, actors.vel
    # the others' columns taken once: a NamedTuple's field read in the loop costs atomic
    # reference counts at each read
    other_path, other_arc, other_rows = others.path, others.arc, others.rows
    n, slots = route.shape
    blocked = np.zeros(n, dtype=np.bool_)
    fleet_first = fleet_items = other_first = other_items = np.zeros(0, dtype=np.int64)
    for v in range(n):
        if route[v, 0] < 0 or path_junction[route[v, 0]] >= 0:
            continue
        r = 1
        while r < slots and route[v, r] >= 0 and path_junction[route[v, r]] < 0:
            r += 1
        if r + 1 >= slots or route[v, r] < 0 or not start[v, r] < approach:
            continue
        j, e = route[v, r], route[v, r + 1]
        if e < 0 or path_junction[e] >= 0 or length[e] <= 0.0:
            continue
        ex, ey = points[first[e], 0], points[first[e], 1]
        bx, by = points[first[j], 0] - ex, points[first[j], 1] - ey
        if bx * bx + by * by < min_length * min_length:
            continue  # a short junction: no check (CARLA's MIN_JUNCTION_LENGTH)
        safe = min(safe_after, length[e])
        i = max(_last_at_most(cum, base[e] + safe, first[e], first[e] + count[e]), first[e])
        i = min(i, first[e] + count[e] - 2)
        step = cum[i + 1] - cum[i]
        f = (base[e] + safe - cum[i]) / step if step > 0.0 else 0.0
        sx = points[i, 0] + f * (points[i + 1, 0] - points[i, 0])
        sy = points[i, 1] + f * (points[i + 1, 1] - points[i, 1])
        if (sx - ex) * (sx - ex) + (sy - ey) * (sy - ey) <= min_interval * min_interval:
            continue
        mx, my = 0.5 * (ex + sx), 0.5 * (ey + sy)
        if len(fleet_first) == 0:
            fleet_first, fleet_items = _by_arc(route[:, 0], arc, len(length))
            other_first, other_items = _by_arc(other_path, other_arc, len(length))
        for k in range(fleet_first[e], fleet_first[e + 1] + other_first[e + 1] - other_first[e]):
            if k < fleet_first[e + 1]:
                u = fleet_items[k]
                at, row = arc[u], rows[u]
            else:
                o = other_items[other_first[e] + k - fleet_first[e + 1]]
                at, row = other_arc[o], other_rows[o]
            if at > safe:
                continue
            dx, dy = a_pos[row, 0] - mx, a_pos[row, 1] - my
            if not dx * dx + dy * dy < block_distance * block_distance:
                continue
            vx, vy = a_vel[row, 0], a_vel[row, 1]
            if vx * vx + vy * vy < min_speed * min_speed:
                blocked[v] = True
                break
    return blocked


@njit(cache=True, inline="always")
def _conflict(path_junction, conflict_table, p, q):
    """Whether junction paths p and q cross or merge (LanePaths.conflict): an entry of their
    junction's matrix; never for paths of two junctions or outside any. `conflict_table`:
    LanePaths' junction_member, junction_size, conflict_first, conflict_flat."""
    j = path_junction[p]
    if j < 0 or path_junction[q] != j:
        return False
    member, size, first, flat = conflict_table
    return flat[first[j] + member[p] * size[j] + member[q]]


@njit(cache=True)
def _grouped(keys, groups):
    """The indices with a key (>= 0, < groups) listed by key, ascending within each: the
    key's indices are items[first[key] : first[key + 1]] (one counting sort)."""
    first = np.zeros(groups + 1, dtype=np.int64)
    for k in keys:
        if k >= 0:
            first[k + 1] += 1
    for g in range(groups):
        first[g + 1] += first[g]
    fill = first[:-1].copy()
    items = np.empty(first[groups], dtype=np.int64)
    for i in range(len(keys)):
        k = keys[i]
        if k >= 0:
            items[fill[k]] = i
            fill[k] += 1
    return first, items


@njit(cache=True)
def _others_by_junction(inside, entry_from, path_junction, successor_first, successor_flat, groups):
    """The vehicles outside the fleet (other_vehicles' `inside` and `entry_from`) listed
    under the junction they are inside, or under each junction a successor of the lane they
    approach from lies in (_grouped's form)."""
    m = len(inside)
    count = 0
    for o in range(m):
        if inside[o] >= 0:
            count += 1
        elif entry_from[o] >= 0:
            count += successor_first[entry_from[o] + 1] - successor_first[entry_from[o]]
    keys = np.full(count, -1, dtype=np.int64)
    items = np.empty(count, dtype=np.int64)
    at = 0
    for o in range(m):
        if inside[o] >= 0:
            keys[at], items[at] = path_junction[inside[o]], o
            at += 1
        elif entry_from[o] >= 0:
            a = entry_from[o]
            last = -1
            for i in range(successor_first[a], successor_first[a + 1]):
                j = path_junction[successor_flat[i]]
                if j >= 0 and j != last:  # (each junction once: the lane's exits share it)
                    keys[at] = j
                    last = j
                items[at] = o
                at += 1
    first, order = _grouped(keys, groups)
    return first, items[order]


@njit(cache=True)
def curve_speed_cap(segment_heading, seg, d, front, target, lateral_accel, comfort, step):
    """Each target speed capped so that the vehicle can brake at `comfort` to the speed that
    every curve of its sampled path allows at `lateral_accel`. The raw path heading at each
    sample, in radians, is its segment's (`segment_heading` of the segments `seg` (N, M),
    sample_routes'), unwrapped here exactly as numpy.unwrap does (the wrapped steps
    corrected, the corrections summed along the path). A `step` that is a power of two
    divides as a product by its inverse (the same bits, without a division a sample); reads
    index with unsigned integers (no test for an index from the end)."""
    n, m = seg.shape
    out = target.copy()
    period = 2.0 * np.pi
    mantissa, _ = math.frexp(step)
    inverse = 1.0 / step if mantissa == 0.5 else 0.0  # 0: divide
    for v in range(n):
        uv = np.uint64(v)
        if v + PREFETCH_AHEAD < n:
            for s in range(0, m, 4):  # 4 samples 2 m apart: about one cache line of headings
                prefetch(segment_heading, seg[v + PREFETCH_AHEAD, s])
        correction = 0.0
        before = segment_heading[np.uint64(seg[uv, np.uint64(0)])]
        best = np.inf
        # a sample whose curve allows well over the target speed cannot lower it: its cap,
        # sqrt(lateral_accel / curvature + ...), is left out (the margin dwarfs rounding)
        wanted_sq = 1.00001 * out[uv] * out[uv]
        loose = lateral_accel / wanted_sq if wanted_sq > 0.0 else np.inf
        here = before
        for s in range(1, m):
            us = np.uint64(s)
            last, here = here, segment_heading[np.uint64(seg[uv, us])]
            dd = here - last
            if not abs(dd) < np.pi:
                ddmod = (dd + np.pi) % period + -np.pi
                if ddmod == -np.pi and dd > 0.0:
                    ddmod = np.pi
                correction += ddmod - dd
            now = here + correction
            turn = abs(now - before)
            curvature = turn * inverse if inverse > 0.0 else turn / step
            before = now
            bend = max(curvature, 1e-4)
            if bend < loose:
                continue
            v_curve = np.sqrt(lateral_accel / bend)
            ahead = max(d[uv, us - np.uint64(1)] - front[uv], 0.0)
            # the smallest cap is the root of the smallest square (the root is monotonic)
            cap_sq = v_curve * v_curve + 2.0 * comfort * ahead
            if cap_sq < best:
                best = cap_sq
        best = np.sqrt(best)
        if best < out[uv]:
            out[uv] = best
    return out


@njit(cache=True)
def speed_controls(
    obstacle,
    front,
    lead,
    global_lead,
    stop,
    reason,
    target,
    speed,
    integral,
    inside,
    hold_time,
    override,
    dt,
    stop_obstacle,
    c,
):
    """Throttle and brake of each vehicle from its stop point (the nearer of `stop` and the
    obstacle on its path, `obstacle` metres from its centre, less its half length `front` and
    its leading distance, `lead` or `global_lead` where unset), with the reason, integral,
    hold time and push-on time that follow. `stop_obstacle` is the reason code for an
    obstacle; `c` holds the constants (see autopilot.CONTROL_CONSTANTS)."""
    comfort, brake_from, brake_scale, hold_limit, override_time = c[0], c[1], c[2], c[3], c[4]
    n = len(stop)
    throttle = np.empty(n)
    brake = np.empty(n)
    integral = integral.copy()
    reason = reason.copy()
    hold_time = hold_time.copy()
    override = override.copy()
    for v in range(n):
        gap = global_lead if np.isnan(lead[v]) else lead[v]
        ahead = obstacle[v] - front[v] - gap
        blocked = ahead < stop[v]
        at = stop[v] if stop[v] <= ahead else ahead
        if blocked:
            reason[v] = stop_obstacle
        allowed = np.sqrt(2.0 * comfort * (at if at >= 0.0 else 0.0))
        aim = target[v] if target[v] <= allowed else allowed
        if at <= 0.25:
            aim = 0.0
        th, br, integral[v] = longitudinal(speed[v], aim, integral[v], dt)
        # braking that the stop point needs, beyond what the speed error asks for
        need = speed[v] * speed[v] / (2.0 * (at if at >= 0.05 else 0.05))
        extra = _clip((need - brake_from) / brake_scale, 0.0, 1.0) if np.isfinite(at) else 0.0
        br = br if br >= extra else extra
        brake[v] = br
        throttle[v] = 0.0 if br > 0.0 else th
        # a vehicle stuck in a junction behind an obstacle for long pushes on for a while,
        # ignoring crossing traffic (two vehicles that block each other's paths)
        stuck = speed[v] < 0.5 and aim <= 0.0 and blocked and inside[v]
        held = hold_time[v] + dt if stuck else 0.0
        if held > hold_limit:
            override[v] = override_time
            held = 0.0
        else:
            left = override[v] - dt
            override[v] = left if left >= 0.0 else 0.0
        hold_time[v] = held
    return throttle, brake, integral, reason, hold_time, override


@njit(cache=True)
def route_starts(route, arc, length):
    """Where each path of each route begins, in metres from the vehicle (inf for empty slots),
    and the paths' lengths (0 for empty slots): the lengths summed left to right along the
    route, as numpy's cumsum does."""
    n, slots = route.shape
    start = np.empty((n, slots))
    lengths = np.empty((n, slots))
    for v in range(n):
        ahead = 0.0
        for r in range(slots):
            p = route[v, r]
            size = length[p] if p >= 0 else 0.0
            lengths[v, r] = size
            if p < 0:
                start[v, r] = np.inf
            elif r == 0:
                start[v, r] = -arc[v]
            else:
                start[v, r] = -arc[v] + ahead
            ahead = size if r == 0 else ahead + size
    return start, lengths


@njit(cache=True)
def speed_targets(speed_limit, speed_pct, global_pct, desired):
    """Each vehicle's target speed (m/s): its desired speed if set, else the speed limit
    (km/h) less its percentage difference (or the manager's when unset), at least 0."""
    n = len(speed_limit)
    out = np.empty(n)
    for v in range(n):
        pct = global_pct if np.isnan(speed_pct[v]) else speed_pct[v]
        t = speed_limit[v] / 3.6 * (1.0 - pct / 100.0)
        if not np.isnan(desired[v]):
            t = desired[v] / 3.6
        out[v] = t if t >= 0.0 or np.isnan(t) else 0.0
    return out


@njit(cache=True)
def past_path_ends(route, arc, length):
    """The vehicles (indices, ascending) whose arc reached their current path's end (less a
    micrometre) and whose route goes on after it."""
    n = route.shape[0]
    out = np.empty(n, dtype=np.int64)
    found = 0
    for v in range(n):
        if arc[v] >= length[route[v, 0]] - 1e-6 and route[v, 1] >= 0:
            out[found] = v
            found += 1
    return out[:found]


@njit(cache=True)
def body_arrays(actors, m, vehicle, walker):
    """The first m actor rows (`actors`: ActorColumns) that are alive bodies or props, in row
    order, for the obstacle and lane searches, as Bodies: rows, x y (B, 2), yaw (degrees),
    is-vehicle and is-walker flags (kinds `vehicle`, `walker`), box centre x in the actor's
    frame, half extents x y (B, 2) and the grid of their centres."""
    alive, body, static_collider, pos, rot = (
        actors.alive,
        actors.body,
        actors.static_collider,
        actors.pos,
        actors.rot,
    )
    kind, box_loc, extent = actors.kind, actors.box_loc, actors.extent
    rows = np.empty(m, dtype=np.int64)
    count = 0
    for r in range(m):
        if alive[r] and (body[r] or static_collider[r]):
            rows[count] = r
            count += 1
    rows = rows[:count]
    xy = np.empty((count, 2))
    yaw = np.empty(count)
    is_vehicle = np.empty(count, dtype=np.bool_)
    is_walker = np.empty(count, dtype=np.bool_)
    box_x = np.empty(count)
    ext = np.empty((count, 2))
    for b in range(count):
        r = rows[b]
        xy[b, 0] = pos[r, 0]
        xy[b, 1] = pos[r, 1]
        yaw[b] = rot[r, 1]
        is_vehicle[b] = kind[r] == vehicle
        is_walker[b] = kind[r] == walker
        box_x[b] = box_loc[r, 0]
        ext[b, 0] = extent[r, 0]
        ext[b, 1] = extent[r, 1]
    frame, first, items = point_grid(xy[:, 0], xy[:, 1], count, BODY_CELL)
    item_xy = np.empty((len(items), 2))
    item_box = np.empty((len(items), 4))
    for q in range(len(items)):
        b = items[q]
        item_xy[q, 0], item_xy[q, 1] = xy[b, 0], xy[b, 1]
        item_box[q, 0], item_box[q, 1], item_box[q, 2] = box_x[b], ext[b, 0], ext[b, 1]
        item_box[q, 3] = np.sqrt(ext[b, 0] * ext[b, 0] + ext[b, 1] * ext[b, 1])
    return Bodies(
        rows, xy, yaw, is_vehicle, is_walker, box_x, ext, frame, first, items, item_xy, item_box
    )


@njit(cache=True)
def vehicle_columns(k, controls):
    """The vehicle table's scalar columns the tick reads for vehicle rows k (`controls`:
    ControlColumns): wheelbase, rear axle to centre of gravity (wheelbase less CG to front
    axle), maximum steer angle, speed limit, affecting light's row and state, and whether
    the vehicle is in a stop or yield sign's effect box."""
    wheelbase, cg_front, max_steer = controls.wheelbase, controls.cg_front, controls.max_steer
    speed_limit, tl_actor, tl_state = controls.speed_limit, controls.tl_actor, controls.tl_state
    sign_boxes = controls.sign_boxes
    n = len(k)
    base = np.empty(n)
    rear = np.empty(n)
    steer = np.empty(n)
    limit = np.empty(n)
    light = np.empty(n, dtype=tl_actor.dtype)
    state = np.empty(n, dtype=tl_state.dtype)
    in_sign_box = np.empty(n, dtype=np.bool_)
    for v in range(n):
        r = k[v]
        base[v] = wheelbase[r]
        rear[v] = wheelbase[r] - cg_front[r]
        steer[v] = max_steer[r]
        limit[v] = speed_limit[r]
        light[v] = tl_actor[r]
        state[v] = tl_state[r]
        in_sign_box[v] = sign_boxes[r] > 0
    return base, rear, steer, limit, light, state, in_sign_box


@njit(cache=True)
def lane_changes(fleet, reason, work, wish, auto, lanes, bodies, outside, actors, tl_state, c):
    """The vehicles (ascending) that change lanes now and the paths they change to. A vehicle
    with `auto` on changes when an obstacle sets its stop point, its nearest leader on the
    same path is ahead within reach, far enough to swerve out behind it (bumper to bumper,
    from the half lengths) and slower than its own wished speed `wish` by a margin, and not
    held; when both it and the lane beside leave room before their ends (no change inside or
    near a junction) and it drove far enough since its last change (`changed_at`, nan:
    none). The lane
    beside (right first, then left, as CARLA's traffic manager) must be free: no vehicle or
    walker centre within half the lane's width plus the body's half width of the lane's
    centre from behind the vehicle to beyond its leader, nor a vehicle changing there now.
    The leader is the nearest of the fleet's vehicles on the path (held by a light, sign or
    junction: `reason`) and of the vehicles outside it (`outside`, OtherVehicles, on the
    paths and arcs other_vehicles put them on) whose body reaches within the vehicle's half
    width plus the path margin of the path's centre line (its lateral distance less its
    half width); such a one drives at its measured speed and is held while in a red light's
    box (`tl_state`) or within `room` before a junction entry (_near_entry). `fleet`:
    FleetState; `work`: Work; `lanes`: LaneArrays; `actors`: ActorColumns; `c`: see
    autopilot.LANE_CHANGE_CONSTANTS."""
    changed_at, rows, route, arc = fleet.changed_at, fleet.actor, fleet.route, fleet.arc
    speed, front, pos, half_width = work.speed, work.front, work.pos, work.half_width
    path_junction, length, neighbour = lanes.junction, lanes.length, lanes.neighbour
    points, cum, base, width = lanes.points, lanes.cum, lanes.base, lanes.width
    first, count = lanes.first, lanes.count
    successor_first, successor_flat = lanes.successor_first, lanes.successor_flat
    others, other_path = outside.rows, outside.path
    other_arc, other_lateral = outside.arc, outside.lateral
    a_vel, extent, a_vrow = actors.vel, actors.extent, actors.vrow
    obstacle_reason, light_reason, sign_reason, yield_reason = (
        int(c[0]),
        int(c[1]),
        int(c[2]),
        int(c[3]),
    )
    room, reach, min_gap, gain, behind, behind_time = c[4], c[5], c[6], c[7], c[8], c[9]
    ahead, min_ahead, spacing, spacing_time = c[10], c[11], c[12], c[13]
    red, margin = int(c[14]), c[15]
    n = len(rows)
    changers = np.empty(n, dtype=np.int64)
    targets = np.empty(n, dtype=np.int64)
    claim_lo = np.empty(n)
    claim_hi = np.empty(n)
    found = 0
    # the vehicles on each lane path by arc, made when a vehicle first may change
    lane_first = lane_items = other_first = other_items = np.zeros(0, dtype=np.int64)
    reach_across = 0.0  # the widest body's half width, for the grid's search
    body_ext = bodies.ext
    for b in range(len(body_ext)):
        reach_across = max(reach_across, body_ext[b, 1])
    for v in range(n):
        if not auto[v] or reason[v] != obstacle_reason:
            continue
        p = route[v, 0]
        if path_junction[p] >= 0 or length[p] - arc[v] < room or length[p] <= 0.0:
            continue
        if not np.isnan(changed_at[v, 0]):
            dx = pos[v, 0] - changed_at[v, 0]
            dy = pos[v, 1] - changed_at[v, 1]
            gap = max(spacing_time * speed[v], spacing)
            if dx * dx + dy * dy <= gap * gap:
                continue
        if len(lane_first) == 0:  # the first vehicle that may change: the lanes' orders
            lane_first, lane_items = _by_arc(route[:, 0], arc, len(length))
            other_first, other_items = _by_arc(other_path, other_arc, len(length))
        lead, lead_gap = _next_on_lane(lane_first, lane_items, arc, p, arc[v])
        other = -1
        for i in range(_after(other_first, other_items, other_arc, p, arc[v]), other_first[p + 1]):
            # the nearest one ahead that reaches the path's centre line, nearer than the
            # fleet's leader (the lowest index on a tie, as a scan in index order finds it)
            o = other_items[i]
            gap = other_arc[o] - arc[v]
            if gap >= lead_gap and not (other >= 0 and gap == lead_gap):
                break
            if other >= 0 and (gap > lead_gap or o > other):
                continue
            if other_lateral[o] - extent[others[o], 1] <= half_width[v] + margin:
                other, lead_gap = o, gap
        if other >= 0:
            r = others[other]
            lead_speed = el.hypot(a_vel[r, 0], a_vel[r, 1])
            lead_front = extent[r, 0]
            held_now = tl_state[a_vrow[r]] == red or _near_entry(
                p, length[p] - other_arc[other], room, length, path_junction, successor_first,
                successor_flat,
            )  # fmt: skip
        elif lead >= 0:
            lead_speed = speed[lead]
            lead_front = front[lead]
            h = reason[lead]
            held_now = (h == light_reason) | (h == sign_reason) | (h == yield_reason)
        else:
            continue
        if lead_gap > reach or not lead_speed < wish[v] - gain:
            continue
        if lead_gap - front[v] - lead_front < min_gap:
            continue  # too close to swerve out without touching it
        if held_now:
            continue
        for side in range(2):
            t = neighbour[p, side]
            if t < 0:
                continue
            at = arc[v] * length[t] / length[p]
            if length[t] - at < room:
                continue
            lo = at - (behind + behind_time * wish[v])
            hi = at + max(lead_gap + ahead, min_ahead)
            free = True
            for k in range(found):
                if targets[k] == t and claim_lo[k] < hi and lo < claim_hi[k]:
                    free = False
            if free:
                free = _lane_free(
                    t, lo, hi, rows[v], points, cum, base, first, count, width, bodies,
                    reach_across,
                )  # fmt: skip
            if free:
                changers[found] = v
                targets[found] = t
                claim_lo[found] = lo
                claim_hi[found] = hi
                found += 1
                break
    return changers[:found], targets[:found]


@njit(cache=True)
def _near_entry(p, ahead, room, length, path_junction, successor_first, successor_flat):
    """Whether a junction entry lies less than `room` ahead along the lanes from `ahead`
    before path p's end (following a lane's one successor while still short of room)."""
    for _ in range(len(length)):
        if not ahead < room:
            return False
        lo, hi = successor_first[p], successor_first[p + 1]
        for i in range(lo, hi):
            if path_junction[successor_flat[i]] >= 0:
                return True
        if hi - lo != 1:
            return False
        p = successor_flat[lo]
        ahead += length[p]
    return False


@njit(cache=True)
def _lane_free(t, lo, hi, own, points, cum, base, first, count, width, bodies, reach_across):
    """Whether no vehicle or walker (but the actor row `own`) has its centre within half the
    lane's width plus its own half width of a point of path t between arcs lo and hi. The
    bodies looked at are those of the grid's cells over the points' box grown by the widest
    lane's half and the widest body's half width (`reach_across`)."""
    start = _last_at_most(cum, base[t] + lo, first[t], first[t] + count[t])
    start = max(start, first[t])
    end = first[t] + count[t]
    stop = start
    x0 = y0 = np.inf
    x1 = y1 = -np.inf
    grow = 0.0
    while stop < end and not cum[stop] - base[t] > hi:
        x0, x1 = min(x0, points[stop, 0]), max(x1, points[stop, 0])
        y0, y1 = min(y0, points[stop, 1]), max(y1, points[stop, 1])
        grow = max(grow, 0.5 * width[stop])
        stop += 1
    grow += reach_across
    frame, body_first, body_items, body_rows = bodies.frame, bodies.first, bodies.items, bodies.rows
    body_is_vehicle, body_is_walker, body_xy, body_ext = (
        bodies.is_vehicle,
        bodies.is_walker,
        bodies.xy,
        bodies.ext,
    )
    i0, i1 = cell_span(frame[0], frame[2], frame[3], x0 - grow, x1 + grow)
    j0, j1 = cell_span(frame[1], frame[2], frame[4], y0 - grow, y1 + grow)
    ny = int(frame[4])
    for cell_x in range(i0, i1 + 1):
        for cell_y in range(j0, j1 + 1):
            cell = cell_x * ny + cell_y
            for q in range(body_first[cell], body_first[cell + 1]):
                b = body_items[q]
                if body_rows[b] == own or not (body_is_vehicle[b] or body_is_walker[b]):
                    continue
                for i in range(start, stop):
                    dx = points[i, 0] - body_xy[b, 0]
                    dy = points[i, 1] - body_xy[b, 1]
                    near = 0.5 * width[i] + body_ext[b, 1]
                    if dx * dx + dy * dy < near * near:
                        return False
    return True


@njit(cache=True)
def _by_arc(path, arc, paths):
    """The items (path[i] >= 0 and a number arc[i]) listed by path, each path's by arc and
    then index: path p's are items[first[p] : first[p + 1]] (a counting sort by path, then
    an insertion sort of each path's few)."""
    keys = path.copy()
    for i in range(len(arc)):
        if np.isnan(arc[i]):
            keys[i] = -1  # NaN: never ahead of anything
    first, items = _grouped(keys, paths)
    for p in range(paths):
        for a in range(first[p] + 1, first[p + 1]):
            item = items[a]
            b = a
            while b > first[p] and arc[items[b - 1]] > arc[item]:
                items[b] = items[b - 1]
                b -= 1
            items[b] = item
    return first, items


@njit(cache=True, inline="always")
def _after(first, items, arc, p, here):
    """The position of path p's first item with an arc beyond `here` (_by_arc's lists)."""
    lo, hi = first[p], first[p + 1]
    if np.isnan(here):
        return hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if arc[items[mid]] <= here:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def _next_on_lane(first, items, arc, p, here):
    """The item of path p nearest ahead of `here` (its arc beyond it) and its distance: the
    least difference arc - here, the lowest index among items at that difference, as a scan
    of every item in index order finds it; (-1, inf) when none."""
    at = _after(first, items, arc, p, here)
    end = first[p + 1]
    if at == end:
        return -1, np.inf
    best = items[at]
    gap = arc[best] - here
    at += 1
    while at < end and arc[items[at]] - here == gap:
        best = min(best, items[at])
        at += 1
    return best, gap


# -- the tick in one or two compiled calls (AutopilotFleet.tick) ----------------------------


@njit(cache=True)
def localise_fleet(fleet, work, lanes, actors, window, lost, kept):
    """The fleet's actor columns the tick reads (vehicle rows `k`, positions, yaws in degrees,
    half lengths `front`, half widths), the heading's cosine and sine, the forward speed (at
    least 0), and each vehicle localised on its current path near its last arc: `arc` and
    `lateral` distance. All written in place into the fleet's work arrays (an array handed
    back from a compiled call costs ~0.8 us to box). `past` gets the vehicles past their
    path's end (past_path_ends). Returns how many are past their end, how many are more than
    `lost` m off their path, and whether every vehicle is alive (if not, nothing is done).
    A vehicle whose path, arc and position are those of its `kept` location, which found
    that arc, is not located again. `fleet`: FleetState; `work`: Work; `lanes`: LaneArrays;
    `actors`: ActorColumns; `kept`: Kept (`window` is the same on every tick)."""
    rows, route, arc = fleet.actor, fleet.route, fleet.arc
    pos, yaw, front, half_width = work.pos, work.yaw, work.front, work.half_width
    cos_yaw, sin_yaw, speed = work.cos_yaw, work.sin_yaw, work.speed
    n = len(rows)
    for v in range(n):
        if not actors.alive[rows[v]]:
            return 0, 0, False
    for v in range(n):
        r = rows[v]
        work.k[v] = actors.vrow[r]
        for c in range(3):
            pos[v, c] = actors.pos[r, c]
        yaw[v] = actors.rot[r, 1]
        front[v] = actors.extent[r, 0]
        half_width[v] = actors.extent[r, 1]
        sin_yaw[v], cos_yaw[v] = el.sin_cos(np.radians(yaw[v]))
        forward = actors.vel[r, 0] * cos_yaw[v] + actors.vel[r, 1] * sin_yaw[v]
        speed[v] = forward if forward >= 0.0 or np.isnan(forward) else 0.0  # numpy.maximum
    # the vehicles to locate: all but those standing where their kept location left them
    todo = np.empty(n, dtype=np.int64)
    count = 0
    for v in range(n):
        if not (
            kept.located_path[v] == route[v, 0]
            and _same_bits(kept.located_arc[v], arc[v])
            and _same_bits(kept.located_xy[v, 0], pos[v, 0])
            and _same_bits(kept.located_xy[v, 1], pos[v, 1])
        ):
            todo[count] = v
            count += 1
    path = np.empty(count, dtype=np.int64)
    near = np.empty(count)
    xy = np.empty((count, 2))
    segment = np.empty(count, dtype=np.int64)
    for t in range(count):
        v = todo[t]
        path[t], near[t], segment[t] = route[v, 0], arc[v], work.segment[v]
        xy[t, 0], xy[t, 1] = pos[v, 0], pos[v, 1]
    new_arc, new_lateral = locate_on_paths(
        lanes.points, lanes.cum, lanes.base, lanes.first, lanes.count, path, near, xy, window,
        segment,
    )  # fmt: skip
    for t in range(count):
        v = todo[t]
        kept.located_path[v] = path[t]
        kept.located_arc[v] = near[t] if _same_bits(new_arc[t], near[t]) else np.nan
        kept.located_xy[v, 0], kept.located_xy[v, 1] = xy[t, 0], xy[t, 1]
        arc[v] = new_arc[t]
        work.lateral[v] = new_lateral[t]
        work.segment[v] = segment[t]
    lost_count = 0
    for v in range(n):
        if work.lateral[v] > lost:
            lost_count += 1
    ends = past_path_ends(route, arc, lanes.length)
    work.past[: len(ends)] = ends
    return len(ends), lost_count, True


@njit(cache=True)
def plan_fleet(
    fleet, settings, work, lanes, actors, controls, constants, light_state, n_actors, dt,
    global_pct, global_lead, kept,
):  # fmt: skip
    """Everything of the tick after localisation (localise_fleet's work arrays k ...
    half_width): the route samples (the constants' `sample_distances` ahead of the centre)
    and the pure-pursuit point, the speed target and its curve cap, the junction rules, the
    obstacle search, the speed control, the steering (pursuit_tangents' arc tangents) and
    the controls written into the vehicle table (apply_controls); a vehicle whose route and
    arc are those its `kept` samples were taken at (Kept) has those samples. The
    fleet's integral, reason, hold and push-on times are updated in place; the vehicles that
    change lanes (lane_changes, for those with `auto_lane_change` on) and their new paths go
    into the work arrays `changers` and `to_paths`, their number returned. The groups are
    FleetState, FleetSettings, Work, LaneArrays, ActorColumns, ControlColumns, Constants and
    Kept; `light_state` is the lights' states (empty without lights), `n_actors` the
    actor rows in use, `global_pct` and `global_lead` the manager's speed difference and
    leading distance."""
    c = constants.plan
    lateral_accel, comfort, step = c[0], c[1], c[2]
    vehicle_kind, walker_kind, stop_obstacle = int(c[8]), int(c[9]), int(c[10])
    rows, route, arc, ignore = fleet.actor, fleet.route, fleet.arc, fleet.ignore
    pos, yaw, speed, front = work.pos, work.yaw, work.speed, work.front
    distances = constants.sample_distances
    n, m = len(rows), len(distances)
    start, lengths = route_starts(route, arc, lanes.length)
    route_end = np.empty(n)
    d = np.empty((n, m))
    for v in range(n):
        total = 0.0
        for r in range(lengths.shape[1]):
            total += lengths[v, r]  # left to right, as numpy's sum of a short row
        route_end[v] = -arc[v] + total
        for s in range(m):
            d[v, s] = distances[s]
    # each route sampled from the segment its vehicle was located on (localise_fleet), but
    # where the kept samples were taken at the same route and arc
    same = np.empty(n, dtype=np.bool_)
    slots = route.shape[1]
    for v in range(n):
        same[v] = _same_bits(kept.arc[v], arc[v])
        for r in range(slots):
            same[v] = same[v] and kept.route[v, r] == route[v, r]
        if not same[v]:
            kept.arc[v] = arc[v]
            for r in range(slots):
                kept.route[v, r] = route[v, r]
    _sample_routes_into(
        lanes.points, lanes.cum, lanes.base, lanes.length, lanes.first, lanes.count, route,
        start, d, work.segment, PREFETCH_POINTS, kept.points, kept.seg, same,
    )  # fmt: skip
    pts, seg = kept.points.reshape((n, m, 3)), kept.seg
    axle, rear, _, limit, sign_actor, sign_state, sign_box = vehicle_columns(work.k, controls)
    look_d = np.empty((n, 1))
    look_hint = np.empty(n, dtype=np.int64)
    for v in range(n):
        look_d[v, 0] = lookahead_distance(speed[v]) - rear[v]
        look_hint[v] = seg[v, 0]
    look, _ = sample_routes(
        lanes.points, lanes.cum, lanes.base, lanes.length, lanes.first, lanes.count, route,
        start, look_d, look_hint, 0,
    )  # fmt: skip
    wheel_tangent = pursuit_tangents(pos, work.cos_yaw, work.sin_yaw, rear, look[:, 0], axle)

    wish = speed_targets(limit, settings.speed_pct, global_pct, settings.desired)
    target = curve_speed_cap(
        lanes.segment_heading, seg, d, front, wish, lateral_accel, comfort, step
    )
    others = other_vehicles(rows, actors, n_actors, lanes, constants.other)
    blocked = blocked_exits(route, start, arc, rows, lanes, others, actors, constants.junction)
    stop, stop_reason, target, inside = junction_stops(
        fleet, start, route_end, lanes, light_state, front, speed, target, sign_actor, sign_state,
        sign_box, others, blocked, dt, constants.junction,
    )  # fmt: skip
    bodies = body_arrays(actors, n_actors, vehicle_kind, walker_kind)
    obstacle = obstacle_distances(
        rows, pos, work.cos_yaw, work.sin_yaw, yaw, work.half_width, ignore, fleet.override,
        bodies, pts, lanes.segment_tangent, seg, d, c,
    )  # fmt: skip
    throttle, brake, new_integral, new_reason, new_hold, new_override = speed_controls(
        obstacle, front, settings.lead, global_lead, stop, stop_reason, target, speed,
        fleet.integral, inside, fleet.hold_time, fleet.override, dt, stop_obstacle,
        constants.control,
    )  # fmt: skip
    found_changers, found_paths = lane_changes(
        fleet, new_reason, work, wish, settings.auto_lane_change, lanes, bodies, others, actors,
        controls.tl_state, constants.lane_change,
    )  # fmt: skip
    wheel_angle = np.empty(n)
    for v in range(n):
        wheel_angle[v] = el.atan(wheel_tangent[v])
    apply_controls(
        work.k, wheel_angle, speed, throttle, brake, controls, settings.update_lights,
        constants.light_bits,
    )  # fmt: skip
    fleet.integral[:] = new_integral
    fleet.reason[:] = new_reason
    fleet.hold_time[:] = new_hold
    fleet.override[:] = new_override
    changes = len(found_changers)
    work.changers[:changes] = found_changers
    work.to_paths[:changes] = found_paths
    return changes


@njit(cache=True)
def tick_fleet(table, n_actors, dt, global_pct, global_lead, window, lost, localise):
    """The autopilot's tick on the arrays of `table` (an ArrayTable's, of FLEET_TABLE_KINDS:
    the groups of plan_fleet), in one compiled call: with `localise`, localise_fleet, then
    plan_fleet when no vehicle needs Python in between (none past its path's end, none more
    than `lost` m off its path, every one alive); without, plan_fleet alone (after the caller
    handled those vehicles). Returns localise_fleet's three answers (zeros and True without
    `localise`) and plan_fleet's number of lane changes, -1 when it did not plan."""
    fleet, settings, work, lanes, actors, controls, constants, light_state, kept = _fleet_groups(
        table
    )
    if localise:
        past, lost_count, all_alive = localise_fleet(fleet, work, lanes, actors, window, lost, kept)
        if past or lost_count or not all_alive:
            return past, lost_count, all_alive, -1
    changes = plan_fleet(
        fleet, settings, work, lanes, actors, controls, constants, light_state, n_actors, dt,
        global_pct, global_lead, kept,
    )  # fmt: skip
    return 0, 0, True, changes


@njit(cache=True, inline="always")
def _fleet_groups(t):
    """tick_fleet's groups made again from its table (FLEET_TABLE_KINDS, in their order)."""
    f8, f4, u4, b = np.float64, np.float32, np.uint32, np.bool_
    i8, i4, i1 = np.int64, np.int32, np.int8
    fleet = FleetState(
        column(t, 0, i8),
        matrix(t, 1, i8),
        column(t, 2, f8),
        matrix(t, 3, b),
        column(t, 4, f8),
        column(t, 5, f8),
        column(t, 6, f8),
        column(t, 7, i8),
        matrix(t, 8, f8),
        column(t, 9, f8),
    )
    settings = FleetSettings(
        column(t, 10, f8),
        column(t, 11, f8),
        column(t, 12, f8),
        column(t, 13, b),
        column(t, 14, b),
    )
    work = Work(
        column(t, 15, i4),
        matrix(t, 16, f8),
        column(t, 17, f8),
        column(t, 18, f8),
        column(t, 19, f8),
        column(t, 20, f8),
        column(t, 21, f8),
        column(t, 22, f8),
        column(t, 23, f8),
        column(t, 24, i8),
        column(t, 25, i8),
        column(t, 26, i8),
        column(t, 27, i8),
    )
    lanes = LaneArrays(
        matrix(t, 28, f8),
        column(t, 29, f8),
        column(t, 30, f8),
        column(t, 31, f8),
        column(t, 32, i8),
        column(t, 33, i8),
        matrix(t, 34, f8),
        column(t, 35, f8),
        column(t, 36, i8),
        column(t, 37, i8),
        column(t, 38, b),
        matrix(t, 39, i8),
        column(t, 40, f8),
        column(t, 41, b),
        column(t, 42, f8),
        column(t, 43, i8),
        column(t, 44, i8),
        column(t, 45, f8),
        column(t, 46, i8),
        column(t, 47, i8),
        column(t, 48, i8),
        column(t, 49, i8),
        column(t, 50, i8),
        column(t, 51, b),
    )
    actors = ActorColumns(
        column(t, 52, b),
        column(t, 53, b),
        column(t, 54, b),
        column(t, 55, i1),
        column(t, 56, i4),
        matrix(t, 57, f8),
        matrix(t, 58, f8),
        matrix(t, 59, f8),
        matrix(t, 60, f8),
        matrix(t, 61, f8),
    )
    controls = ControlColumns(
        column(t, 62, f8),
        column(t, 63, f8),
        column(t, 64, f8),
        column(t, 65, f8),
        column(t, 66, i4),
        column(t, 67, i1),
        matrix(t, 68, f8),
        matrix(t, 69, f8),
        column(t, 70, f4),
        column(t, 71, f4),
        column(t, 72, f4),
        column(t, 73, b),
        column(t, 74, b),
        column(t, 75, b),
        column(t, 76, b),
        column(t, 77, u4),
        column(t, 78, i1),
    )
    constants = Constants(
        column(t, 79, f8),
        column(t, 80, f8),
        column(t, 81, f8),
        column(t, 82, f8),
        column(t, 83, f8),
        column(t, 84, i8),
        column(t, 85, f8),
    )
    kept = Kept(
        matrix(t, 87, i8),
        column(t, 88, f8),
        matrix(t, 89, f8),
        matrix(t, 90, i8),
        column(t, 91, i8),
        column(t, 92, f8),
        matrix(t, 93, f8),
    )
    light_state = column(t, 86, i1)
    return fleet, settings, work, lanes, actors, controls, constants, light_state, kept


@njit(cache=True)
def apply_controls(k, wheel_angle, speed, throttle, brake, controls, update_lights, light_bits):
    """Writes the controls into the vehicle table rows k: throttle, brake and the steer
    command of each front wheel angle (as float32), clears the hand brake, reverse, manual
    gear shift and Ackermann flags, and for the vehicles with `update_lights` sets their
    light bits (`controls`: ControlColumns). `light_bits`: the bits kept (all but brake and
    blinkers), the bits always on (position, low beam), brake, left and right blinker."""
    max_steer, steer_kmh, steer_factor = (
        controls.max_steer,
        controls.steer_kmh,
        controls.steer_factor,
    )
    v_throttle, v_steer, v_brake, v_lights = (
        controls.throttle,
        controls.steer,
        controls.brake,
        controls.lights,
    )
    hand_brake, reverse, manual_gear_shift, ackermann = (
        controls.hand_brake,
        controls.reverse,
        controls.manual_gear_shift,
        controls.ackermann,
    )
    n = len(k)
    most = np.empty(n)
    kmh = np.empty((n, steer_kmh.shape[1]))
    factor = np.empty((n, steer_factor.shape[1]))
    # element by element: a row view (steer_kmh[r]) costs atomic reference counts
    for i in range(n):
        r = k[i]
        most[i] = max_steer[r]
        for c in range(steer_kmh.shape[1]):
            kmh[i, c] = steer_kmh[r, c]
        for c in range(steer_factor.shape[1]):
            factor[i, c] = steer_factor[r, c]
    steer = steer_commands(wheel_angle, most, kmh, factor, speed)
    keep, on, brake_bit, left_bit, right_bit = (
        light_bits[0],
        light_bits[1],
        light_bits[2],
        light_bits[3],
        light_bits[4],
    )
    for i in range(n):
        row = k[i]
        v_throttle[row] = np.float32(throttle[i])
        v_steer[row] = np.float32(steer[i])
        v_brake[row] = np.float32(brake[i])
        hand_brake[row] = False
        reverse[row] = False
        manual_gear_shift[row] = False
        ackermann[row] = False
        if update_lights[i]:
            bits = (np.int64(v_lights[row]) & keep) | on
            if brake[i] > 0.1:
                bits |= brake_bit
            if steer[i] < -0.15:
                bits |= left_bit
            if steer[i] > 0.15:
                bits |= right_bit
            v_lights[row] = bits


@njit(cache=True)
def stuck_row(
    rows: np.ndarray, hero: np.ndarray, idle: np.ndarray, columns: tuple, limits: tuple, now: float
):
    """The actor row of the fleet's vehicle to remove now as stuck, -1 for none (the traffic
    manager's rule: world.traffic.autopilot.manager, BLOCKED_TIME); keeps `idle` (each
    vehicle's idle_since) up to date at `now` (s). `hero` marks the fleet's vehicles whose
    role is the hero's: never candidates, as CARLA leaves them out. `columns` are the actor
    table's alive, vel and vrow and the vehicle table's tl_state; `limits` the stopped speed
    (m/s), the blocked and red-blocked times (s) and the red state's code. A vehicle moves
    when its speed squared is above the stopped speed's; the one idle the longest (the
    earliest idle_since among the live ones with a time, the lowest row among equals) is
    stuck once idle the blocked time while its light state is not red, or the red-blocked
    time."""
    alive, vel, vrow, tl_state = columns
    stopped, blocked, red_blocked, red = limits
    best = -1
    for i in range(len(rows)):
        if hero[i]:
            continue
        r = rows[i]
        speed2 = vel[r, 0] * vel[r, 0] + vel[r, 1] * vel[r, 1] + vel[r, 2] * vel[r, 2]
        if now != 0.0 and (np.isnan(idle[i]) or speed2 > stopped * stopped):
            idle[i] = now
        if not alive[r] or np.isnan(idle[i]):
            continue
        if best < 0 or idle[i] < idle[best] or (idle[i] == idle[best] and r < rows[best]):
            best = i
    if best < 0:
        return -1
    row = rows[best]
    k = vrow[row]
    idle_for = now - idle[best]
    if tl_state[k] != red and idle_for >= blocked:
        return row
    return row if idle_for >= red_blocked else -1
