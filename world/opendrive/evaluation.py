"""Vectorised geometry of one road in OpenDRIVE's right-handed frame (x east, y north, z up).

`RoadEvaluator(road)` answers, for numpy arrays of s (and t):
reference line x, y, z, heading and tangent; elevation, superelevation,
laneOffset; lane section index; each lane's outer border t, centre t and width;
and the road surface point (s, t) -> x, y, z as libOpenDRIVE's
`Road::get_surface_pt` computes it:

    p = refline(s) + t * e_t + h * e_h

with e_s the unit 3D tangent (dx/ds, dy/ds, dz/ds), e_t the horizontal left
normal tilted by the superelevation angle about e_s (positive lifts +t), and
e_h = unit(e_s x e_t). h is the lane's <height> offset (and, on `level` lanes,
the term cancelling superelevation); crossfall is not modelled (h has no
crossfall term).
"""

from __future__ import annotations

import numpy as np

from world.opendrive.lanes import SectionLanes
from world.opendrive.model import Road
from world.opendrive.planview import PlanView
from world.opendrive.profiles import CubicProfile

__all__ = ["LaneSample", "RoadEvaluator", "SurfaceFrame"]


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
        "elevation_profile",
        "lane_offset_profile",
        "length",
        "plan_view",
        "road",
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
        self.lane_offset_profile = CubicProfile(road.lane_offsets)
        self.sections = [SectionLanes(section) for section in road.lane_sections]
        self.section_starts = np.array([sec.s0 for sec in self.sections], dtype=float)

    # ---- reference line and profiles ---------------------------------------------------------

    def reference(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Reference line x, y, z (elevation) and heading (rad, in (-pi, pi]) at each s."""
        s = np.asarray(s, dtype=float)
        x, y, tx, ty = self.plan_view.evaluate(s)
        return x, y, self.elevation_profile.evaluate(s), np.arctan2(ty, tx)

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
        return self.sections[section].outer_borders(s, self.lane_offset_profile.evaluate(s))

    def lane_table(self, section: int, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Outer t, centre t and width of every lane of a section at each s, (len(s), lanes)."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        lanes = self.sections[section]
        outer = lanes.outer_borders(s, self.lane_offset_profile.evaluate(s))
        inner_cols = [lanes.inner_column(c) for c in range(len(lanes.ids))]
        center = 0.5 * (outer[:, inner_cols] + outer)
        return outer, center, lanes.widths_at(s, outer)

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
            cols = np.array([self.sections[k].column.get(int(i), -1) for i in ids[m]], dtype=int)
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
        ct, st = np.cos(theta), np.sin(theta)
        ex, ey, ez = e_s[..., 0], e_s[..., 1], e_s[..., 2]
        e_t = np.stack(
            [-ct * ey - st * ez * ex, ct * ex - st * ez * ey, st * (ex * ex + ey * ey)], -1
        )
        e_t /= np.linalg.norm(e_t, axis=-1, keepdims=True)
        e_h = np.cross(d, e_t)
        e_h /= np.linalg.norm(e_h, axis=-1, keepdims=True)
        return SurfaceFrame(np.stack([x, y, z], axis=-1), e_s, e_t, e_h)

    def surface_height(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The height term h at (s, t): lane <height> offsets and the `level` lane term."""
        s = np.asarray(s, dtype=float)
        t = np.asarray(t, dtype=float)
        h = np.zeros(s.shape)
        sec = self.section_index(s)
        for k in np.unique(sec):
            lanes = self.sections[k]
            if not (lanes.level.any() or any(r is not None for r in lanes.heights)):
                continue
            m = sec == k
            sm, tm = s[m], t[m]
            borders = lanes.outer_borders(sm, self.lane_offset_profile.evaluate(sm))
            cols = lanes.lane_at(tm, borders)
            hm = np.zeros(sm.shape)
            level = lanes.level[cols]
            if level.any():
                inner = np.array([lanes.inner_column(int(c)) for c in cols[level]], dtype=int)
                t_inner = borders[np.nonzero(level)[0], inner]
                slope = np.tan(self.superelevation_profile.evaluate(sm[level]))
                hm[level] = slope * (tm[level] - t_inner)
            hm += lanes.height(sm, tm, cols, borders)
            h[m] = hm
        return h

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
