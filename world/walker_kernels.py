"""Compiled pair search of the AI walkers' step: which walkers' next step enters a vehicle.

The arithmetic is numpy's, element for element (no fast-math; the vehicles' cosines and
sines come from numpy), so the walkers move bit for bit as with the array version; the
loop only skips the pairs that the distance test rules out.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["blocked_pairs"]


@njit(cache=True)
def blocked_pairs(pos, unit, car_xy, car_cos, car_sin, car_ext, reach, step_ahead, radius):
    """(walker, car) index pairs, walker-major, whose walker is within `reach` of the car's
    centre and whose next step (`step_ahead` along `unit`) lands in the car's box grown by
    `radius`."""
    nw = len(pos)
    nc = len(car_xy)
    reach_sq = reach * reach
    walkers = np.empty(nw * nc, dtype=np.int64)
    cars = np.empty(nw * nc, dtype=np.int64)
    found = 0
    for w in range(nw):
        for c in range(nc):
            dx = pos[w, 0] - car_xy[c, 0]
            dy = pos[w, 1] - car_xy[c, 1]
            if not dx * dx + dy * dy < reach_sq:
                continue
            sx = pos[w, 0] + unit[w, 0] * step_ahead - car_xy[c, 0]
            sy = pos[w, 1] + unit[w, 1] * step_ahead - car_xy[c, 1]
            lx = sx * car_cos[c] + sy * car_sin[c]
            ly = -sx * car_sin[c] + sy * car_cos[c]
            if abs(lx) < car_ext[c, 0] + radius and abs(ly) < car_ext[c, 1] + radius:
                walkers[found] = w
                cars[found] = c
                found += 1
    return walkers[:found], cars[:found]
