"""Collisions of vehicle and walker boxes with each other and with static props, in 2.5D.

Boxes turn with their actor's yaw only (pitch and roll are small on roads) and
overlap when their footprints overlap (separating axes of two rectangles) and
their z ranges overlap. The broad phase sorts the boxes' x ranges and sweeps,
once per tick; the narrow phase and the response run after every substep over
the candidate pairs, testing each pair's four axes. Both are loops compiled with
numba (no fastmath: IEEE float64). The response is deterministic: each pair is
pushed apart along the axis of least penetration (mass-weighted, props do not
move; at most SEPARATION_SPEED times the substep a substep) and, when approaching,
exchanges an impulse along that normal with restitution RESTITUTION, pair after
pair from the velocities the pairs before left, so momentum is kept and no kinetic
energy is made. Pairs are handled in (row, row) order and their pushes summed in
that order, so the result does not depend on anything but the state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.geometry import Vector3D
from world.kernels.compiled import njit
from world.physics.grid import box_grid, cell_span

__all__ = [
    "RESTITUTION",
    "SEPARATION_SPEED",
    "CollisionEvent",
    "Footprints",
    "candidate_pairs",
    "contact_candidates",
    "footprints",
    "overlaps_any",
    "resolve",
]

DEG_TO_RAD = math.pi / 180.0  # as numpy's radians

RESTITUTION = 0.2
# m/s: overlapping boxes are pushed apart at most this fast (chosen: the usual default of
# PhysX-based engines' maximum depenetration velocity, e.g. Unity's 10 m/s), so a body found
# deep inside another is not thrown out in one substep
SEPARATION_SPEED = 10.0
BROAD_PHASE_CELL = 16.0  # m: the broad phase's grid cells are at least this wide


@dataclass(frozen=True, slots=True)
class CollisionEvent:
    """Two actors whose boxes touched during a tick; `normal_impulse` (N·s) is what actor_id got."""

    frame: int
    actor_id: int
    other_id: int
    normal_impulse: Vector3D


@dataclass(slots=True)
class Footprints:
    """Boxes in the world: centre (N,2), unit axes (N,2) each, half extents, z range."""

    centre: np.ndarray
    axis_x: np.ndarray
    axis_y: np.ndarray
    half: np.ndarray  # (N, 2)
    z_low: np.ndarray
    z_high: np.ndarray


@njit(cache=True)
def _footprint_rows(pos, yaw_deg, extent, box_loc, rows) -> np.ndarray:
    """The boxes of `rows` as (N, 8): centre x, y, cos, sin of the yaw, half extents, z range.
    Scalars only in the loop (a row view or an array handed to a helper costs two atomic
    reference counts per row)."""
    out = np.empty((len(rows), 8))
    for m in range(len(rows)):
        r = rows[m]
        s, c = el.sin_cos(yaw_deg[r] * DEG_TO_RAD)
        out[m, 0] = pos[r, 0] + c * box_loc[r, 0] + -s * box_loc[r, 1]
        out[m, 1] = pos[r, 1] + s * box_loc[r, 0] + c * box_loc[r, 1]
        out[m, 2], out[m, 3] = c, s
        out[m, 4], out[m, 5] = extent[r, 0], extent[r, 1]
        zc = pos[r, 2] + box_loc[r, 2]
        out[m, 6], out[m, 7] = zc - extent[r, 2], zc + extent[r, 2]
    return out


def footprints(
    pos: np.ndarray, yaw_deg: np.ndarray, extent: np.ndarray, box_loc: np.ndarray
) -> Footprints:
    """The boxes of actors at `pos` turned by `yaw_deg`, boxes given in the actors' frames."""
    pos, extent, box_loc = (
        np.ascontiguousarray(x, dtype=np.float64) for x in (pos, extent, box_loc)
    )
    yaw = np.ascontiguousarray(yaw_deg, dtype=np.float64)
    b = _footprint_rows(pos, yaw, extent, box_loc, np.arange(len(pos)))
    c, s = b[:, 2], b[:, 3]
    return Footprints(
        b[:, :2], np.stack([c, s], axis=1), np.stack([-s, c], axis=1), b[:, 4:6], b[:, 6], b[:, 7]
    )


@njit(cache=True)
def candidate_pairs(boxes: np.ndarray, margin: np.ndarray) -> tuple:
    """Index pairs (i < j), sorted, of boxes (rows of `_footprint_rows`) whose axis-aligned
    bounds, grown by `margin` (each box's), overlap (closed intervals in x, y and z).

    A uniform grid of the bounds (world.physics.grid.box_grid, each box in every cell it
    overlaps) gives each pair to test in the cells both boxes share; a pair that overlaps is
    kept in one cell only, the one holding the low corner of the overlap, so each comes
    once. Per box the work is the few boxes of its cells, not every box of the world as a
    sweep along x was (the cars of one north-south street all share an x range)."""
    n = len(boxes)
    lo, hi = np.empty((n, 3)), np.empty((n, 3))
    for m in range(n):
        c, s, hx, hy = abs(boxes[m, 2]), abs(boxes[m, 3]), boxes[m, 4], boxes[m, 5]
        half_x = hx * c + hy * s + margin[m]
        half_y = hx * s + hy * c + margin[m]
        lo[m, 0], hi[m, 0] = boxes[m, 0] - half_x, boxes[m, 0] + half_x
        lo[m, 1], hi[m, 1] = boxes[m, 1] - half_y, boxes[m, 1] + half_y
        lo[m, 2], hi[m, 2] = boxes[m, 6] - margin[m], boxes[m, 7] + margin[m]
    frame, first, items = box_grid(lo, hi, BROAD_PHASE_CELL)
    x0, y0, side, nx, ny = frame[0], frame[1], frame[2], frame[3], int(frame[4])
    keys = []
    for cell in range(len(first) - 1):
        for p in range(first[cell], first[cell + 1]):
            a = items[p]
            for q in range(p + 1, first[cell + 1]):
                b = items[q]
                if not (lo[a, 0] <= hi[b, 0] and lo[b, 0] <= hi[a, 0]):
                    continue
                if not (lo[a, 1] <= hi[b, 1] and lo[b, 1] <= hi[a, 1]):
                    continue
                if not (lo[a, 2] <= hi[b, 2] and lo[b, 2] <= hi[a, 2]):
                    continue
                corner_x, corner_y = max(lo[a, 0], lo[b, 0]), max(lo[a, 1], lo[b, 1])
                i0, _ = cell_span(x0, side, nx, corner_x, corner_x)
                j0, _ = cell_span(y0, side, ny, corner_y, corner_y)
                if i0 * ny + j0 == cell:
                    keys.append(a * n + b)  # a < b: items ascend within a cell
    ordered = np.sort(np.array(keys, dtype=np.int64))
    return ordered // n, ordered % n


@njit(cache=True)
def contact_candidates(
    colliders: np.ndarray,
    moving: np.ndarray,
    mass: np.ndarray,
    vel: np.ndarray,
    force: np.ndarray,
    walk_speed: np.ndarray,
    pos: np.ndarray,
    rot: np.ndarray,
    extent: np.ndarray,
    box_loc: np.ndarray,
    max_acceleration: float,
    dt: float,
) -> tuple:
    """The broad phase of a tick: the candidate pairs among actor rows `colliders`.

    Each box grows by how far its body can travel in the tick (its speed, `walk_speed`
    (a walker's control speed), `max_acceleration` and its pushing force); pairs without a
    moving body are dropped. Returns the rows involved, the pairs as indices into them (by
    (i, j)) and their inverse masses (0 for what does not move)."""
    n = len(colliders)
    margin = np.zeros(n)
    for m in range(n):
        r = colliders[m]
        if moving[m]:
            body_mass = max(mass[r], 1e-9)
            speed = math.sqrt(vel[r, 0] * vel[r, 0] + vel[r, 1] * vel[r, 1] + vel[r, 2] * vel[r, 2])
            push = math.sqrt(
                force[r, 0] * force[r, 0] + force[r, 1] * force[r, 1] + force[r, 2] * force[r, 2]
            )
            speed = speed + walk_speed[m] + (max_acceleration + push / body_mass) * dt
            margin[m] = speed * dt + 0.05
    i, j = candidate_pairs(_footprint_rows(pos, rot[:, 1], extent, box_loc, colliders), margin)
    keep = np.empty(len(i), dtype=np.bool_)
    for p in range(len(i)):
        keep[p] = moving[i[p]] or moving[j[p]]
    i, j = i[keep], j[keep]
    involved = np.zeros(n, dtype=np.bool_)
    involved[i] = True
    involved[j] = True
    local = np.cumsum(involved) - 1  # collider index -> index among the involved
    rows = colliders[involved]
    inv_mass = np.zeros(len(rows))
    for m in range(n):
        if involved[m] and moving[m]:
            inv_mass[local[m]] = 1.0 / max(mass[colliders[m]], 1e-9)
    return rows, local[i], local[j], inv_mass


@njit
def _sat(bi: np.ndarray, bj: np.ndarray) -> tuple:
    """Two boxes (rows of `_footprint_rows`): overlapping?, normal from i to j, depth.

    The separating axes are both boxes' x and y axes; the normal is the axis of least
    overlap (the first on a tie), signed from box i toward box j."""
    dx, dy = bj[0] - bi[0], bj[1] - bi[1]
    best, best_x, best_y, best_dist = np.inf, 0.0, 0.0, 0.0
    for a in range(4):
        box = bi if a < 2 else bj
        ux, uy = (box[2], box[3]) if a % 2 == 0 else (-box[3], box[2])
        ri = bi[4] * abs(ux * bi[2] + uy * bi[3]) + bi[5] * abs(ux * -bi[3] + uy * bi[2])
        rj = bj[4] * abs(ux * bj[2] + uy * bj[3]) + bj[5] * abs(ux * -bj[3] + uy * bj[2])
        dist = ux * dx + uy * dy
        overlap = ri + rj - abs(dist)
        if overlap <= 0.0:
            return False, 0.0, 0.0, overlap
        if overlap < best:
            best, best_x, best_y, best_dist = overlap, ux, uy, dist
    z_overlap = min(bi[7], bj[7]) - max(bi[6], bj[6])
    sign = 1.0 if best_dist >= 0.0 else -1.0
    return z_overlap > 0.0, best_x * sign, best_y * sign, best


def overlaps_any(box: Footprints, others: Footprints) -> bool:
    """Whether the one box in `box` overlaps any box of `others`."""
    return _overlaps_any(_packed(box)[0], _packed(others))


def _packed(fp: Footprints) -> np.ndarray:
    """Footprints as the (N, 8) rows `_sat` reads."""
    return np.column_stack([fp.centre, fp.axis_x, fp.half, fp.z_low, fp.z_high]).astype(np.float64)


@njit(cache=True)
def _overlaps_any(box: np.ndarray, others: np.ndarray) -> bool:
    for m in range(len(others)):  # noqa: SIM110 (a compiled loop)
        if _sat(box, others[m])[0]:
            return True
    return False


@njit
def resolve(
    pos: np.ndarray,
    rot: np.ndarray,
    vel: np.ndarray,
    extent: np.ndarray,
    box_loc: np.ndarray,
    rows: np.ndarray,
    inv_mass: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    out_i: np.ndarray,
    out_j: np.ndarray,
    out_impulse: np.ndarray,
    count: int,
    max_push: float,
) -> int:
    """Pushes the overlapping candidate pairs (i, j) (indices into actor `rows`, by (i, j))
    apart and exchanges impulses, in place on the actor columns `pos` and `vel`.

    Appends the colliding pairs' actor rows and the impulse (3,) each i received to the
    `out_*` arrays from index `count`; returns the new count. Every pair is tested on the
    boxes before any push. Pushes go to the i rows in pair order, then to the j rows, so the
    sums come in one fixed order; a pair's push takes at most `max_push` (m) off its depth,
    so overlapping boxes part at a bounded speed. Impulses go pair by pair in pair order,
    each from the velocities the pairs before it left (sequential impulses): each conserves
    its pair's momentum and, restitution being at most 1, takes kinetic energy away or
    none, so the whole does too (impulses computed from the same starting velocities and
    summed gave a light body struck on one side by two heavier ones both impulses, about
    twice what either contact alone could give it)."""
    fp = _footprint_rows(pos, rot[:, 1], extent, box_loc, rows)
    p_count = len(i)
    hit = np.zeros(p_count, dtype=np.bool_)
    nx, ny, share, jn = np.empty(p_count), np.empty(p_count), np.empty(p_count), np.empty(p_count)
    for p in range(p_count):
        touch, nx[p], ny[p], depth = _sat(fp[i[p]], fp[j[p]])
        w = inv_mass[i[p]] + inv_mass[j[p]]
        hit[p] = touch and w > 0.0
        if hit[p]:
            share[p] = min(depth, max_push) / w
    for p in range(p_count):
        if hit[p]:
            ri, scale = rows[i[p]], share[p] * inv_mass[i[p]]
            pos[ri, 0] += -nx[p] * scale
            pos[ri, 1] += -ny[p] * scale
    for p in range(p_count):
        if hit[p]:
            rj, scale = rows[j[p]], share[p] * inv_mass[j[p]]
            pos[rj, 0] += nx[p] * scale
            pos[rj, 1] += ny[p] * scale
    for p in range(p_count):
        if hit[p]:
            ri, rj = rows[i[p]], rows[j[p]]
            w = inv_mass[i[p]] + inv_mass[j[p]]
            v_rel = (vel[rj, 0] - vel[ri, 0]) * nx[p] + (vel[rj, 1] - vel[ri, 1]) * ny[p]
            jn[p] = -(1.0 + RESTITUTION) * v_rel / w if v_rel < 0.0 else 0.0
            scale = jn[p] * inv_mass[i[p]]
            vel[ri, 0] += -nx[p] * scale
            vel[ri, 1] += -ny[p] * scale
            scale = jn[p] * inv_mass[j[p]]
            vel[rj, 0] += nx[p] * scale
            vel[rj, 1] += ny[p] * scale
    for p in range(p_count):
        if hit[p]:
            out_i[count], out_j[count] = rows[i[p]], rows[j[p]]
            out_impulse[count, 0] = -nx[p] * jn[p]
            out_impulse[count, 1] = -ny[p] * jn[p]
            out_impulse[count, 2] = 0.0
            count += 1
    return count
