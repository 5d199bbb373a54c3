"""Road trigger boxes of lights and signs: where their centres go, and who is inside.

A box's centre moves against its lane's travel direction (seed: Trigger offset
direction): right-hand negative lanes and left-hand positive lanes travel with
increasing s, so their offsets subtract from s; the other lanes add to s. The
centre stays inside the lane section, 1e-5 m from either end; a section shorter
than 2e-5 m uses its midpoint. The direction belongs to the lane that receives
the box (after any move to a junction lane's predecessor).

`OrientedBoxes` holds every box of the world as arrays and answers which boxes
each of a batch of actors' own boxes overlaps (CARLA counts a vehicle as inside
a trigger box when its bounding box overlaps it, not its origin). An actor's
box is its pose composed with its box centre and half-extents in its own
frame. The test is compiled: a plan-view grid picks the candidate boxes, their
bounding spheres drop the far ones, and the separating-axis test of two
oriented boxes in 3D decides (see `_separated`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.geometry import Transform, Vector3D, rotation_matrices
from world.kernels.compiled import njit

__all__ = [
    "LIGHT_BOX_EXTENT",
    "LIGHT_BOX_OFFSET",
    "SECTION_MARGIN",
    "OrientedBoxes",
    "TriggerBox",
    "box_events",
    "lane_travels_with_s",
    "trigger_s",
]

LIGHT_BOX_OFFSET = 3.0  # m before the light (also stop and yield effect boxes)
# Half-extents of a light's box: 3 m long, (lane width / 2) wide, 2 m high; y scales by width.
LIGHT_BOX_EXTENT = (1.5, 0.25, 1.0)
SECTION_MARGIN = 1e-5
_MIN_CELL = 8.0  # m, the smallest grid cell of the overlap test
_MAX_CELLS = 1 << 18  # cells grow beyond _MIN_CELL when the boxes spread wider than this
# m: a room to every box smaller than this is not kept (it must dwarf the rounding of the
# distances and of the cells' bounds, ~1e-12 m)
_MIN_ROOM = 1e-3
# A cross axis of two edges is skipped when its squared length (sin² of the angle between the
# edges) is below this: nearly parallel edges give a face axis again, and rounding alone
# could separate the boxes along the almost-zero vector.
_PARALLEL = 1e-12


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
    kind: int  # what the box does (see world.traffic.signals.system)


class OrientedBoxes:
    """Many oriented boxes as arrays: centres (B, 3), axes (B, 3, 3), half-extents (B, 3)."""

    def __init__(self, boxes: list[TriggerBox]) -> None:
        self.boxes = list(boxes)
        n = len(boxes)
        self.centre = np.array(
            [
                [b.transform.location.x, b.transform.location.y, b.transform.location.z]
                for b in boxes
            ],
            dtype=np.float64,
        ).reshape(n, 3)
        rot = [b.transform.rotation for b in boxes]
        self.axes = rotation_matrices(
            np.array([r.pitch for r in rot], dtype=np.float64),
            np.array([r.yaw for r in rot], dtype=np.float64),
            np.array([r.roll for r in rot], dtype=np.float64),
        ).reshape(n, 3, 3)
        extents = [[b.extent.x, b.extent.y, b.extent.z] for b in boxes]
        self.extent = np.array(extents, dtype=np.float64).reshape(n, 3)
        self.owner = np.array([b.owner for b in boxes], dtype=np.int64)
        self.kind = np.array([b.kind for b in boxes], dtype=np.int64)
        # A uniform plan-view grid over the boxes: each box is listed in every cell its bounding
        # circle touches (from cell `_first`), so an actor's candidates are the boxes of the
        # cells its own bounding circle touches. Cells are numbered ix * ny + iy from the
        # grid's corner, and `_starts` (CSR) gives each cell's slice of `_members`.
        self._radius = np.sqrt(np.einsum("bi,bi->b", self.extent, self.extent))
        lo = self.centre[:, :2] - self._radius[:, None]
        hi = self.centre[:, :2] + self._radius[:, None]
        corner = lo.min(axis=0) if n else np.zeros(2)
        span = hi.max(axis=0) - corner if n else np.zeros(2)
        cell = max(_MIN_CELL, 2.0 * float(self._radius.max(initial=0.0)))
        cell = max(cell, float(np.sqrt(span[0] * span[1] / _MAX_CELLS)))
        self._grid = np.array([corner[0], corner[1], cell])
        self._first = np.floor((lo - corner) / cell).astype(np.int64)
        last = np.floor((hi - corner) / cell).astype(np.int64)
        nx, self._ny = (int(last[:, k].max(initial=0)) + 1 for k in range(2))
        cells, members = [], []
        for box in range(n):
            for ix in range(self._first[box, 0], last[box, 0] + 1):
                for iy in range(self._first[box, 1], last[box, 1] + 1):
                    cells.append(ix * self._ny + iy)
                    members.append(box)
        cells = np.array(cells, dtype=np.int64)
        order = np.argsort(cells, kind="stable")
        self._members = np.array(members, dtype=np.int64)[order]
        self._starts = np.zeros(nx * self._ny + 1, dtype=np.int64)
        np.cumsum(np.bincount(cells, minlength=nx * self._ny), out=self._starts[1:])
        self._grid_arrays = (self._grid, self._ny, self._starts, self._members, self._first)
        self._shapes = (self.centre, self.axes, self.extent, self._radius)
        # per actor row, what the tick's test keeps (`_overlapping`'s `clear`): where the
        # actor was, its reach and the room it had to every box
        self._clear = _NO_CLEAR

    def __len__(self) -> int:
        return len(self.boxes)

    def overlapping(
        self,
        rows: np.ndarray,
        pos: np.ndarray,
        rot: np.ndarray,
        box_loc: np.ndarray,
        extent: np.ndarray,
        alive: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The pairs (n, b) where the box of actor row rows[n] overlaps box b (touching
        counts), as two arrays sorted by n, then b: the few boxes each actor is in, not an
        (N, B) table (the work stays that of the actors and the boxes near them).

        `pos` (m), `rot` (pitch, yaw, roll in degrees), `box_loc` (the box centre in the
        actor's frame), `extent` (half-extents) and `alive` are the actor table's columns,
        read at `rows`; a dead actor overlaps nothing. A zero extent makes the box a point:
        then it is the point's containment."""
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        if not (len(rows) and len(self.boxes)):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        actors = (
            *(np.ascontiguousarray(c, dtype=np.float64) for c in (pos, rot, box_loc, extent)),
            np.ascontiguousarray(alive, dtype=np.bool_),
        )
        return _overlapping(rows, len(rows), actors, self._grid_arrays, self._shapes, _NO_CLEAR)

    def changes(
        self, inside: np.ndarray, vehicle_actor: np.ndarray, vehicles: int, columns: tuple
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """`box_events` of the pairs `overlapping` finds for the first `vehicles` rows of
        `vehicle_actor` (the vehicle table's actor column, int32), in one compiled call: the
        keys inside now and the events since the keys `inside`. `columns`: the actor table's
        pos, rot, box_loc, extent and alive, its own arrays (float64 and bool, C order), as
        `overlapping` takes them."""
        if not len(self.boxes):
            return inside, *_NO_EVENTS
        rows = len(columns[0])
        if len(self._clear[1]) != rows:  # the actor table grew: nothing kept
            self._clear = (np.zeros((rows, 3)), np.full(rows, np.nan), np.zeros(rows))
        packed = _box_changes(
            inside, vehicle_actor, vehicles, columns, self._grid_arrays, self._shapes, self._clear
        )
        after = packed[1 : 1 + packed[0]]
        if len(after) + 1 == len(packed):  # (most ticks have no event)
            return after, *_NO_EVENTS
        events = packed[1 + len(after) :].reshape(-1, 3)
        return after, events[:, 0].copy(), events[:, 1].copy(), events[:, 2] == 1


_NO_EVENTS = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool))
_NO_CLEAR = (np.zeros((0, 3)), np.zeros(0), np.zeros(0))


@njit(cache=True)
def _box_changes(
    before: np.ndarray,
    rows: np.ndarray,
    n_rows: int,
    actors: tuple,
    grid: tuple,
    shapes: tuple,
    clear: tuple,
) -> tuple:
    """`box_events(before, *_overlapping(rows[:n_rows], ...), boxes)`: one call a tick instead
    of two, and no int64 copy of the vehicle table's int32 actor column. Its answers come
    back in one array (each array a compiled call hands back costs ~1.5 us to box): the
    number of keys inside now, the keys, then each event's vehicle, box and 1 for an entry
    or 0 for a leave."""
    vehicle, box = _overlapping(rows, n_rows, actors, grid, shapes, clear)
    after, event_vehicle, event_box, event_entered = box_events(
        before, vehicle, box, len(shapes[0])
    )
    keys, events = len(after), len(event_vehicle)
    packed = np.empty(1 + keys + 3 * events, dtype=np.int64)
    packed[0] = keys
    packed[1 : 1 + keys] = after
    for e in range(events):
        at = 1 + keys + 3 * e
        packed[at], packed[at + 1] = event_vehicle[e], event_box[e]
        packed[at + 2] = 1 if event_entered[e] else 0
    return packed


@njit(cache=True)
def box_events(before: np.ndarray, vehicle: np.ndarray, box: np.ndarray, boxes: int) -> tuple:
    """The pairs (vehicle row, box) inside now, as sorted keys vehicle * boxes + box (the
    pairs come sorted by vehicle, then box: OrientedBoxes.overlapping), and what changed
    since the keys `before`: events (vehicle, box, entered or left) by vehicle, a vehicle's
    leaves before its entries, each in box order. One merge of the two sorted key arrays."""
    after = np.empty(len(vehicle), dtype=np.int64)
    for k in range(len(vehicle)):
        after[k] = vehicle[k] * boxes + box[k]
    left = np.empty(len(before), dtype=np.int64)
    entered = np.empty(len(after), dtype=np.int64)
    i = j = n_left = n_entered = 0
    while i < len(before) or j < len(after):
        if j == len(after) or (i < len(before) and before[i] < after[j]):
            left[n_left] = before[i]
            n_left += 1
            i += 1
        elif i == len(before) or after[j] < before[i]:
            entered[n_entered] = after[j]
            n_entered += 1
            j += 1
        else:
            i += 1
            j += 1
    events = n_left + n_entered
    event_vehicle = np.empty(events, dtype=np.int64)
    event_box = np.empty(events, dtype=np.int64)
    event_entered = np.empty(events, dtype=np.bool_)
    i = j = e = 0
    while i < n_left or j < n_entered:
        v_left = left[i] // boxes if i < n_left else -1
        v_entered = entered[j] // boxes if j < n_entered else -1
        v = v_left if v_entered < 0 or (0 <= v_left < v_entered) else v_entered
        while i < n_left and left[i] // boxes == v:
            event_vehicle[e], event_box[e], event_entered[e] = v, left[i] % boxes, False
            e += 1
            i += 1
        while j < n_entered and entered[j] // boxes == v:
            event_vehicle[e], event_box[e], event_entered[e] = v, entered[j] % boxes, True
            e += 1
            j += 1
    return after, event_vehicle, event_box, event_entered


@njit(cache=True)
def _overlapping(
    rows: np.ndarray, n_rows: int, actors: tuple, grid: tuple, shapes: tuple, clear: tuple
) -> tuple:
    """The pairs (n, b), sorted, where the box of live actor row rows[n] overlaps box b, for
    n < n_rows.

    `actors`: the actor table's pos, rot, box_loc, extent and alive; `grid`: the boxes'
    plan-view grid (corner x, y and cell; ny; the cells' starts and members; each box's first
    cell); `shapes`: the boxes' centres, axes, half extents and bounding radii. Per actor:
    the grid cells that its bounding sphere about its origin (|box_loc| + |extent|, whatever
    its rotation) touches; in each, the boxes met there first (a box listed in several cells
    is tested once, in the first cell both cover) whose bounding sphere reaches that one.
    Only then is the actor's box put in the world (centre = pos + R @ box_loc, axes = R's
    columns); its bounding sphere about that centre must reach the box itself, and then the
    separating axes decide.

    `clear` (empty, or kept per actor row between calls with the same boxes: a position, the
    reach about the origin, NaN for none, and a room): the room an actor's sphere had to
    every box's sphere is kept with its position, the least of its distance to the edges of
    the cells it walked (a box in none of them lies beyond them) and its distances to the
    spheres of the boxes in them (none where one reached a box). An actor with the same
    reach (bit for bit) that moved at most half its room since (in 3D) is still farther
    than its reach from every box's sphere, so every box would fail the spheres' test: it
    is in none, with no test."""
    pos, rot, box_loc, extent, alive = actors
    anchor, kept_reach, room = clear
    keep = len(room) > 0
    corner, ny, starts, members, first = grid
    centre, axes, half, radius = shapes
    corner_x, corner_y, cell = corner[0], corner[1], corner[2]
    nx = (len(starts) - 1) // ny
    r_actor = np.empty((3, 3))
    at = np.empty(3)
    rel = np.empty((3, 3))
    mag = np.empty((3, 3))
    t = np.empty(3)
    out_n = np.empty(n_rows + 16, dtype=np.int64)
    out_b = np.empty(n_rows + 16, dtype=np.int64)
    count = 0
    for n in range(n_rows):
        row = rows[n]
        if not alive[row]:
            continue
        # scalars, not row views: a view or an array handed to a helper costs two atomic
        # reference counts, per actor and per candidate box
        e0, e1, e2 = extent[row, 0], extent[row, 1], extent[row, 2]
        loc0, loc1, loc2 = box_loc[row, 0], box_loc[row, 1], box_loc[row, 2]
        reach = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        about_origin = reach + math.sqrt(loc0 * loc0 + loc1 * loc1 + loc2 * loc2)
        if keep and room[row] > 0.0 and kept_reach[row] == about_origin:
            m0 = pos[row, 0] - anchor[row, 0]
            m1 = pos[row, 1] - anchor[row, 1]
            m2 = pos[row, 2] - anchor[row, 2]
            half_room = 0.5 * room[row]
            if m0 * m0 + m1 * m1 + m2 * m2 <= half_room * half_room:
                continue
        lo_x = np.int64(np.floor((pos[row, 0] - about_origin - corner_x) / cell))
        hi_x = np.int64(np.floor((pos[row, 0] + about_origin - corner_x) / cell))
        lo_y = np.int64(np.floor((pos[row, 1] - about_origin - corner_y) / cell))
        hi_y = np.int64(np.floor((pos[row, 1] + about_origin - corner_y) / cell))
        nearest = 0.0
        if keep:  # the room to the edges of the cells walked
            nearest = min(
                pos[row, 0] - about_origin - (corner_x + lo_x * cell),
                corner_x + (hi_x + 1) * cell - (pos[row, 0] + about_origin),
                pos[row, 1] - about_origin - (corner_y + lo_y * cell),
                corner_y + (hi_y + 1) * cell - (pos[row, 1] + about_origin),
            )
        placed = False
        mine = count  # this actor's boxes start here
        for ix in range(max(lo_x, 0), min(hi_x, nx - 1) + 1):
            for iy in range(max(lo_y, 0), min(hi_y, ny - 1) + 1):
                f = ix * ny + iy
                for m in range(starts[f], starts[f + 1]):
                    b = members[m]
                    if ix != max(lo_x, first[b, 0]) or iy != max(lo_y, first[b, 1]):
                        continue  # tested in an earlier cell of both
                    # the two bounding spheres (centres pos[row], centre[b]) meet or touch
                    s0 = pos[row, 0] - centre[b, 0]
                    s1 = pos[row, 1] - centre[b, 1]
                    s2 = pos[row, 2] - centre[b, 2]
                    far = about_origin + radius[b]
                    apart = s0 * s0 + s1 * s1 + s2 * s2
                    if keep:
                        nearest = min(nearest, math.sqrt(apart) - far)
                    if not apart <= far * far:
                        continue
                    if not placed:
                        _actor_axes(r_actor, rot[row, 0], rot[row, 1], rot[row, 2])
                        for i in range(3):
                            at[i] = pos[row, i] + (
                                r_actor[i, 0] * loc0 + r_actor[i, 1] * loc1 + r_actor[i, 2] * loc2
                            )
                        placed = True
                    d0 = at[0] - centre[b, 0]
                    d1 = at[1] - centre[b, 1]
                    d2 = at[2] - centre[b, 2]
                    # the actor's sphere of radius `reach` about `at` meets box b: the
                    # distance to the box's nearest point, in the box's axes
                    gap = 0.0
                    for k in range(3):
                        out = (
                            abs(d0 * axes[b, 0, k] + d1 * axes[b, 1, k] + d2 * axes[b, 2, k])
                            - half[b, k]
                        )
                        if out > 0.0:
                            gap += out * out
                    if not gap <= reach * reach:
                        continue
                    if _separated(d0, d1, d2, axes, half, b, r_actor, extent, row, rel, mag, t):
                        continue
                    if count == len(out_n):
                        out_n = np.concatenate((out_n, np.empty(count, dtype=np.int64)))
                        out_b = np.concatenate((out_b, np.empty(count, dtype=np.int64)))
                    # this actor's boxes in ascending order (cells visit them in any order)
                    k = count
                    while k > mine and out_b[k - 1] > b:
                        out_b[k] = out_b[k - 1]
                        k -= 1
                    out_b[k] = b
                    out_n[count] = n
                    count += 1
        if keep:
            for i in range(3):
                anchor[row, i] = pos[row, i]
            kept_reach[row] = about_origin
            room[row] = nearest if nearest > _MIN_ROOM else 0.0
    return out_n[:count], out_b[:count]


@njit(cache=True, inline="always")
def _actor_axes(axes: np.ndarray, pitch_deg: float, yaw_deg: float, roll_deg: float) -> None:
    """Writes into `axes` (3x3) the forward, right and up unit vectors (columns) of an actor
    turned by pitch, yaw and roll (degrees): CARLA's rotation, as `rotation_matrices` gives
    it (numba's radians, cos and sin are numpy's). (Inlined, as `_separated`: a compiled
    call taking an array costs two atomic reference counts per array.)"""
    pitch, yaw, roll = np.radians(pitch_deg), np.radians(yaw_deg), np.radians(roll_deg)
    s_p, c_p = el.sin_cos(pitch)
    s_y, c_y = el.sin_cos(yaw)
    s_r, c_r = el.sin_cos(roll)
    forward = (c_p * c_y, c_p * s_y, s_p)
    right = (c_y * s_p * s_r - s_y * c_r, s_y * s_p * s_r + c_y * c_r, -c_p * s_r)
    up = (-c_y * s_p * c_r - s_y * s_r, -s_y * s_p * c_r + c_y * s_r, c_p * c_r)
    for i in range(3):
        axes[i, 0] = forward[i]
        axes[i, 1] = right[i]
        axes[i, 2] = up[i]


@njit(cache=True, inline="always")
def _separated(
    d0: float,
    d1: float,
    d2: float,
    boxes_axes: np.ndarray,
    boxes_half: np.ndarray,
    a: int,
    axes_b: np.ndarray,
    extents: np.ndarray,
    b: int,
    rel: np.ndarray,
    mag: np.ndarray,
    t: np.ndarray,
) -> bool:
    """Whether an axis separates two oriented boxes, box a of (B, 3, 3) `boxes_axes` and (B,
    3) `boxes_half` and box b of `axes_b` (3, 3) and row b of `extents` (axes: proper
    rotation matrices whose columns are the unit axes; half: the half-extents; d: centre of
    b less centre of a). (Inlined, with the tables and rows rather than row views: a row
    view handed to a compiled call costs two atomic reference counts, per candidate box.)

    The 15 candidate axes of two boxes in 3D, worked in a's frame (b's axis j there is column
    j of rel = axes_a^T axes_b, the centres' offset is t = axes_a^T d): the 3 face normals of
    a, the 3 of b, then the 9 cross products a_i x b_j of an edge of each, skipped when the two
    edges are parallel to within `_PARALLEL` (|a_i x b_j|^2 = 1 - rel_ij^2). An axis L
    separates when |t . L| exceeds the two boxes' half-widths along L, sum_k half_k |axis_k .
    L|; equality is touching, not separated. For L = a_i x b_j (i, i1, i2 and j, j1, j2 in
    cyclic order) the triple products give t . L = t_i2 rel_i1j - t_i1 rel_i2j and the
    half-widths half_a_i1 |rel_i2j| + half_a_i2 |rel_i1j| + half_b_j1 |rel_ij2| + half_b_j2
    |rel_ij1|."""
    for i in range(3):
        t[i] = d0 * boxes_axes[a, 0, i] + d1 * boxes_axes[a, 1, i] + d2 * boxes_axes[a, 2, i]
        for j in range(3):
            rel[i, j] = (
                boxes_axes[a, 0, i] * axes_b[0, j]
                + boxes_axes[a, 1, i] * axes_b[1, j]
                + boxes_axes[a, 2, i] * axes_b[2, j]
            )
            mag[i, j] = abs(rel[i, j])
    for i in range(3):
        reach = extents[b, 0] * mag[i, 0] + extents[b, 1] * mag[i, 1] + extents[b, 2] * mag[i, 2]
        if abs(t[i]) > boxes_half[a, i] + reach:
            return True
    for j in range(3):
        along = t[0] * rel[0, j] + t[1] * rel[1, j] + t[2] * rel[2, j]
        reach = (
            boxes_half[a, 0] * mag[0, j]
            + boxes_half[a, 1] * mag[1, j]
            + boxes_half[a, 2] * mag[2, j]
        )
        if abs(along) > reach + extents[b, j]:
            return True
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            if 1.0 - rel[i, j] * rel[i, j] < _PARALLEL:
                continue
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            along = t[i2] * rel[i1, j] - t[i1] * rel[i2, j]
            reach = boxes_half[a, i1] * mag[i2, j] + boxes_half[a, i2] * mag[i1, j]
            reach += extents[b, j1] * mag[i, j2] + extents[b, j2] * mag[i, j1]
            if abs(along) > reach:
                return True
    return False
