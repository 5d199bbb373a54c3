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
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        inside = np.zeros((len(pts), len(self.boxes)), dtype=bool)
        if len(pts) == 0 or len(self._keys) == 0:
            return inside
        cells = np.floor(pts[:, :2] / self._cell).astype(np.int64)
        key = _cell_key(cells[:, 0], cells[:, 1])
        slot = np.minimum(np.searchsorted(self._keys, key), len(self._keys) - 1)
        hit = self._keys[slot] == key
        start = np.where(hit, self._starts[slot], 0)
        count = np.where(hit, self._ends[slot] - self._starts[slot], 0)
        total = int(count.sum())
        if total == 0:
            return inside
        n_idx = np.repeat(np.arange(len(pts)), count)
        offset = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
        b_idx = self._members[np.repeat(start, count) + offset]
        delta = pts[n_idx] - self.centre[b_idx]
        local = np.einsum("ki,kij->kj", delta, self.axes[b_idx])
        inside[n_idx, b_idx] = np.all(np.abs(local) <= self.extent[b_idx], axis=1)
        return inside


def _cell_key(ix, iy):
    """One int64 per grid cell (cells within +-2**31 of the origin)."""
    return (np.asarray(ix, dtype=np.int64) << 32) + (np.asarray(iy, dtype=np.int64) & 0xFFFFFFFF)
