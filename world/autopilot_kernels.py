"""Compiled loops of the autopilot's tick: route starts, path sampling, localisation, the
obstacle search, the speed targets and control, and the writing of the controls.

Each kernel does, element for element, the arithmetic of the numpy expression it replaces
(the same operations in the same order, no fast-math), so the controls come out bit for bit
the same; it only skips the temporary arrays and the pairs that a cheaper test already
rules out. Trigonometry stays in numpy (the callers pass cosines and sines), so no libm
difference can creep in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from world.autopilot_control import _clip, longitudinal

__all__ = [
    "body_arrays",
    "fleet_rows",
    "junction_stops",
    "locate_on_paths",
    "obstacle_distances",
    "past_path_ends",
    "route_starts",
    "sample_paths",
    "sample_routes",
    "speed_controls",
    "speed_targets",
    "vehicle_columns",
    "write_controls",
]


@njit(cache=True, inline="always")
def _last_at_most(values, x, lo, hi):
    """The last index in [lo, hi) whose value is <= x, lo - 1 if none (values non-decreasing):
    numpy's searchsorted(values[lo:hi], x, side="right") - 1 + lo."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True)
def sample_paths(points, cum, base, length, first, count, path, dist):
    """LanePaths.at for flat arrays of paths and distances: points (K, 3), tangents (K, 2)."""
    k = len(path)
    pt = np.empty((k, 3))
    tan = np.empty((k, 2))
    for o in range(k):
        p = path[o]
        d = dist[o]
        if d < 0.0:
            d = 0.0
        if d > length[p]:
            d = length[p]
        g = base[p] + d
        lo = first[p]
        hi = lo + count[p] - 1
        # g >= cum[lo], so searching the path's own points gives the clipped global answer
        i = _last_at_most(cum, g, lo, hi + 1)
        top = hi - 1 if hi - 1 > lo else lo
        if i < lo:
            i = lo
        if i > top:
            i = top
        j = i + 1 if i + 1 < hi else hi
        span = cum[j] - cum[i]
        u = (g - cum[i]) / span if span > 0.0 else 0.0
        for c in range(3):
            pt[o, c] = points[i, c] + u * (points[j, c] - points[i, c])
        tx = points[j, 0] - points[i, 0]
        ty = points[j, 1] - points[i, 1]
        norm = np.sqrt(tx * tx + ty * ty)
        if norm > 0.0:
            tan[o, 0] = tx / norm
            tan[o, 1] = ty / norm
        else:
            tan[o, 0] = 1.0
            tan[o, 1] = 0.0
    return pt, tan


@njit(cache=True)
def sample_routes(points, cum, base, length, first, count, route, start, d):
    """Points (N, M, 3) and tangents (N, M, 2) at distances d (N, M) along each route, whose
    paths begin at `start` (N, R) metres from the vehicle (inf for empty slots)."""
    n, m = d.shape
    slots = route.shape[1]
    path = np.empty(n * m, dtype=np.int64)
    local = np.empty(n * m)
    for v in range(n):
        for s in range(m):
            x = d[v, s]
            slot = 0
            for r in range(1, slots):
                if start[v, r] <= x:
                    slot += 1
            path[v * m + s] = route[v, slot]
            local[v * m + s] = x - start[v, slot]
    pt, tan = sample_paths(points, cum, base, length, first, count, path, local)
    return pt.reshape((n, m, 3)), tan.reshape((n, m, 2))


@njit(cache=True)
def locate_on_paths(points, cum, base, first, count, path, near, xy, window):
    """LanePaths.locate: arc and lateral distance of each point on its path, searching the
    segments around the arc `near`."""
    n = len(path)
    arc = np.empty(n)
    lateral = np.empty(n)
    for v in range(n):
        p = path[v]
        lo = first[p]
        hi = lo + count[p] - 2
        top = hi if hi > lo else lo
        centre = _last_at_most(cum, base[p] + near[v], 0, len(cum))
        best = np.inf
        best_k = lo
        best_u = 0.0
        for off in range((-window) // 2, window + 1):
            i = centre + off
            if i < lo:
                i = lo
            if i > top:
                i = top
            j = i + 1 if i + 1 < hi + 1 else hi + 1
            ax, ay = points[i, 0], points[i, 1]
            abx, aby = points[j, 0] - ax, points[j, 1] - ay
            apx, apy = xy[v, 0] - ax, xy[v, 1] - ay
            den = abx * abx + aby * aby
            u = (apx * abx + apy * aby) / (den if den > 0 else 1.0)
            if u < 0.0:
                u = 0.0
            if u > 1.0:
                u = 1.0
            fx = xy[v, 0] - (ax + u * abx)
            fy = xy[v, 1] - (ay + u * aby)
            dist = np.sqrt(fx * fx + fy * fy)
            if dist < best:
                best, best_k, best_u = dist, i, u
        k1 = best_k + 1 if best_k + 1 < hi + 1 else hi + 1
        arc[v] = cum[best_k] + best_u * (cum[k1] - cum[best_k]) - base[p]
        lateral[v] = best
    return arc, lateral


@njit(cache=True)
def obstacle_distances(
    rows,
    row_xy,
    row_cos,
    row_sin,
    half_width,
    ignore_vehicles,
    ignore_walkers,
    bodies,
    body_xy,
    body_cos,
    body_sin,
    body_is_vehicle,
    body_is_walker,
    box_x,
    body_ext,
    crossing,
    pts,
    tangents,
    d,
    behind_reach,
    coarse_stride,
    coarse_reach,
    path_margin,
):
    """Distance along each vehicle's sampled path to the first body whose footprint, grown by
    the vehicle's half width (plus margin) across the path, covers it; inf when none.
    `crossing` (N, B) marks pairs to skip (empty when no vehicle pushes on)."""
    n, m = d.shape
    out = np.full(n, np.inf)
    use_crossing = crossing.shape[0] > 0
    coarse_sq = coarse_reach * coarse_reach
    # a body passing the coarse test lies within coarse_reach of a coarse sample in x and in
    # y, so only bodies in the samples' box grown by that much (and a rounding margin) are
    # visited: by x through the bodies sorted on x, then by y
    box = coarse_reach + 0.01
    order = np.argsort(body_xy[:, 0])
    xs = body_xy[order, 0]
    for v in range(n):
        reach = d[v, m - 1] + 6.0
        reach_sq = reach * reach
        grow = half_width[v] + path_margin
        x0 = y0 = np.inf
        x1 = y1 = -np.inf
        for s in range(0, m, coarse_stride):
            x0, x1 = min(x0, pts[v, s, 0]), max(x1, pts[v, s, 0])
            y0, y1 = min(y0, pts[v, s, 1]), max(y1, pts[v, s, 1])
        first = np.searchsorted(xs, x0 - box)
        last = np.searchsorted(xs, x1 + box, side="right")
        for o in range(first, last):
            b = order[o]
            if body_xy[b, 1] < y0 - box or body_xy[b, 1] > y1 + box:
                continue
            if bodies[b] == rows[v]:
                continue
            dx = body_xy[b, 0] - row_xy[v, 0]
            dy = body_xy[b, 1] - row_xy[v, 1]
            if not dx * dx + dy * dy < reach_sq:
                continue
            if not dx * row_cos[v] + dy * row_sin[v] > -behind_reach:
                continue
            if ignore_vehicles[v] and body_is_vehicle[b]:
                continue
            if ignore_walkers[v] and body_is_walker[b]:
                continue
            if use_crossing and crossing[v, b]:
                continue
            near = False
            for s in range(0, m, coarse_stride):
                cx = pts[v, s, 0] - body_xy[b, 0]
                cy = pts[v, s, 1] - body_xy[b, 1]
                if cx * cx + cy * cy < coarse_sq:
                    near = True
                    break
            if not near:
                continue
            c, sn = body_cos[b], body_sin[b]
            ox0 = body_xy[b, 0] + c * box_x[b]
            oy0 = body_xy[b, 1] + sn * box_x[b]
            prev_gap = 0.0
            for s in range(m):
                rx = pts[v, s, 0] - ox0
                ry = pts[v, s, 1] - oy0
                lx = rx * c + ry * sn
                ly = -rx * sn + ry * c
                t0, t1 = tangents[v, s, 0], tangents[v, s, 1]
                across_x = abs(-t1 * c + t0 * sn)
                across_y = abs(t1 * sn + t0 * c)
                hx = body_ext[b, 0] + grow * across_x
                hy = body_ext[b, 1] + grow * across_y
                ox = abs(lx) - hx
                oy = abs(ly) - hy
                if ox <= 0.0 and oy <= 0.0:
                    gap = ox if ox > oy else oy
                else:
                    gap = np.hypot(ox if ox > 0.0 else 0.0, oy if oy > 0.0 else 0.0)
                if gap <= 0.0:
                    at = d[v, s]
                    if s > 0:
                        frac = prev_gap / (prev_gap - gap) if prev_gap > gap else 1.0
                        at = d[v, s - 1] + frac * (at - d[v, s - 1])
                    if at < out[v]:
                        out[v] = at
                    break
                prev_gap = gap
    return out


@njit(cache=True)
def junction_stops(
    route,
    start,
    route_end,
    path_junction,
    path_light,
    path_give_way,
    conflicts,
    light_state,
    front,
    speed,
    target,
    ignore_lights,
    ignore_signs,
    sign_actor,
    sign_state,
    c,
):
    """The stop point (m ahead of the centre), its reason, the crawl-capped target speed and
    whether the vehicle is inside a junction
    for each vehicle, from its route's end, the light and sign before its next junction entry
    and the vehicles it yields to there (AutopilotFleet.tick explains the rules). `front` is
    the half length; `light_state` is empty without traffic lights; `c` holds the constants
    (see autopilot.JUNCTION_CONSTANTS)."""
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
            if is_red and not ignore_lights[v] and front_to_entry > -front[v]:
                held[v] = True
                stop[v] = min(stop[v], front_to_entry - stop_line)
                reason[v] = 2
        sign = approach_path >= 0 and path_give_way[approach_path]
        if sign and not ignore_signs[v] and not inside[v]:
            room = d_entry[v] - sign_zone
            crawl = np.sqrt(crawl_speed * crawl_speed + 2.0 * comfort * max(room, 0.0))
            target[v] = min(target[v], crawl)
        if sign_actor[v] < 0 and sign_state[v] != green and not ignore_signs[v] and not inside[v]:
            stop[v] = min(stop[v], 0.0)
            reason[v] = 3
            held[v] = True
        near[v] = entry_path[v] >= 0 and not inside[v] and d_entry[v] < approach
    for v in range(n):
        if not near[v]:
            continue
        gives_way = False
        key = d_entry[v] + 1e-6 * v
        for u in range(n):
            if inside[u] and conflicts[entry_path[v], route[u, 0]]:
                gives_way = True
                break
            first = near[u] and not held[u] and d_entry[u] + 1e-6 * u < key
            if first and conflicts[entry_path[v], entry_path[u]]:
                gives_way = True
                break
        line = d_entry[v] - front[v] - stop_line
        if gives_way and line < stop[v]:
            stop[v] = line
            reason[v] = 4
    return stop, reason, target, inside


@njit(cache=True)
def curve_speed_cap(heading, d, front, target, lateral_accel, comfort, step):
    """Each target speed capped so that the vehicle can brake at `comfort` to the speed that
    every curve of its sampled path allows at `lateral_accel`. `heading` (N, M) is the raw
    path heading in radians, unwrapped here exactly as numpy.unwrap does (the wrapped steps
    corrected, the corrections summed along the path)."""
    n, m = heading.shape
    out = target.copy()
    period = 2.0 * np.pi
    for v in range(n):
        correction = 0.0
        before = heading[v, 0]
        best = np.inf
        for s in range(1, m):
            dd = heading[v, s] - heading[v, s - 1]
            ddmod = (dd + np.pi) % period + -np.pi
            if ddmod == -np.pi and dd > 0.0:
                ddmod = np.pi
            fix = ddmod - dd
            if abs(dd) < np.pi:
                fix = 0.0
            correction += fix
            now = heading[v, s] + correction
            curvature = abs(now - before) / step
            before = now
            v_curve = np.sqrt(lateral_accel / max(curvature, 1e-4))
            ahead = max(d[v, s - 1] - front[v], 0.0)
            cap = np.sqrt(v_curve * v_curve + 2.0 * comfort * ahead)
            if cap < best:
                best = cap
        if best < out[v]:
            out[v] = best
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
def write_controls(k, throttle, steer, brake, v_throttle, v_steer, v_brake, v_flags):
    """Writes the controls into the vehicle table rows k (as float32) and clears the hand
    brake, reverse, manual gear shift and Ackermann flags (`v_flags`, four bool columns)."""
    for i in range(len(k)):
        row = k[i]
        v_throttle[row] = np.float32(throttle[i])
        v_steer[row] = np.float32(steer[i])
        v_brake[row] = np.float32(brake[i])
        for flag in v_flags:
            flag[row] = False


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
def body_arrays(alive, body, static_collider, m, pos, rot, kind, box_loc, extent, vehicle, walker):
    """The first m actor rows that are alive bodies or props, in row order, for the obstacle
    search: rows, x y (B, 2), yaw (degrees), is-vehicle and is-walker flags, box centre x in
    the actor's frame, half extents x y (B, 2)."""
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
    return rows, xy, yaw, is_vehicle, is_walker, box_x, ext


@njit(cache=True)
def fleet_rows(rows, vrow, pos, rot, vel, extent):
    """The actor table's columns the tick reads for the vehicles at `rows`: vehicle rows,
    positions (N, 3), yaws (degrees), velocity x and y, half lengths and half widths."""
    n = len(rows)
    k = np.empty(n, dtype=vrow.dtype)
    xyz = np.empty((n, 3))
    yaw = np.empty(n)
    vx = np.empty(n)
    vy = np.empty(n)
    front = np.empty(n)
    half_width = np.empty(n)
    for v in range(n):
        r = rows[v]
        k[v] = vrow[r]
        for c in range(3):
            xyz[v, c] = pos[r, c]
        yaw[v] = rot[r, 1]
        vx[v] = vel[r, 0]
        vy[v] = vel[r, 1]
        front[v] = extent[r, 0]
        half_width[v] = extent[r, 1]
    return k, xyz, yaw, vx, vy, front, half_width


@njit(cache=True)
def vehicle_columns(k, wheelbase, cg_front, max_steer, speed_limit, tl_actor, tl_state):
    """The vehicle table's scalar columns the tick reads for vehicle rows k: wheelbase, rear
    axle to centre of gravity (wheelbase less CG to front axle), maximum steer angle, speed
    limit, affecting light's row and state."""
    n = len(k)
    base = np.empty(n)
    rear = np.empty(n)
    steer = np.empty(n)
    limit = np.empty(n)
    light = np.empty(n, dtype=tl_actor.dtype)
    state = np.empty(n, dtype=tl_state.dtype)
    for v in range(n):
        r = k[v]
        base[v] = wheelbase[r]
        rear[v] = wheelbase[r] - cg_front[r]
        steer[v] = max_steer[r]
        limit[v] = speed_limit[r]
        light[v] = tl_actor[r]
        state[v] = tl_state[r]
    return base, rear, steer, limit, light, state
