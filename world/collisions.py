"""Collisions of vehicle and walker boxes with each other and with static props, in 2.5D.

Boxes turn with their actor's yaw only (pitch and roll are small on roads) and
overlap when their footprints overlap (separating axes of two rectangles) and
their z ranges overlap. The broad phase sorts the boxes' x ranges and sweeps
(vectorised with searchsorted); the narrow phase tests the candidate pairs'
four axes at once. The response is deterministic: each pair is pushed apart
along the axis of least penetration (mass-weighted, props do not move) and,
when approaching, exchanges an impulse along that normal with restitution
RESTITUTION. Pairs are handled in (row, row) order and summed with np.add.at,
so the result does not depend on anything but the state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.geometry import Vector3D

__all__ = [
    "RESTITUTION",
    "CollisionEvent",
    "Footprints",
    "candidate_pairs",
    "footprints",
    "overlaps_any",
    "resolve",
    "sat",
]

RESTITUTION = 0.2


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

    def aabb_half(self) -> np.ndarray:
        hx = self.half[:, 0] * np.abs(self.axis_x[:, 0]) + self.half[:, 1] * np.abs(
            self.axis_y[:, 0]
        )
        hy = self.half[:, 0] * np.abs(self.axis_x[:, 1]) + self.half[:, 1] * np.abs(
            self.axis_y[:, 1]
        )
        return np.stack([hx, hy], axis=1)


def footprints(
    pos: np.ndarray, yaw_deg: np.ndarray, extent: np.ndarray, box_loc: np.ndarray
) -> Footprints:
    """The boxes of actors at `pos` turned by `yaw_deg`, boxes given in the actors' frames."""
    yaw = np.radians(yaw_deg)
    c, s = np.cos(yaw), np.sin(yaw)
    ax = np.stack([c, s], axis=1)
    ay = np.stack([-s, c], axis=1)
    centre = pos[:, :2] + ax * box_loc[:, :1] + ay * box_loc[:, 1:2]
    zc = pos[:, 2] + box_loc[:, 2]
    return Footprints(centre, ax, ay, extent[:, :2].copy(), zc - extent[:, 2], zc + extent[:, 2])


def candidate_pairs(
    fp: Footprints, margin: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i < j) whose axis-aligned bounds, grown by `margin`, overlap, by (i, j)."""
    n = len(fp.centre)
    if n < 2:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    h = fp.aabb_half() + np.reshape(margin, (-1, 1))
    lo, hi = fp.centre - h, fp.centre + h
    z_low, z_high = fp.z_low - margin, fp.z_high + margin
    order = np.argsort(lo[:, 0], kind="stable")
    ends = np.searchsorted(lo[order, 0], hi[order, 0], side="right")
    counts = np.maximum(ends - np.arange(n) - 1, 0)
    total = int(counts.sum())
    if total == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    first = np.repeat(np.arange(n), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    a, b = order[first], order[first + 1 + offsets]
    keep = (
        (lo[a, 1] <= hi[b, 1])
        & (lo[b, 1] <= hi[a, 1])
        & (z_low[a] <= z_high[b])
        & (z_low[b] <= z_high[a])
    )
    i, j = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    key = np.lexsort((j, i))
    return i[key], j[key]


def sat(fp: Footprints, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For pairs (i, j): overlapping?, normal (from i to j, (P,2)), penetration depth (P,)."""
    d = fp.centre[j] - fp.centre[i]
    axes = np.stack([fp.axis_x[i], fp.axis_y[i], fp.axis_x[j], fp.axis_y[j]], axis=1)  # P,4,2

    def radius(k: np.ndarray) -> np.ndarray:
        px = np.abs(np.einsum("pac,pc->pa", axes, fp.axis_x[k]))
        py = np.abs(np.einsum("pac,pc->pa", axes, fp.axis_y[k]))
        return fp.half[k, :1] * px + fp.half[k, 1:2] * py

    dist = np.einsum("pac,pc->pa", axes, d)
    overlap = radius(i) + radius(j) - np.abs(dist)
    z_overlap = np.minimum(fp.z_high[i], fp.z_high[j]) - np.maximum(fp.z_low[i], fp.z_low[j])
    hit = np.all(overlap > 0.0, axis=1) & (z_overlap > 0.0)
    best = np.argmin(overlap, axis=1)
    rows = np.arange(len(i))
    sign = np.where(dist[rows, best] >= 0.0, 1.0, -1.0)
    normal = axes[rows, best] * sign[:, None]
    return hit, normal, overlap[rows, best]


def overlaps_any(box: Footprints, others: Footprints) -> bool:
    """Whether the one box in `box` overlaps any box of `others`."""
    m = len(others.centre)
    if m == 0:
        return False
    both = Footprints(
        *(np.concatenate([getattr(box, f), getattr(others, f)]) for f in Footprints.__slots__)
    )
    hit, _, _ = sat(both, np.zeros(m, dtype=np.int64), np.arange(1, m + 1))
    return bool(hit.any())


def resolve(
    pos: np.ndarray,
    vel: np.ndarray,
    inv_mass: np.ndarray,
    fp: Footprints,
    i: np.ndarray,
    j: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pushes the overlapping candidate pairs (i, j) apart and exchanges impulses, in place on
    `pos` and `vel` (rows of `fp`). Returns the colliding pairs and the impulse (P, 3) each i
    received."""
    if len(i):
        hit, normal, depth = sat(fp, i, j)
        w = inv_mass[i] + inv_mass[j]
        keep = hit & (w > 0.0)
        i, j, normal, depth, w = i[keep], j[keep], normal[keep], depth[keep], w[keep]
    if len(i) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros((0, 3))
    share = depth / w
    np.add.at(pos[:, :2], i, -normal * (share * inv_mass[i])[:, None])
    np.add.at(pos[:, :2], j, normal * (share * inv_mass[j])[:, None])
    v_rel = np.einsum("pc,pc->p", vel[j, :2] - vel[i, :2], normal)
    jn = np.where(v_rel < 0.0, -(1.0 + RESTITUTION) * v_rel / w, 0.0)
    np.add.at(vel[:, :2], i, -normal * (jn * inv_mass[i])[:, None])
    np.add.at(vel[:, :2], j, normal * (jn * inv_mass[j])[:, None])
    impulse = np.zeros((len(i), 3))
    impulse[:, :2] = -normal * jn[:, None]
    return i, j, impulse
