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
    """World poses (pos (N,3), rot (N,3)) of poses given in their parents' frames.

    The sines and cosines, the rotated offsets, the matrix product (BLAS) and the angles read
    back stay in numpy; the matrices' entries are compiled (`_fill_matrices`), with the
    operations of `rotation_matrices` in their order, so the poses are the same to the bit."""
    parent_rad, rel_rad = np.radians(parent_rot), np.radians(rel_rot)
    rp, rr = _fill_matrices(
        np.cos(parent_rad), np.sin(parent_rad), np.cos(rel_rad), np.sin(rel_rad)
    )
    pos = parent_pos + np.einsum("nij,nj->ni", rp, rel_pos)
    return pos, euler_from_matrices(rp @ rr)


@njit(cache=True)
def _fill_matrix(m: np.ndarray, c: np.ndarray, s: np.ndarray) -> None:
    """CARLA's rotation matrix (as `rotation_matrices`) from cos and sin of pitch, yaw, roll."""
    cp, cy, cr = c[0], c[1], c[2]
    sp, sy, sr = s[0], s[1], s[2]
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
    parent_cos: np.ndarray, parent_sin: np.ndarray, rel_cos: np.ndarray, rel_sin: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The parents' and the relative rotation matrices (N, 3, 3) from their angles' cos, sin."""
    n = len(parent_cos)
    rp = np.empty((n, 3, 3))
    rr = np.empty((n, 3, 3))
    for k in range(n):
        _fill_matrix(rp[k], parent_cos[k], parent_sin[k])
        _fill_matrix(rr[k], rel_cos[k], rel_sin[k])
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
    depth = actors.depth[:n]
    max_depth = int(depth.max()) if n else 0
    for d in range(1, max_depth + 1):
        rows = np.flatnonzero((depth == d) & actors.alive[:n])
        if rows.size == 0:
            continue
        parents = actors.parent[rows]
        pos, rot = compose(
            actors.pos[parents], actors.rot[parents], actors.rel_pos[rows], actors.rel_rot[rows]
        )
        actors.pos[rows] = pos
        actors.rot[rows] = rot
