"""Compiled per-tick work of the AI walkers (world.traffic.walkers.ai) and their route search
(world.traffic.walkers.navigation).

`steer` does a tick's steering of every started walker in one call: the arrival passes
along the flat route array, the direction toward the next route point, the turn of a walker
whose next second's walk would meet another walker (to its right, along the other's circle),
the search for steps into a vehicle's box and the turn along its side, and the writes into the
walker table. `route` is the navigation's nearest-node picks and A* search.

The arithmetic is that of the numpy form these replace, operation for operation (no
fast-math; sums of squares added in numpy's order, `min`/`max` with Python's rule for
equal values), so walkers move and route bit for bit as before.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from world import elementary as el
from world.kernels.array_table import column, matrix
from world.kernels.compiled import njit
from world.physics.grid import cell_span, point_grid

__all__ = ["DEAD", "STEERED", "STEER_TABLE_KINDS", "route", "steer", "steer_table"]

NEIGHBOUR_CELL = 8.0  # m: the walkers' and vehicles' grids have cells at least this wide
STEERED = -1  # `steer` wrote every walker's control
DEAD = -2  # `steer` found a controller or walker destroyed: drop it, then call again
_F8, _F8_2, _F4, _F4_2 = (np.float64, 1), (np.float64, 2), (np.float32, 1), (np.float32, 2)
_I8, _I4, _B = (np.int64, 1), (np.int32, 1), (np.bool_, 1)
# steer_table's groups (world.kernels.array_table), as `steer` takes them: the actor table's
# alive, pos, rot, extent, vrow and wrow; the walkers' controller, walker, flat, offset,
# length, progress and speed; the walker table's direction and speed; the constants
STEER_TABLE_KINDS = (
    (_B, _F8_2, _F8_2, _F8_2, _I4, _I4),
    (_I8, _I8, _F8_2, _I8, _I8, _I8, _F8),
    (_F4_2, _F4),
    (_F8,),
)


@njit(cache=True)
def steer_table(table, n, first_pass, passes):
    """`steer` on the arrays of `table` (an ArrayTable's, of STEER_TABLE_KINDS): the AI
    walkers' tick hands over one array, not sixteen (each array handed from Python costs its
    unboxing, and each handed on to a helper inside, its reference counts)."""
    f8, f4, i8, i4 = np.float64, np.float32, np.int64, np.int32
    actors = (
        column(table, 0, np.bool_),
        matrix(table, 1, f8),
        matrix(table, 2, f8),
        matrix(table, 3, f8),
        column(table, 4, i4),
        column(table, 5, i4),
    )
    walkers = (
        column(table, 6, i8),
        column(table, 7, i8),
        matrix(table, 8, f8),
        column(table, 9, i8),
        column(table, 10, i8),
        column(table, 11, i8),
        column(table, 12, f8),
    )
    outputs = (matrix(table, 13, f4), column(table, 14, f4))
    return steer(actors, n, walkers, outputs, first_pass, passes, column(table, 15, f8))


@njit(cache=True)
def steer(actors, n, walkers, outputs, first_pass, passes, c):
    """Steers the walkers (actor rows `walker`, routes `flat[offset:offset+length]`) and
    writes their WalkerControl (table rows `wrow[walker]`).

    `actors`: the actor table's alive, pos, rot, extent, vrow and wrow (the first `n` rows
    in use); `walkers`: the started walkers' controller and walker rows, their flat routes
    (flat, offset, length), progress (written) and speed; `outputs`: the walker table's
    direction and speed columns; `c`: ai.WALKER_CONSTANTS (arrive radius, vehicle reach,
    step ahead, walker radius, look-ahead, margin). Arrival passes `first_pass`..`passes`-1:
    a walker within the arrive radius of its route point moves on to the next (`progress`,
    in place). Returns STEERED when done, DEAD (only when first_pass is 0) if a controller
    or walker is not alive, or the pass at which a walker is past its route's end: give it
    a new route and call again from that pass. Walkers turn around each other (look-ahead s,
    circles of 2 radius + margin) before they turn along vehicles' sides.
    """
    alive, pos, rot, extent, vrow, wrow = actors
    controller, walker, flat, offset, length, progress, speed = walkers
    direction_out, speed_out = outputs
    arrive_radius, reach, step_ahead, radius, look_ahead, margin = (
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        c[5],
    )
    m = len(walker)
    if first_pass == 0:
        for i in range(m):
            if not (alive[controller[i]] and alive[walker[i]]):
                return DEAD
    for p in range(first_pass, passes):
        for i in range(m):
            if progress[i] >= length[i]:
                return p
        moved = False
        for i in range(m):
            at = offset[i] + min(progress[i], length[i] - 1)
            row = walker[i]
            near = el.hypot(flat[at, 0] - pos[row, 0], flat[at, 1] - pos[row, 1])
            if near < arrive_radius:
                progress[i] += 1
                moved = True
        if not moved:
            break
    unit = np.empty((m, 2))
    walks = np.empty(m, dtype=np.bool_)
    for i in range(m):
        at = offset[i] + min(progress[i], length[i] - 1)
        row = walker[i]
        dx = flat[at, 0] - pos[row, 0]
        dy = flat[at, 1] - pos[row, 1]
        norm = math.sqrt(dx * dx + dy * dy + 0.0)
        walks[i] = norm > 0.0
        scale = norm if norm > 0.0 else 1.0
        unit[i, 0] = dx / scale
        unit[i, 1] = dy / scale
    out = unit.copy()
    _around_walkers(pos, walker, unit, walks, speed, out, look_ahead, 2.0 * radius + margin)
    _around_vehicles(alive, pos, rot, extent, vrow, n, walker, unit, out, reach, step_ahead, radius)
    for i in range(m):
        k = wrow[walker[i]]
        direction_out[k, 0] = np.float32(out[i, 0])
        direction_out[k, 1] = np.float32(out[i, 1])
        direction_out[k, 2] = np.float32(0.0)
        speed_out[k] = np.float32(speed[i] if walks[i] else 0.0)
    return STEERED


@njit(cache=True)
def _around_walkers(pos, walker, unit, walks, speed, out, look_ahead, clearance):
    """Walkers whose walk over the next `look_ahead` seconds, relative to another walker ahead
    (positive dot product with `out`) walking toward its own route point, passes within
    `clearance` of it turn `out` to the right tangent of that circle (right is +90 degrees
    yaw), unless `out` already points right of it; pair by pair in walker order, each check
    with the direction the earlier pairs left."""
    m = len(walker)
    x, y = np.empty(m), np.empty(m)
    fastest = 0.0
    for i in range(m):
        x[i], y[i] = pos[walker[i], 0], pos[walker[i], 1]
        if walks[i]:
            fastest = max(fastest, speed[i])
    near = 2.0 * fastest * look_ahead + clearance  # no pair farther apart on x or y can meet
    frame, first, items = point_grid(x, y, m, NEIGHBOUR_CELL)
    found = np.empty(m, dtype=np.int64)
    for i in range(m):
        if not walks[i]:
            continue
        # the walkers within `near` on x and y (the grid's cells around), in walker order
        count = _near_items(frame, first, items, x, y, x[i], y[i], near, found)
        for f in range(count):
            j = found[f]
            bx = x[j] - x[i]
            by = y[j] - y[i]
            if j == i or abs(bx) > near or abs(by) > near:
                continue
            if not bx * out[i, 0] + by * out[i, 1] > 0.0:
                continue
            other = speed[j] if walks[j] else 0.0
            rx = (out[i, 0] * speed[i] - unit[j, 0] * other) * look_ahead
            ry = (out[i, 1] * speed[i] - unit[j, 1] * other) * look_ahead
            span = rx * rx + ry * ry
            t = (bx * rx + by * ry) / span if span > 0.0 else 0.0
            t = min(max(t, 0.0), 1.0)
            cx, cy = bx - t * rx, by - t * ry
            if not cx * cx + cy * cy < clearance * clearance:
                continue
            gap = math.sqrt(bx * bx + by * by)
            angle = el.asin(clearance / gap) if gap > clearance else 0.5 * math.pi
            sin, cos = el.sin_cos(angle)
            tx = (bx * cos - by * sin) / gap
            ty = (bx * sin + by * cos) / gap
            if out[i, 0] * ty - out[i, 1] * tx > 0.0:
                out[i, 0], out[i, 1] = tx, ty


@njit(cache=True)
def _around_vehicles(
    alive, pos, rot, extent, vrow, n, walker, unit, out, reach, step_ahead, radius
):
    """Walkers whose next step (`step_ahead` along `unit`) lands in a vehicle's box grown by
    `radius` (vehicles within `reach` of the walker) turn `out` along the box's side, pair by
    pair in walker then vehicle order, so they never push it."""
    cars = np.empty(n, dtype=np.int64)
    count = 0
    for c in range(n):
        if alive[c] and vrow[c] >= 0:
            cars[count] = c
            count += 1
    car_x, car_y = np.empty(count), np.empty(count)
    for j in range(count):
        car_x[j], car_y[j] = pos[cars[j], 0], pos[cars[j], 1]
    frame, first, items = point_grid(car_x, car_y, count, NEIGHBOUR_CELL)
    found = np.empty(count, dtype=np.int64)
    reach_sq = reach * reach
    for i in range(len(walker)):
        wx, wy = pos[walker[i], 0], pos[walker[i], 1]
        # the vehicles within `reach` on x and y (the grid's cells around), in vehicle order
        near = _near_items(frame, first, items, car_x, car_y, wx, wy, reach, found)
        for f in range(near):
            j = found[f]
            dx = wx - car_x[j]
            dy = wy - car_y[j]
            if not dx * dx + dy * dy < reach_sq:
                continue
            c = cars[j]
            yaw = np.radians(rot[c, 1])
            sin, cos = el.sin_cos(yaw)
            sx = wx + unit[i, 0] * step_ahead - pos[c, 0]
            sy = wy + unit[i, 1] * step_ahead - pos[c, 1]
            lx = sx * cos + sy * sin
            ly = -sx * sin + sy * cos
            if not (abs(lx) < extent[c, 0] + radius and abs(ly) < extent[c, 1] + radius):
                continue
            gap = math.sqrt(dx * dx + dy * dy)
            gap = 1e-9 if gap < 1e-9 else gap
            ax, ay = dx / gap, dy / gap
            toward = out[i, 0] * ax + out[i, 1] * ay
            toward = 0.0 if toward > 0.0 else toward
            lx, ly = out[i, 0] - toward * ax, out[i, 1] - toward * ay
            if math.sqrt(lx * lx + ly * ly) < 0.2:
                lx, ly = -ay, ax
            size = math.sqrt(lx * lx + ly * ly)
            out[i, 0], out[i, 1] = lx / size, ly / size


@njit(cache=True)
def _near_items(frame, first, items, x, y, at_x, at_y, near, found):
    """Writes into `found` the items of a point grid (world.physics.grid) within `near` of
    (at_x, at_y) on x and on y, ascending, and returns how many: those of the cells around,
    sorted (a scan of every item in index order meets them in that order)."""
    i0, i1 = cell_span(frame[0], frame[2], frame[3], at_x - near, at_x + near)
    j0, j1 = cell_span(frame[1], frame[2], frame[4], at_y - near, at_y + near)
    ny = int(frame[4])
    count = 0
    for i in range(i0, i1 + 1):
        for j in range(j0, j1 + 1):
            cell = i * ny + j
            for q in range(first[cell], first[cell + 1]):
                k = items[q]
                if abs(x[k] - at_x) <= near and abs(y[k] - at_y) <= near:
                    found[count] = k
                    count += 1
    found[:count].sort()
    return count


@njit(cache=True)
def _nearest(points, x, y, lane_of, component, among):
    """The first node nearest (x, y) among: every node (among == -1), sidewalk nodes
    (among == -2) or the nodes of component `among`."""
    best, best_gap = -1, np.inf
    for j in range(len(points)):
        if among == -2 and lane_of[j] < 0:
            continue
        if among >= 0 and component[j] != among:
            continue
        dx, dy = points[j, 0] - x, points[j, 1] - y
        gap = math.sqrt(dx * dx + dy * dy)
        if gap < best_gap:
            best, best_gap = j, gap
    return best


@njit(cache=True)
def route(points, lane_of, component, first_edge, edge_to, edge_crossing, start, goal, cross):
    """Nodes from the sidewalk node nearest `start` to the node nearest `goal` (within the
    start's component unless `cross`): A* by planar distance over the edges (node j's are
    edge_to[first_edge[j]:first_edge[j + 1]], ascending), crossing edges only if `cross`;
    the heap orders by (estimate, node). Just the start node when the goal is unreachable."""
    a = _nearest(points, start[0], start[1], lane_of, component, -2)
    b = _nearest(points, goal[0], goal[1], lane_of, component, -1 if cross else component[a])
    gx, gy = points[b, 0], points[b, 1]
    best = np.full(len(points), np.inf)
    came = np.full(len(points), -1, dtype=np.int64)
    done = np.zeros(len(points), dtype=np.bool_)
    best[a] = 0.0
    dx, dy = points[a, 0] - gx, points[a, 1] - gy
    heap = [(math.sqrt(dx * dx + dy * dy), a)]
    while heap:
        node = heapq.heappop(heap)[1]
        if node == b:
            break
        if done[node]:
            continue
        done[node] = True
        for e in range(first_edge[node], first_edge[node + 1]):
            if edge_crossing[e] and not cross:
                continue
            other = edge_to[e]
            dx, dy = points[other, 0] - points[node, 0], points[other, 1] - points[node, 1]
            cost = best[node] + math.sqrt(dx * dx + dy * dy)
            if cost < best[other]:
                best[other] = cost
                came[other] = node
                dx, dy = points[other, 0] - gx, points[other, 1] - gy
                heapq.heappush(heap, (cost + math.sqrt(dx * dx + dy * dy), other))
    if best[b] == np.inf:
        return np.array([a], dtype=np.int64)
    count = 1
    node = b
    while node != a:
        node = came[node]
        count += 1
    path = np.empty(count, dtype=np.int64)
    node = b
    for k in range(count - 1, -1, -1):
        path[k] = node
        node = came[node]
    return path
