"""The autopilot's tick when vehicles pass the end of their lane path, in compiled calls.

About one tick in four at 100 vehicles has a vehicle past its path's end (tick_fleet then
returns before planning). Its route moves on one slot, Python extends it (a junction exit
is drawn from the vehicle's numpy Generator, which no kernel reproduces bit for bit) and
draws its ignore chances, and it is located on its new path; again while it is past that
path's end too, at most ROUTE_SLOTS - 1 times. The arithmetic around the Python step is
here, on tick_fleet's table (world.kernels.array_table), so such a tick takes two compiled
calls besides tick_fleet's instead of a dozen numpy calls: `shift_routes` before the Python
step, `settle_routes` after it (it also plans, when no vehicle needs Python again). The same
operations in the same order as the numpy expressions they replace (AutopilotFleet's
`_move_on` before), so the same bits.
"""

from __future__ import annotations

import numpy as np

from world.kernels.compiled import njit
from world.traffic.autopilot.kernels import (
    _fleet_groups,
    locate_on_paths,
    past_path_ends,
    tick_fleet,
)

__all__ = ["settle_routes", "shift_routes"]

LOCATE_WINDOW = 6  # path segments searched around the arc (LanePaths.locate's default)


@njit(cache=True)
def shift_routes(table, moved):
    """The vehicles work.past[:moved] leave their path: their arc less the path's length,
    their route one slot on (the last slot -1), for Python to extend."""
    fleet, _, work, lanes, _, _, _, _, _ = _fleet_groups(table)
    _shift(fleet.route, fleet.arc, lanes.length, work.past, moved)


@njit(cache=True, inline="always")
def _shift(route, arc, length, past, moved):
    slots = route.shape[1]
    for m in range(moved):
        v = past[m]
        arc[v] -= length[route[v, 0]]
        for r in range(slots - 1):
            route[v, r] = route[v, r + 1]
        route[v, slots - 1] = -1


@njit(cache=True)
def settle_routes(table, moved, more, n_actors, dt, global_pct, global_lead, window, lost):
    """After Python extended the routes of work.past[:moved] (shift_routes): locates each on
    its new path from its arc (at least 0) and its position, then
    - with `more`, when vehicles are past their path's end (past_path_ends), shifts their
      routes (work.past) and returns (their count, 0, -1): Python extends them and calls again;
    - when vehicles are more than `lost` m off their path, returns (0, their count, -1) with
      them in work.past, ascending: Python locates them from the map, then plans;
    - else plans (tick_fleet without localisation) and returns (0, 0, its lane changes)."""
    fleet, _, work, lanes, _, _, _, _, _ = _fleet_groups(table)
    route, arc, past = fleet.route, fleet.arc, work.past
    if moved:
        path = np.empty(moved, dtype=np.int64)
        near = np.empty(moved)
        xy = np.empty((moved, 2))
        for m in range(moved):
            v = past[m]
            path[m] = route[v, 0]
            near[m] = 0.0 if arc[v] < 0.0 else arc[v]  # np.maximum's: NaN stays
            xy[m, 0] = work.pos[v, 0]
            xy[m, 1] = work.pos[v, 1]
        found, lateral = locate_on_paths(
            lanes.points, lanes.cum, lanes.base, lanes.first, lanes.count, path, near, xy,
            LOCATE_WINDOW, np.full(moved, -1, dtype=np.int64),
        )  # fmt: skip
        for m in range(moved):
            v = past[m]
            arc[v] = found[m]
            work.lateral[v] = lateral[m]
    if more:
        ends = past_path_ends(route, arc, lanes.length)
        if len(ends):
            past[: len(ends)] = ends
            _shift(route, arc, lanes.length, past, len(ends))
            return len(ends), 0, -1
    off = 0
    for v in range(len(work.lateral)):
        if work.lateral[v] > lost:
            past[off] = v
            off += 1
    if off:
        return 0, off, -1
    changes = tick_fleet(table, n_actors, dt, global_pct, global_lead, window, lost, False)[3]
    return 0, 0, changes
