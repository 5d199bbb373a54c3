"""Lane borders of one lane section on arrays of s: outer border t, centre t, width, height.

Lane 0's border is the road's laneOffset. Going outward from lane 0, each lane's
outer border is the previous border plus (left) or minus (right) its <width>
polynomial; a lane with <border> records and no widths takes the border
polynomial as its outer t, measured from the reference line. Widths and borders
continue their first polynomial backward before its start.
"""

from __future__ import annotations

import numpy as np

from world.opendrive.model import LaneSection
from world.opendrive.profiles import CubicProfile

__all__ = ["SectionLanes"]


class SectionLanes:
    """The lanes of one lane section, in ascending id order, ready for evaluation."""

    __slots__ = (
        "borders",
        "center",
        "column",
        "heights",
        "ids",
        "level",
        "s0",
        "widths",
    )

    def __init__(self, section: LaneSection) -> None:
        self.s0 = section.s
        lanes = list(section.lanes.values())
        self.ids = np.array([lane.id for lane in lanes], dtype=int)
        self.column = {lane.id: i for i, lane in enumerate(lanes)}
        self.center = self.column[0]
        self.widths = [
            CubicProfile(lane.widths, offset=section.s, extend_start=True) for lane in lanes
        ]
        self.borders = [
            CubicProfile(lane.borders, offset=section.s, extend_start=True) for lane in lanes
        ]
        self.level = np.array([lane.level for lane in lanes], dtype=bool)
        # Height records per lane: starts, inner, outer (first record wins at equal starts).
        self.heights: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = []
        for lane in lanes:
            if not lane.heights:
                self.heights.append(None)
                continue
            records: dict[float, tuple[float, float]] = {}
            for h in lane.heights:
                records.setdefault(section.s + h.s_offset, (h.inner, h.outer))
            starts = np.array(sorted(records), dtype=float)
            inner = np.array([records[k][0] for k in starts])
            outer = np.array([records[k][1] for k in starts])
            self.heights.append((starts, inner, outer))

    def inner_column(self, col: int) -> int:
        """Column of the lane next toward lane 0 (lane 0 for itself)."""
        if col == self.center:
            return col
        return col + 1 if col < self.center else col - 1

    def outer_borders(self, s: np.ndarray, lane_offset: np.ndarray) -> np.ndarray:
        """Outer border t of every lane at each s: shape (len(s), lanes), lane 0 = laneOffset."""
        s = np.asarray(s, dtype=float)
        out = np.empty((s.shape[0], len(self.ids)))
        out[:, self.center] = lane_offset
        for step, cols in (
            (1, range(self.center + 1, len(self.ids))),
            (-1, range(self.center - 1, -1, -1)),
        ):
            t = lane_offset
            for col in cols:
                if self.widths[col] or not self.borders[col]:
                    t = t + step * self.widths[col].evaluate(s)
                else:
                    t = self.borders[col].evaluate(s)
                out[:, col] = t
        return out

    def widths_at(self, s: np.ndarray, borders: np.ndarray) -> np.ndarray:
        """Width of every lane at each s (its <width> polynomial; lane 0 is 0)."""
        s = np.asarray(s, dtype=float)
        out = np.zeros((s.shape[0], len(self.ids)))
        for col in range(len(self.ids)):
            if col == self.center:
                continue
            if self.widths[col] or not self.borders[col]:
                out[:, col] = self.widths[col].evaluate(s)
            else:
                out[:, col] = np.abs(borders[:, col] - borders[:, self.inner_column(col)])
        return out

    def lane_at(self, t: np.ndarray, borders: np.ndarray) -> np.ndarray:
        """Column of the lane holding each t, as libOpenDRIVE's LaneSection::get_lane_id picks it.

        On a border the inner lane is taken; past the outermost border, the outermost
        lane; lanes of zero width share a border and the lowest id among them holds it.
        """
        n, count = borders.shape
        rows = np.arange(n)
        # Keep only the first lane (lowest id) of each distinct border value.
        order = np.lexsort((np.broadcast_to(np.arange(count), (n, count)), borders), axis=1)
        sorted_t = np.take_along_axis(borders, order, axis=1)
        duplicate = np.zeros((n, count), dtype=bool)
        duplicate[:, 1:] = sorted_t[:, 1:] == sorted_t[:, :-1]
        keep = np.empty((n, count), dtype=bool)
        np.put_along_axis(keep, order, ~duplicate, axis=1)
        tt = t[:, None]
        candidates = keep & (borders >= tt)
        lowest = np.where(candidates, borders, np.inf)
        target = np.argmin(lowest, axis=1)
        none = ~candidates.any(axis=1)
        target[none] = np.argmax(np.where(keep, borders, -np.inf), axis=1)[none]
        key = borders[rows, target]
        below = keep & (borders < key[:, None])
        step_in = (self.ids[target] <= 0) & (t != key) & below.any(axis=1)
        previous = np.argmax(np.where(below, borders, -np.inf), axis=1)
        target = np.where(step_in, previous, target)
        on_center = borders[:, self.center] == t
        return np.where(on_center, self.center, target)

    def height(
        self, s: np.ndarray, t: np.ndarray, cols: np.ndarray, borders: np.ndarray
    ) -> np.ndarray:
        """Lane <height> offset at (s, t) in lane column `cols`: linear across the lane between
        the inner and outer values, and linear in s toward the next record."""
        h = np.zeros(s.shape)
        rows = np.arange(s.shape[0])
        for col, record in enumerate(self.heights):
            if record is None:
                continue
            m = cols == col
            if not m.any():
                continue
            starts, inner, outer = record
            sm = s[m]
            t_in = borders[rows[m], self.inner_column(col)]
            t_out = borders[rows[m], col]
            span = t_out - t_in
            p_t = np.where(span != 0, (t[m] - t_in) / np.where(span != 0, span, 1.0), 0.0)
            k = np.maximum(np.searchsorted(starts, sm, side="right") - 1, 0)
            h_in, h_out = inner[k], outer[k]
            nxt = np.minimum(k + 1, len(starts) - 1)
            has_next = k + 1 < len(starts)
            ds_rec = np.where(has_next, starts[nxt] - starts[k], 1.0)
            frac = np.where(has_next, (sm - starts[k]) / ds_rec, 0.0)
            h_in = h_in + frac * (inner[nxt] - inner[k])
            h_out = h_out + frac * (outer[nxt] - outer[k])
            h[m] = p_t * (h_out - h_in) + h_in
        return h
