"""Vectorised geometry of one road in OpenDRIVE's right-handed frame (x east, y north, z up).

`RoadEvaluator(road)` answers, for numpy arrays of s (and t):
reference line x, y, z, heading and tangent; elevation, superelevation,
laneOffset; lane section index; each lane's outer border t, centre t and width;
and the road surface point (s, t) -> x, y, z as libOpenDRIVE's
`Road::get_surface_pt` computes it:

    p = refline(s) + t * e_t + h * e_h

with e_s the unit 3D tangent (dx/ds, dy/ds, dz/ds), e_t the horizontal left
normal tilted by the superelevation angle about e_s (positive lifts +t), and
e_h = unit(e_s x e_t). h is -tan(crossfall) * |t| (crossfall of the side of
the lane holding t), plus the lane's <height> offset. On `level` lanes the
crossfall term is taken at the inner border and -tan(superelevation) *
(t - t_inner) is added, which keeps such a lane at its inner border's height
(libOpenDRIVE adds this term with the opposite sign, which doubles the tilt
instead; no map in the golden set has a level lane or crossfall).
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from world import elementary as el
from world.map.opendrive.lanes import SectionLanes
from world.map.opendrive.model import OpenDrive, Road
from world.map.opendrive.planview import PlanView
from world.map.opendrive.profiles import CubicProfile, GlobalCubic

__all__ = ["LaneSample", "RoadEvaluator", "SurfaceFrame", "road_evaluators"]


class LaneSample:
    """Lane geometry at arrays of s for one lane id: outer border t, centre t, width.

    NaN where the lane does not exist in the lane section holding s.
    """

    __slots__ = ("t_center", "t_outer", "width")

    def __init__(self, t_outer: np.ndarray, t_center: np.ndarray, width: np.ndarray) -> None:
        self.t_outer = t_outer
        self.t_center = t_center
        self.width = width


class SurfaceFrame:
    """Reference-line frame at arrays of s: origin, unit tangent e_s, tilted normal e_t, up e_h."""

    __slots__ = ("e_h", "e_s", "e_t", "origin")

    def __init__(self, origin: np.ndarray, e_s: np.ndarray, e_t: np.ndarray, e_h: np.ndarray):
        self.origin = origin
        self.e_s = e_s
        self.e_t = e_t
        self.e_h = e_h


class RoadEvaluator:
    """Geometry of one road for arrays of s; build once per road and reuse."""

    __slots__ = (
        "crossfall_profile",
        "crossfall_sides",
        "elevation_profile",
        "lane_offset_profile",
        "length",
        "plan_view",
        "road",
        "section_start_list",
        "section_starts",
        "sections",
        "superelevation_profile",
    )

    def __init__(self, road: Road) -> None:
        self.road = road
        self.length = road.length
        self.plan_view = PlanView(road.geometries)
        self.elevation_profile = CubicProfile(road.elevation)
        self.superelevation_profile = CubicProfile(road.superelevation)
        # laneOffset in libOpenDRIVE's form: lane 0's border is exactly this profile.
        self.lane_offset_profile = GlobalCubic.from_records(road.lane_offsets, zero_at_start=True)
        self.crossfall_profile = CubicProfile(road.crossfall, extend_start=True)
        # Side of each crossfall record in start order (0 both, 1 left, 2 right).
        codes = {"both": 0, "left": 1, "right": 2}
        ordered = sorted(road.crossfall, key=lambda r: r.s)
        self.crossfall_sides = np.array([codes[r.side] for r in ordered], dtype=np.int8)
        self.sections = [
            SectionLanes(section, self.lane_offset_profile) for section in road.lane_sections
        ]
        self.section_starts = np.array([sec.s0 for sec in self.sections], dtype=float)
        self.section_start_list = self.section_starts.tolist()

    # ---- reference line and profiles ---------------------------------------------------------

    def reference(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Reference line x, y, z (elevation) and heading (rad, in (-pi, pi]) at each s."""
        s = np.asarray(s, dtype=float)
        x, y, tx, ty = self.plan_view.evaluate(s)
        return x, y, self.elevation_profile.evaluate(s), el.atan2_v(ty, tx)

    def tangent(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Derivative of the reference line (dx/ds, dy/ds unit in plan; dz/ds the slope)."""
        s = np.asarray(s, dtype=float)
        _, _, tx, ty = self.plan_view.evaluate(s)
        return tx, ty, self.elevation_profile.derivative(s)

    def heading(self, s: np.ndarray) -> np.ndarray:
        """Reference line heading (rad, in (-pi, pi]) at each s."""
        return self.plan_view.heading(s)

    def elevation(self, s: np.ndarray) -> np.ndarray:
        return self.elevation_profile.evaluate(s)

    def superelevation(self, s: np.ndarray) -> np.ndarray:
        """Superelevation angle (rad) at each s, 0 before the first record."""
        return self.superelevation_profile.evaluate(s)

    def lane_offset(self, s: np.ndarray) -> np.ndarray:
        """laneOffset (m) at each s, 0 before the first record."""
        return self.lane_offset_profile.evaluate(s)

    # ---- lanes -------------------------------------------------------------------------------

    def section_index(self, s: np.ndarray) -> np.ndarray:
        """Index of the lane section holding each s (the last starting at or before s)."""
        s = np.asarray(s, dtype=float)
        return np.maximum(np.searchsorted(self.section_starts, s, side="right") - 1, 0)

    def lane_borders(self, section: int, s: np.ndarray) -> np.ndarray:
        """Outer border t of every lane of lane section `section` (columns in ascending lane
        id order, `sections[section].ids`) at each s: shape (len(s), lanes)."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        return self.sections[section].outer_borders(s)

    def lane_table(self, section: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Outer t, centre t and width of every lane of a section at each s, (len(s), lanes)."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        lanes = self.sections[section]
        outer = lanes.outer_borders(s)
        center = 0.5 * (outer[:, lanes.inner] + outer)
        return outer, center, lanes.widths_at(s, outer)

    def lane_slopes(self, section: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d/ds of the outer t and of the centre t of every lane of a section, (len(s), lanes)."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        lanes = self.sections[section]
        d_outer = lanes.outer_borders(s, derivative=True)
        return d_outer, 0.5 * (d_outer[:, lanes.inner] + d_outer)

    def lane_at(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Id of the lane whose span holds each (s, t): on a border the inner lane, past the
        outermost border the outermost lane, at lane 0's border lane 0."""
        s, t = np.broadcast_arrays(np.asarray(s, dtype=float), np.asarray(t, dtype=float))
        shape = s.shape
        s, t = s.ravel(), t.ravel()
        out = np.zeros(s.shape, dtype=int)
        sec = self.section_index(s)
        for k in np.unique(sec):
            m = sec == k
            lanes = self.sections[k]
            borders = lanes.outer_borders(s[m])
            out[m] = lanes.ids[lanes.holding(t[m], borders)]
        return out.reshape(shape)

    def lane(self, s: np.ndarray, lane_id: int | np.ndarray) -> LaneSample:
        """Outer border t, centre t and width of lane `lane_id` (one id or one per s) at each s,
        in the lane section holding each s."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        ids = np.broadcast_to(np.asarray(lane_id, dtype=int), s.shape)
        t_outer = np.full(s.shape, np.nan)
        t_center = np.full(s.shape, np.nan)
        width = np.full(s.shape, np.nan)
        sec = self.section_index(s)
        for k in np.unique(sec):
            m = sec == k
            outer, center, widths = self.lane_table(int(k), s[m])
            cols = self.sections[k].columns(ids[m])
            ok = cols >= 0
            rows = np.nonzero(ok)[0]
            where = np.nonzero(m)[0][ok]
            t_outer[where] = outer[rows, cols[ok]]
            t_center[where] = center[rows, cols[ok]]
            width[where] = widths[rows, cols[ok]]
        return LaneSample(t_outer, t_center, width)

    # ---- surface -----------------------------------------------------------------------------

    def frame(self, s: np.ndarray) -> SurfaceFrame:
        """The surface frame at each s (s used as given; see `surface_point` for clamping)."""
        s = np.asarray(s, dtype=float)
        x, y, tx, ty = self.plan_view.evaluate(s)
        z = self.elevation_profile.evaluate(s)
        dz = self.elevation_profile.derivative(s)
        theta = self.superelevation_profile.evaluate(s)
        d = np.stack([tx, ty, dz], axis=-1)
        e_s = d / np.linalg.norm(d, axis=-1, keepdims=True)
        ct, st = el.cos_v(theta), el.sin_v(theta)
        ex, ey, ez = e_s[..., 0], e_s[..., 1], e_s[..., 2]
        e_t = np.stack(
            [-ct * ey - st * ez * ex, ct * ex - st * ez * ey, st * (ex * ex + ey * ey)], -1
        )
        e_t /= np.linalg.norm(e_t, axis=-1, keepdims=True)
        e_h = np.cross(d, e_t)
        e_h /= np.linalg.norm(e_h, axis=-1, keepdims=True)
        return SurfaceFrame(np.stack([x, y, z], axis=-1), e_s, e_t, e_h)

    def surface_height(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The height term h at (s, t): crossfall, the `level` lane term, lane <height> offsets.

        The lane holding t decides: its side picks the crossfall record's side, a level
        lane keeps its inner border's height, and its <height> records apply.
        """
        s = np.asarray(s, dtype=float)
        t = np.asarray(t, dtype=float)
        h = np.zeros(s.shape)
        sec = self.section_index(s)
        has_crossfall = bool(self.crossfall_profile)
        for k in np.unique(sec):
            lanes = self.sections[k]
            if not (has_crossfall or lanes.level.any() or lanes.has_heights):
                continue
            m = sec == k
            sm, tm = s[m], t[m]
            borders = lanes.outer_borders(sm)
            h[m] = self.lane_height(int(k), sm, tm, lanes.surface_lane(tm, borders), borders)
        return h

    def lane_height(
        self, section: int, s: np.ndarray, t: np.ndarray, cols: np.ndarray, borders: np.ndarray
    ) -> np.ndarray:
        """The height term h at (s, t) by the rules of lane column `cols` of lane section
        `section` (its crossfall side, its `level` flag, its <height> records), whichever lane
        holds t: `surface_height` with the lane given. `borders` is `lane_borders(section, s)`.
        A lane's own surface up to its borders (a raised sidewalk's top at its inner border,
        where `surface_height` takes the lane inside)."""
        lanes = self.sections[section]
        level = lanes.level[cols]
        t_inner = borders[np.arange(len(s)), lanes.inner[cols]]
        # Crossfall falls away from the reference line: at |t|, or |t_inner| on level lanes.
        fall = el.tan_v(self.crossfall(s, lanes.ids[cols] > 0)) if self.crossfall_profile else 0.0
        h = -fall * np.where(level, np.abs(t_inner), np.abs(t))
        if level.any():
            slope = el.tan_v(self.superelevation_profile.evaluate(s[level]))
            h[level] -= slope * (t[level] - t_inner[level])
        return h + lanes.height(s, t, cols, borders)

    def height_at(self, s: float, t: float) -> float:
        """`surface_height` at one (s, t), the same number: in plain floats when the road has
        no crossfall and the section holding s no level lane (no map lockstep ships or tests
        has either), else by `surface_height`."""
        lanes = self.sections[max(bisect_right(self.section_start_list, s) - 1, 0)]
        if not (self.crossfall_profile or lanes.level.any()):
            if not lanes.has_heights:
                return 0.0
            borders = lanes.borders_at(s)
            if not any(border != border for border in borders):  # NaN: the array rules
                column = lanes.surface_column(t, borders)
                return -0.0 * abs(t) + lanes.height_at(s, t, column, borders)
        return float(self.surface_height(np.array([s]), np.array([t]))[0])

    def crossfall(self, s: np.ndarray, left: np.ndarray) -> np.ndarray:
        """Crossfall angle (rad) at each s on the left (True) or right side of the road: the
        record in force (the first one continued before it), 0 where its side is the other."""
        s = np.asarray(s, dtype=float)
        if not self.crossfall_profile:
            return np.zeros(s.shape)
        value = self.crossfall_profile.evaluate(s)
        idx = np.maximum(np.searchsorted(self.crossfall_profile.starts, s, side="right") - 1, 0)
        side = self.crossfall_sides[idx]
        applies = (side == 0) | ((side == 1) & left) | ((side == 2) & ~left)
        return np.where(applies, value, 0.0)

    def surface_point(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Road surface point (x, y, z) at each (s, t), shape (..., 3); s is clamped to
        [0, length] as libOpenDRIVE does."""
        s, t = np.broadcast_arrays(np.asarray(s, dtype=float), np.asarray(t, dtype=float))
        shape = s.shape
        s = np.clip(s.ravel(), 0.0, self.length)
        t = t.ravel()
        f = self.frame(s)
        h = self.surface_height(s, t)
        point = f.origin + t[:, None] * f.e_t + h[:, None] * f.e_h
        return point.reshape((*shape, 3))


def road_evaluators(document: OpenDrive) -> dict[str, RoadEvaluator]:
    """One evaluator per road of a document, by road id, in document order."""
    return {road_id: RoadEvaluator(road) for road_id, road in document.roads.items()}
