"""Rigid attachments: a child's world pose from its parent's pose and its pose relative to it.

Compiled (numba) loops over the attached actors in row order: a child is created after its
parent, so when its turn comes its parent's pose is already this tick's. Rotations are
composed as CARLA's rotation matrices (world.geometry.rotation_matrices, entries in its
order) and read back as pitch, yaw, roll. Every entry is a scalar float64 expression (no
fastmath; libm's asin and atan2), the same on every run; a numpy evaluation (vectorised
arcsin and arctan2, BLAS products) can differ from it in the last bit.
"""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.kernels.compiled import njit
from world.state import ActorTable

__all__ = ["compose", "relative_pose", "update_attached", "update_rows"]


def compose(
    parent_pos: np.ndarray, parent_rot: np.ndarray, rel_pos: np.ndarray, rel_rot: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """World poses (pos (N,3), rot (N,3)) of poses given in their parents' frames."""
    args = [np.ascontiguousarray(x, dtype=np.float64) for x in (parent_pos, parent_rot)]
    args += [np.ascontiguousarray(x, dtype=np.float64) for x in (rel_pos, rel_rot)]
    return _compose_rows(*args)


def relative_pose(
    parent_pos: np.ndarray, parent_rot: np.ndarray, pos: np.ndarray, rot: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Poses in their parents' frames of world poses: the inverse of `compose`."""
    args = [np.ascontiguousarray(x, dtype=np.float64) for x in (parent_pos, parent_rot, pos, rot)]
    return _relative_rows(*args)


def update_attached(actors: ActorTable) -> None:
    """Moves every live attached actor to its parent's pose composed with its relative pose."""
    n = actors.n
    update_rows(
        actors.depth[:n],
        actors.alive[:n],
        actors.parent,
        actors.pos,
        actors.rot,
        actors.rel_pos,
        actors.rel_rot,
    )


# The matrices below are 9-tuples, row by row (m00, m01, m02, m10, ..., m22): scalars, so the
# loops allocate nothing per actor.


@njit
def _matrix(pitch: float, yaw: float, roll: float) -> tuple:
    """CARLA's rotation matrix of pitch, yaw, roll in degrees (as `rotation_matrices`)."""
    p, y, r = np.radians(pitch), np.radians(yaw), np.radians(roll)
    cp, sp, cy, sy, cr, sr = el.cos(p), el.sin(p), el.cos(y), el.sin(y), el.cos(r), el.sin(r)
    return (
        cp * cy,
        cy * sp * sr - sy * cr,
        -cy * sp * cr - sy * sr,
        cp * sy,
        sy * sp * sr + cy * cr,
        -sy * sp * cr + cy * sr,
        sp,
        -cp * sr,
        cp * cr,
    )


@njit
def _transposed(m: tuple) -> tuple:
    return (m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8])


@njit
def _product(a: tuple, b: tuple) -> tuple:
    """a @ b, each entry summed over k = 0, 1, 2 in that order."""
    return (
        a[0] * b[0] + a[1] * b[3] + a[2] * b[6],
        a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
        a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
        a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
        a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
        a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
        a[6] * b[0] + a[7] * b[3] + a[8] * b[6],
        a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
        a[6] * b[2] + a[7] * b[5] + a[8] * b[8],
    )


@njit
def _applied(m: tuple, x: float, y: float, z: float) -> tuple:
    """m @ (x, y, z)."""
    return (
        m[0] * x + m[1] * y + m[2] * z,
        m[3] * x + m[4] * y + m[5] * z,
        m[6] * x + m[7] * y + m[8] * z,
    )


@njit
def _angles(m: tuple) -> tuple:
    """Pitch, yaw, roll in degrees of a rotation matrix."""
    pitch = np.degrees(el.asin(min(max(m[6], -1.0), 1.0)))
    return pitch, np.degrees(el.atan2(m[3], m[0])), np.degrees(el.atan2(-m[7], m[8]))


@njit
def _compose_into(
    pos: np.ndarray,
    rot: np.ndarray,
    parent: int,
    rel_pos: np.ndarray,
    rel_rot: np.ndarray,
    k: int,
    out_pos: np.ndarray,
    out_rot: np.ndarray,
    row: int,
) -> None:
    """Row `row` of out_pos, out_rot: the pose (rel_pos[k], rel_rot[k]) in the frame of
    (pos[parent], rot[parent])."""
    rp = _matrix(rot[parent, 0], rot[parent, 1], rot[parent, 2])
    rr = _matrix(rel_rot[k, 0], rel_rot[k, 1], rel_rot[k, 2])
    dx, dy, dz = _applied(rp, rel_pos[k, 0], rel_pos[k, 1], rel_pos[k, 2])
    x, y, z = pos[parent, 0] + dx, pos[parent, 1] + dy, pos[parent, 2] + dz
    out_pos[row, 0], out_pos[row, 1], out_pos[row, 2] = x, y, z
    out_rot[row, 0], out_rot[row, 1], out_rot[row, 2] = _angles(_product(rp, rr))


@njit(cache=True)
def _compose_rows(parent_pos, parent_rot, rel_pos, rel_rot) -> tuple:
    n = len(parent_pos)
    out_pos, out_rot = np.empty((n, 3)), np.empty((n, 3))
    for k in range(n):
        _compose_into(parent_pos, parent_rot, k, rel_pos, rel_rot, k, out_pos, out_rot, k)
    return out_pos, out_rot


@njit(cache=True)
def _relative_rows(parent_pos, parent_rot, pos, rot) -> tuple:
    n = len(parent_pos)
    rel_pos, rel_rot = np.empty((n, 3)), np.empty((n, 3))
    for k in range(n):
        back = _transposed(_matrix(parent_rot[k, 0], parent_rot[k, 1], parent_rot[k, 2]))
        d = (
            pos[k, 0] - parent_pos[k, 0],
            pos[k, 1] - parent_pos[k, 1],
            pos[k, 2] - parent_pos[k, 2],
        )
        rel_pos[k, 0], rel_pos[k, 1], rel_pos[k, 2] = _applied(back, d[0], d[1], d[2])
        world = _matrix(rot[k, 0], rot[k, 1], rot[k, 2])
        rel_rot[k, 0], rel_rot[k, 1], rel_rot[k, 2] = _angles(_product(back, world))
    return rel_pos, rel_rot


@njit(cache=True)
def update_rows(depth, alive, parent, pos, rot, rel_pos, rel_rot) -> None:
    """`update_attached` on the first len(depth) rows, in row order (the columns themselves:
    the physics tick calls it on its table's)."""
    for r in range(len(depth)):
        if depth[r] > 0 and alive[r]:
            _compose_into(pos, rot, parent[r], rel_pos, rel_rot, r, pos, rot, r)
