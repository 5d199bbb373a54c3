"""The batch numpy ground query `Map.ground` used before it was compiled: the reference
the compiled query (world.map.ground_query) must match bit for bit (lengths by
world.elementary's hypot, as the query's).

All covering (point, segment) pairs at once from `SegmentGrid.covering` (and, for the points
none covers, its joins), their surface heights, a sort by (point, height descending) and the
first of each point.
"""

from __future__ import annotations

import numpy as np

from world import elementary as el

REACH = 1.0  # m: the highest surface at most this far above the point


def reference_ground(grid, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z, normal, found) under (N, 3) points from the ground grid of a map (`Map._ground()`)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    n = len(pts)
    z = np.full(n, np.nan)
    normal = np.zeros((n, 3))
    normal[:, 2] = 1.0
    found = np.zeros(n, dtype=bool)
    if not len(grid.segments) or not n:
        return z, normal, found
    owner, seg, surface, lat = _surfaces(grid, pts, np.arange(n), joins=False)
    # a point that no segment's slab covers within reach takes the joins (bends' wedges)
    bare = np.setdiff1d(np.arange(n), owner)
    more = _surfaces(grid, pts, bare, joins=True)
    owner, seg, surface, lat = (
        np.concatenate(pair) for pair in zip((owner, seg, surface, lat), more, strict=True)
    )
    sg = grid.segments
    order = np.lexsort((-surface, owner))
    owner, seg, surface, lat = owner[order], seg[order], surface[order], lat[order]
    first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]]) if len(owner) else owner
    hit = owner[first]
    forward = sg.b[seg[first]] - sg.a[seg[first]]
    nrm = np.cross(lat[first], forward)
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    nrm *= np.where(nrm[:, 2] < 0.0, -1.0, 1.0)[:, None]
    z[hit] = surface[first]
    normal[hit] = nrm
    found[hit] = True
    return z, normal, found


def _surfaces(grid, pts: np.ndarray, rows: np.ndarray, joins: bool) -> tuple:
    """(point index, segment, surface height, lateral) of the covering pairs of the points
    `rows` by the rule `joins` picks, whose surface lies within REACH above the point."""
    owner, seg, u = grid.covering(pts[rows], joins=joins)
    owner = rows[owner]
    sg = grid.segments
    centre = sg.a[seg] + u[:, None] * (sg.b[seg] - sg.a[seg])
    lat = sg.lateral[seg]
    lat_h = el.hypot_v(lat[:, 0], lat[:, 1])
    across = np.einsum("ij,ij->i", pts[owner, :2] - centre[:, :2], lat[:, :2]) / lat_h
    surface = centre[:, 2] + across * lat[:, 2] / lat_h
    ok = surface <= pts[owner, 2] + REACH
    return owner[ok], seg[ok], surface[ok], lat[ok]
