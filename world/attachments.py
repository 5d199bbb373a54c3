"""Rigid attachments: a child's world pose from its parent's pose and its pose relative to it.

Vectorised over every attached actor, one attachment depth at a time (a child
is created after its parent, so depth d needs only depths < d). Rotations are
composed as matrices (CARLA's rotation matrix, world.geometry) and read back
as pitch, yaw, roll.
"""

from __future__ import annotations

import numpy as np

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
    rp = _matrices(parent_rot)
    pos = parent_pos + np.einsum("nij,nj->ni", rp, rel_pos)
    rot = euler_from_matrices(rp @ _matrices(rel_rot))
    return pos, rot


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
