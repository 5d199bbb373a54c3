"""Lane borders of one lane section on arrays of s: outer border t, centre t, width, height.

Lane 0's border is the road's laneOffset. Going outward from lane 0, each lane's
outer border is the previous border plus (left) or minus (right) its <width>
polynomial; a lane with <border> records and no widths takes the border
polynomial as its outer t, measured from the reference line, and the lanes
outside it build on that. Borders are summed as libOpenDRIVE sums them
(`GlobalCubic`), so a width counts in the borders from its first record on,
while the lane's width itself continues its first polynomial backward.
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from world.map.opendrive.model import LaneSection
from world.map.opendrive.profiles import CubicProfile, GlobalCubic

__all__ = ["SectionLanes"]


class SectionLanes:
    """The lanes of one lane section, in ascending id order, ready for evaluation."""

    __slots__ = (
        "border_profiles",
        "by_border",
        "center",
        "column",
        "has_heights",
        "heights",
        "ids",
        "inner",
        "level",
        "s0",
        "widths",
    )

    def __init__(self, section: LaneSection, lane_offset: GlobalCubic) -> None:
        """`lane_offset` is the road's laneOffset profile (with its zero record at s = 0)."""
        self.s0 = section.s
        lanes = list(section.lanes.values())
        self.ids = np.array([lane.id for lane in lanes], dtype=int)
        self.column = {lane.id: i for i, lane in enumerate(lanes)}
        self.center = self.column[0]
        self.inner = np.array([self.inner_column(c) for c in range(len(lanes))], dtype=int)
        self.widths = [
            CubicProfile(lane.widths, offset=section.s, extend_start=True) for lane in lanes
        ]
        # Lanes given by <border> records (used only when the lane has no <width>).
        self.by_border = [bool(lane.borders) and not lane.widths for lane in lanes]
        self.border_profiles = self._border_profiles(lanes, section.s, lane_offset)
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
        self.has_heights = any(record is not None for record in self.heights)

    def inner_column(self, col: int) -> int:
        """Column of the lane next toward lane 0 (lane 0 for itself)."""
        if col == self.center:
            return col
        return col + 1 if col < self.center else col - 1

    def columns(self, lane_ids: np.ndarray) -> np.ndarray:
        """Column of each lane id, -1 where the section has no such lane."""
        lane_ids = np.asarray(lane_ids, dtype=int)
        cols = np.minimum(np.searchsorted(self.ids, lane_ids), len(self.ids) - 1)
        return np.where(self.ids[cols] == lane_ids, cols, -1)

    def _border_profiles(
        self, lanes: list, s0: float, lane_offset: GlobalCubic
    ) -> list[GlobalCubic]:
        """Each lane's outer border profile, summed outward from lane 0 in libOpenDRIVE's order:
        the signed widths first, the laneOffset added last."""
        profiles: list[GlobalCubic] = [lane_offset] * len(lanes)
        for sign, cols in (
            (1, range(self.center + 1, len(lanes))),
            (-1, range(self.center - 1, -1, -1)),
        ):
            total: GlobalCubic | None = None
            absolute = False  # past a lane given by <border>: t is from the reference line
            for col in cols:
                lane = lanes[col]
                if not self.by_border[col]:
                    width = GlobalCubic.from_records(lane.widths, offset=s0)
                    width = width if sign > 0 else width.negate()
                    total = width if total is None else total.add(width)
                else:
                    total = GlobalCubic.from_records(lane.borders, offset=s0)
                    absolute = True
                profiles[col] = total if absolute else total.add(lane_offset)
        return profiles

    def outer_borders(self, s: np.ndarray, *, derivative: bool = False) -> np.ndarray:
        """Outer border t of every lane at each s, shape (len(s), lanes), lane 0 = laneOffset;
        with `derivative`, d(t)/ds."""
        s = np.asarray(s, dtype=float)
        out = np.empty((s.shape[0], len(self.ids)))
        for col, profile in enumerate(self.border_profiles):
            out[:, col] = profile.derivative(s) if derivative else profile.evaluate(s)
        return out

    def widths_at(self, s: np.ndarray, borders: np.ndarray) -> np.ndarray:
        """Width of every lane at each s (its <width> polynomial; lane 0 is 0)."""
        s = np.asarray(s, dtype=float)
        out = np.zeros((s.shape[0], len(self.ids)))
        for col in range(len(self.ids)):
            if col == self.center:
                continue
            if self.by_border[col]:
                out[:, col] = np.abs(borders[:, col] - borders[:, self.inner[col]])
            else:
                out[:, col] = self.widths[col].evaluate(s)
        return out

    def holding(self, t: np.ndarray, borders: np.ndarray) -> np.ndarray:
        """Column of the lane whose span holds each t: on t's side of lane 0, the innermost lane
        whose outer border reaches t (so on a border the inner lane), else the outermost lane."""
        center_t = borders[:, self.center]
        out = np.full(t.shape, self.center)
        left = np.arange(self.center + 1, len(self.ids))
        right = np.arange(self.center - 1, -1, -1)
        if len(left):
            out = np.where(t > center_t, left[_first(borders[:, left] >= t[:, None])], out)
        if len(right):
            out = np.where(t < center_t, right[_first(borders[:, right] <= t[:, None])], out)
        return out

    def surface_lane(self, t: np.ndarray, borders: np.ndarray) -> np.ndarray:
        """Column of the lane whose height rules apply at each t, chosen exactly as
        libOpenDRIVE's LaneSection::get_lane_id does (the golden surface z depends on it).

        On a border the inner lane is taken; past the outermost border, the outermost
        lane. Lanes sharing a border value (zero widths) count once, as the lowest id: on
        the right that is the outer lane, which then also takes the points of the inner
        lane whose border it shares.
        """
        n, count = borders.shape
        rows = np.arange(n)
        # Keep one lane per distinct border value: the lowest id, as libOpenDRIVE's map keeps
        # the first one inserted (on the right that is the outer lane).
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

    def borders_at(self, s: float) -> list[float]:
        """`outer_borders` at one s, in plain floats (the same numbers)."""
        return [profile.value_at(s) for profile in self.border_profiles]

    def surface_column(self, t: float, borders: list[float]) -> int:
        """`surface_lane` for one t and its row of `borders` (borders_at), in plain Python:
        the same rule, so the same column."""
        kept: dict[float, int] = {}
        for col, border in enumerate(borders):
            kept.setdefault(border, col)  # equal borders count once, as the lowest column
        above = [(border, col) for border, col in kept.items() if border >= t]
        key, target = min(above) if above else max(kept.items())
        below = [(border, col) for border, col in kept.items() if border < key]
        if self.ids[target] <= 0 and t != key and below:
            target = max(below)[1]
        return self.center if borders[self.center] == t else target

    def height_at(self, s: float, t: float, col: int, borders: list[float]) -> float:
        """`height` at one (s, t) in lane column `col`, in plain floats (the same numbers)."""
        record = self.heights[col]
        if record is None:
            return 0.0
        starts, inner, outer = (values.tolist() for values in record)
        t_in, t_out = borders[self.inner[col]], borders[col]
        span = t_out - t_in
        p_t = (t - t_in) / span if span != 0 else 0.0
        k = max(bisect_right(starts, s) - 1, 0)
        nxt = min(k + 1, len(starts) - 1)
        has_next = k + 1 < len(starts)
        frac = (s - starts[k]) / (starts[nxt] - starts[k]) if has_next else 0.0
        h_in = inner[k] + frac * (inner[nxt] - inner[k])
        h_out = outer[k] + frac * (outer[nxt] - outer[k])
        return p_t * (h_out - h_in) + h_in

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
            t_in = borders[rows[m], self.inner[col]]
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


def _first(hit: np.ndarray) -> np.ndarray:
    """Index of the first True in each row, the last index where a row has none."""
    return np.where(hit.any(axis=1), np.argmax(hit, axis=1), hit.shape[1] - 1)
