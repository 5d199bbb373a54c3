"""Rigid attachments: a child's world pose from its parent's pose and its pose relative to it.

Vectorised over every attached actor, one attachment depth at a time (a child
is created after its parent, so depth d needs only depths < d). Rotations are
composed as matrices (CARLA's rotation matrix, world.geometry) and read back
as pitch, yaw, roll.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from world.geometry import rotation_matrices
from world.state import ActorTable

__all__ = ["compose", "euler_from_matrices", "relative_pose", "update_attached"]


def euler_from_matrices(m: np.ndarray) -> np.ndarray:
    """Pitch, yaw, roll in degrees, shape (N, 3), of CARLA rotation matrices (N, 3, 3)."""
    pitch = np.degrees(np.arcsin(np.clip(m[:, 2, 0], -1.0, 1.0)))
    yaw = np.degrees(np.arctan2(m[:, 1, 0], m[:, 0, 0]))
    roll = np.degrees(np.arctan2(-m[:, 2, 1], m[:, 2, 2]))
    return np.stack([pitch, yaw, roll], axis=1)


def _matrices(rot: np.ndarray) -> np.ndarray:
    return rotation_matrices(rot[:, 0], rot[:, 1], rot[:, 2])


def compose(
    parent_pos: np.ndarray, parent_rot: np.ndarray, rel_pos: np.ndarray, rel_rot: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """World poses (pos (N,3), rot (N,3)) of poses given in their parents' frames."""
    parent_rot, rel_rot = (np.asarray(x, dtype=np.float64) for x in (parent_rot, rel_rot))
    index = np.arange(len(parent_rot))
    rp, rr = _fill_matrices(parent_rot, rel_rot, index, index)
    return _posed(parent_pos, rp, rel_pos, rr)


def _posed(
    parent_pos: np.ndarray, rp: np.ndarray, rel_pos: np.ndarray, rr: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`compose` from the parents' and the relative rotation matrices.

    The rotated offsets, the matrix product (BLAS) and the angles read back stay in numpy:
    a compiled loop would add and round them in another order (and numba's arcsin and
    arctan2 are not numpy's to the bit), so the poses would move by an ulp."""
    pos = parent_pos + np.einsum("nij,nj->ni", rp, rel_pos)
    return pos, euler_from_matrices(rp @ rr)


@njit
def _fill_matrix(m: np.ndarray, rot: np.ndarray) -> None:
    """CARLA's rotation matrix (as `rotation_matrices`) of pitch, yaw, roll in degrees, with
    numpy's radians, cos and sin (numba's equal them to the bit)."""
    pitch, yaw, roll = np.radians(rot[0]), np.radians(rot[1]), np.radians(rot[2])
    cp, cy, cr = np.cos(pitch), np.cos(yaw), np.cos(roll)
    sp, sy, sr = np.sin(pitch), np.sin(yaw), np.sin(roll)
    m[0, 0] = cp * cy
    m[1, 0] = cp * sy
    m[2, 0] = sp
    m[0, 1] = cy * sp * sr - sy * cr
    m[1, 1] = sy * sp * sr + cy * cr
    m[2, 1] = -cp * sr
    m[0, 2] = -cy * sp * cr - sy * sr
    m[1, 2] = -sy * sp * cr + cy * sr
    m[2, 2] = cp * cr


@njit(cache=True)
def _fill_matrices(
    parent_rot: np.ndarray, rel_rot: np.ndarray, parents: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The rotation matrices (N, 3, 3) of `parent_rot[parents]` and of `rel_rot[rows]`."""
    n = len(rows)
    rp = np.empty((n, 3, 3))
    rr = np.empty((n, 3, 3))
    for k in range(n):
        _fill_matrix(rp[k], parent_rot[parents[k]])
        _fill_matrix(rr[k], rel_rot[rows[k]])
    return rp, rr


def relative_pose(
    parent_pos: np.ndarray, parent_rot: np.ndarray, pos: np.ndarray, rot: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Poses in their parents' frames of world poses: the inverse of `compose`."""
    rp_t = np.transpose(_matrices(parent_rot), (0, 2, 1))
    rel_pos = np.einsum("nij,nj->ni", rp_t, pos - parent_pos)
    rel_rot = euler_from_matrices(rp_t @ _matrices(rot))
    return rel_pos, rel_rot


def update_attached(actors: ActorTable) -> None:
    """Moves every live attached actor to its parent's pose composed with its relative pose."""
    n = actors.n
    for d in range(1, _deepest(actors.depth[:n]) + 1):
        rows, parents = _attached_rows(actors.depth[:n], actors.alive[:n], actors.parent, d)
        if rows.size == 0:
            continue
        rp, rr = _fill_matrices(actors.rot, actors.rel_rot, parents, rows)
        pos, rot = _posed(actors.pos[parents], rp, actors.rel_pos[rows], rr)
        actors.pos[rows] = pos
        actors.rot[rows] = rot


@njit(cache=True)
def _deepest(depth: np.ndarray) -> int:
    """The largest attachment depth (0 for no rows)."""
    deepest = 0
    for d in depth:
        deepest = max(deepest, int(d))
    return deepest


@njit(cache=True)
def _attached_rows(
    depth: np.ndarray, alive: np.ndarray, parent: np.ndarray, d: int
) -> tuple[np.ndarray, np.ndarray]:
    """The live rows, ascending, attached at depth `d`, and their parents' rows."""
    rows = np.empty(len(depth), dtype=np.int64)
    k = 0
    for r in range(len(depth)):
        if depth[r] == d and alive[r]:
            rows[k] = r
            k += 1
    rows = rows[:k]
    parents = np.empty(k, dtype=np.int64)
    for m in range(k):
        parents[m] = parent[rows[m]]
    return rows, parents
