"""Road trigger boxes of lights and signs: where their centres go, and who is inside.

A box's centre moves against its lane's travel direction (seed: Trigger offset
direction): right-hand negative lanes and left-hand positive lanes travel with
increasing s, so their offsets subtract from s; the other lanes add to s. The
centre stays inside the lane section, 1e-5 m from either end; a section shorter
than 2e-5 m uses its midpoint. The direction belongs to the lane that receives
the box (after any move to a junction lane's predecessor).

`OrientedBoxes` holds every box of the world as arrays and answers which boxes
hold each of a batch of points (the vehicles' locations), vectorised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from world.geometry import Transform, Vector3D, rotation_matrices

__all__ = [
    "LIGHT_BOX_EXTENT",
    "LIGHT_BOX_OFFSET",
    "SECTION_MARGIN",
    "OrientedBoxes",
    "TriggerBox",
    "lane_travels_with_s",
    "trigger_s",
]

LIGHT_BOX_OFFSET = 3.0  # m before the light (also stop and yield effect boxes)
# Half-extents of a light's box: 3 m long, (lane width / 2) wide, 2 m high; y scales by width.
LIGHT_BOX_EXTENT = (1.5, 0.25, 1.0)
SECTION_MARGIN = 1e-5
_MIN_CELL = 8.0  # m, the smallest grid cell of the containment test


def lane_travels_with_s(lane_id: int, left_hand: bool) -> bool:
    """Whether traffic on the lane drives towards increasing s."""
    return (lane_id < 0) != left_hand


def trigger_s(
    s: float,
    lane_id: int,
    left_hand: bool,
    section_start: float,
    section_end: float,
    offset: float,
) -> float:
    """The s of a box centre `offset` metres before `s` against the lane's traffic."""
    if section_end - section_start < 2.0 * SECTION_MARGIN:
        return 0.5 * (section_start + section_end)
    moved = s - offset if lane_travels_with_s(lane_id, left_hand) else s + offset
    return min(max(moved, section_start + SECTION_MARGIN), section_end - SECTION_MARGIN)


@dataclass(slots=True)
class TriggerBox:
    """One box: its world transform (a lane waypoint's), its half-extents and its owner."""

    transform: Transform
    extent: Vector3D
    owner: int  # index of the light or sign in the traffic system
    kind: int  # what the box does (see world.traffic)


class OrientedBoxes:
    """Many oriented boxes as arrays: centres (B, 3), axes (B, 3, 3), half-extents (B, 3)."""

    def __init__(self, boxes: list[TriggerBox]) -> None:
        self.boxes = list(boxes)
        n = len(boxes)
        self.centre = np.array(
            [
                [b.transform.location.x, b.transform.location.y, b.transform.location.z]
                for b in boxes
            ]
        ).reshape(n, 3)
        rot = [b.transform.rotation for b in boxes]
        self.axes = rotation_matrices(
            np.array([r.pitch for r in rot]),
            np.array([r.yaw for r in rot]),
            np.array([r.roll for r in rot]),
        ).reshape(n, 3, 3)
        self.extent = np.array([[b.extent.x, b.extent.y, b.extent.z] for b in boxes]).reshape(n, 3)
        self.owner = np.array([b.owner for b in boxes], dtype=np.int64)
        self.kind = np.array([b.kind for b in boxes], dtype=np.int64)
        # A uniform plan-view grid: each box is listed in every cell its bounding circle
        # touches, so a point's candidates are the boxes of its own cell.
        radius = np.sqrt(np.einsum("bi,bi->b", self.extent, self.extent))
        self._cell = max(_MIN_CELL, 2.0 * float(radius.max(initial=0.0)))
        keys, members = [], []
        for b in range(n):
            lo = np.floor((self.centre[b, :2] - radius[b]) / self._cell).astype(np.int64)
            hi = np.floor((self.centre[b, :2] + radius[b]) / self._cell).astype(np.int64)
            for ix in range(lo[0], hi[0] + 1):
                for iy in range(lo[1], hi[1] + 1):
                    keys.append(_cell_key(ix, iy))
                    members.append(b)
        order = np.argsort(np.array(keys, dtype=np.int64), kind="stable")
        sorted_keys = np.array(keys, dtype=np.int64)[order]
        self._members = np.array(members, dtype=np.int64)[order]
        self._keys, self._starts = np.unique(sorted_keys, return_index=True)
        self._ends = np.append(self._starts[1:], len(sorted_keys))

    def __len__(self) -> int:
        return len(self.boxes)

    def contains(self, points: np.ndarray) -> np.ndarray:
        """(N, B) bool: whether point n lies in box b (borders included)."""
        pts = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
        inside = np.zeros((len(pts), len(self.boxes)), dtype=bool)
        if len(pts) and len(self._keys):
            _contains(
                pts,
                self._cell,
                self._keys,
                self._starts,
                self._ends,
                self._members,
                self.centre,
                self.axes,
                self.extent,
                inside,
            )
        return inside


@njit(cache=True)
def _contains(
    pts: np.ndarray,
    cell: float,
    keys: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    members: np.ndarray,
    centre: np.ndarray,
    axes: np.ndarray,
    extent: np.ndarray,
    inside: np.ndarray,
) -> None:
    """Marks in `inside` (N, B) the boxes of each point's grid cell that hold the point: its
    offset from the centre, in the box's axes (summed over x, y, z in that order), within the
    half-extents."""
    for n in range(len(pts)):
        ix = np.int64(np.floor(pts[n, 0] / cell))
        iy = np.int64(np.floor(pts[n, 1] / cell))
        key = (ix << 32) + (iy & 0xFFFFFFFF)
        slot = min(np.searchsorted(keys, key), len(keys) - 1)
        if keys[slot] != key:
            continue
        for m in range(starts[slot], ends[slot]):
            b = members[m]
            d0 = pts[n, 0] - centre[b, 0]
            d1 = pts[n, 1] - centre[b, 1]
            d2 = pts[n, 2] - centre[b, 2]
            held = True
            for j in range(3):
                local = d0 * axes[b, 0, j] + d1 * axes[b, 1, j] + d2 * axes[b, 2, j]
                if not abs(local) <= extent[b, j]:
                    held = False
                    break
            inside[n, b] = held


def _cell_key(ix, iy):
    """One int64 per grid cell (cells within +-2**31 of the origin)."""
    return (np.asarray(ix, dtype=np.int64) << 32) + (np.asarray(iy, dtype=np.int64) & 0xFFFFFFFF)
