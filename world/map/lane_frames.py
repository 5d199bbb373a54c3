"""Lane centre frames in CARLA's frame: position, yaw/pitch/roll and width on arrays of s.

The centre of a lane is the surface point (libOpenDRIVE's get_surface_pt) half
way between its inner and outer border. Its rotation follows CARLA's
Lane::ComputeTransform: yaw = -(heading of the centre line), + 180 deg for lanes
with id > 0; pitch = atan of the elevation slope, written 360 - pitch for lanes
with id > 0 as CARLA does. CARLA leaves roll at 0; lockstep reports the road's
superelevation as roll (CARLA's towns have none, so their numbers agree). The
centre line's heading is the reference heading plus atan(dt/ds) of the centre t
(dt/ds from the laneOffset and width polynomials' derivatives): CARLA's
small-angle sum for right lanes, and the true direction on both sides.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.map.opendrive import Road
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.profiles import CubicProfile, GlobalCubic

__all__ = ["LaneFrames", "RoadFrames"]


@dataclass(slots=True)
class LaneFrames:
    """Frames of the lanes of one section at N values of s, for L lanes (columns by lane id).

    `location` (N, L, 3) is CARLA's frame; angles are degrees; `lateral` (N, L, 3) is the
    unit vector across the road toward +t (OpenDRIVE's left), in CARLA's frame.
    """

    s: np.ndarray
    lane_ids: np.ndarray
    location: np.ndarray
    yaw: np.ndarray
    pitch: np.ndarray
    roll: np.ndarray
    width: np.ndarray
    lateral: np.ndarray

    def column(self, lane_id: int) -> int:
        return int(np.flatnonzero(self.lane_ids == lane_id)[0])


class RoadFrames:
    """CARLA-frame lane frames of one road, on top of its RoadEvaluator."""

    def __init__(self, road: Road) -> None:
        self.road = road
        self.geometry = RoadEvaluator(road)

    def frames(self, index: int, s: np.ndarray) -> LaneFrames:
        """Frames of every lane (lane 0 included) of lane section `index` at each s."""
        g = self.geometry
        s = np.asarray(s, dtype=float).ravel()
        ids = g.sections[index].ids
        _, t, width = g.lane_table(index, s)
        dt_ds = g.lane_slopes(index, s)[1]
        frame = g.frame(s)
        ss = np.broadcast_to(s[:, None], t.shape).ravel()
        h = g.surface_height(ss, t.ravel()).reshape(t.shape)
        points = frame.origin[:, None, :] + t[..., None] * frame.e_t[:, None, :]
        points += h[..., None] * frame.e_h[:, None, :]
        yaw, pitch, roll = _angles(frame.e_s, dt_ds, g.superelevation(s), ids[None, :] > 0)
        flip = np.array([1.0, -1.0, 1.0])
        lateral = np.broadcast_to((frame.e_t * flip)[:, None, :], points.shape)
        return LaneFrames(s, ids, points * flip, yaw, pitch, roll, width, lateral)

    def centres(self, index: int, s: np.ndarray, lane_ids: np.ndarray) -> np.ndarray:
        """(N, 3) CARLA-frame centres of lane `lane_ids[i]` of section `index` at `s[i]`:
        `frames`' locations, the same operations, evaluating only the lanes asked for
        (no angles, widths or slopes, one surface height per point)."""
        g = self.geometry
        s = np.asarray(s, dtype=float).ravel()
        lanes = g.sections[index]
        outer = lanes.outer_borders(s)
        rows = np.arange(len(s))
        cols = np.array([lanes.column[int(lane)] for lane in lane_ids], dtype=np.int64)
        t = (0.5 * (outer[:, lanes.inner] + outer))[rows, cols]
        frame = g.frame(s)
        points = frame.origin + t[:, None] * frame.e_t
        points += g.surface_height(s, t)[:, None] * frame.e_h
        return points * np.array([1.0, -1.0, 1.0])

    def pose(self, index: int, lane_id: int, s: float) -> tuple[float, ...]:
        """x, y, z (CARLA frame), yaw, pitch, roll (deg) and width of one lane centre at s:
        the same numbers as `frames`, evaluating only this lane and its inner border."""
        g = self.geometry
        lanes = g.sections[index]
        col = lanes.column[lane_id]
        outer, d_outer = _global_at(lanes.border_profiles[col], s)
        inner, d_inner = _global_at(lanes.border_profiles[lanes.inner[col]], s)
        t = 0.5 * (inner + outer)
        if col == lanes.center:
            width = 0.0
        elif lanes.by_border[col]:
            width = abs(outer - inner)
        else:
            width = _cubic_at(lanes.widths[col], s)
        # The surface frame at s as RoadEvaluator.frame builds it, in scalar arithmetic.
        px, py, tx, ty = g.plan_view.point_at(s)
        pz, dz = _cubic_at(g.elevation_profile, s, slope=True)
        theta = _cubic_at(g.superelevation_profile, s)
        norm = math.sqrt(tx * tx + ty * ty + dz * dz)
        ex, ey, ez = tx / norm, ty / norm, dz / norm
        ct, st = el.cos(theta), el.sin(theta)
        e_t = (-ct * ey - st * ez * ex, ct * ex - st * ez * ey, st * (ex * ex + ey * ey))
        scale = math.sqrt(sum(c * c for c in e_t))
        e_t = tuple(c / scale for c in e_t)
        point = [px + t * e_t[0], py + t * e_t[1], pz + t * e_t[2]]
        if g.crossfall_profile or lanes.level.any() or lanes.has_heights:
            h = g.height_at(s, t)
            if h != 0.0 or any(_negative_zero(c) for c in point):
                e_h = np.cross([tx, ty, dz], e_t)
                point = list(np.asarray(point) + h * e_h / np.linalg.norm(e_h))
        hdg = el.atan2(ey, ex)
        positive = lane_id > 0
        yaw = -math.degrees(hdg + el.atan(0.5 * (d_inner + d_outer)))
        pitch = math.degrees(el.atan(ez / el.hypot(ex, ey)))
        roll = math.degrees(theta)
        if positive:
            yaw, pitch, roll = yaw + 180.0, 360.0 - pitch, -roll
        return (
            float(point[0]),
            -float(point[1]),
            float(point[2]),
            yaw,
            pitch,
            roll,
            float(width),
        )

    def section_index(self, s: float) -> int:
        """Index of the lane section in force at s (a section starting exactly at s wins)."""
        return int(self.geometry.section_index(np.array([s]))[0])


def _angles(e_s: np.ndarray, dt_ds: np.ndarray, bank: np.ndarray, positive: np.ndarray):
    """CARLA's yaw, pitch and roll (deg), shape (N, L), of lane centres from the unit road
    tangent e_s (N, 3), centre slopes dt/ds (N, L), superelevation (N,) rad, lane id > 0."""
    hdg = el.atan2_v(e_s[:, 1], e_s[:, 0])
    slope = e_s[:, 2] / el.hypot_v(e_s[:, 0], e_s[:, 1])
    yaw = -np.degrees(hdg[:, None] + el.atan_v(dt_ds)) + np.where(positive, 180.0, 0.0)
    pitch = np.broadcast_to(np.degrees(el.atan_v(slope))[:, None], yaw.shape)
    pitch = np.where(positive, 360.0 - pitch, pitch)
    roll = np.where(positive, -1.0, 1.0) * np.degrees(bank)[:, None]
    return yaw, pitch, roll


def _negative_zero(value: float) -> bool:
    """Whether `value` is -0.0: the one number that adding h = 0 along e_h (a signed zero)
    can change, so that a zero height may skip the addition only when no coordinate is it."""
    return value == 0.0 and math.copysign(1.0, value) < 0.0


def _global_at(profile: GlobalCubic, s: float) -> tuple[float, float]:
    """Value and slope at one s of a GlobalCubic (first polynomial continued backward)."""
    if not profile.keys:
        return 0.0, 0.0
    a, b, c, d = profile.coefficients[max(bisect_right(profile.keys, s) - 1, 0)]
    return a + s * (b + s * (c + s * d)), b + s * (2.0 * c + s * 3.0 * d)


def _cubic_at(profile: CubicProfile, s: float, *, slope: bool = False):
    """Value (and with `slope`, the derivative too) at one s of a CubicProfile, with its
    rule before the first record: 0, or the first polynomial continued backward."""
    if not len(profile.starts):
        return (0.0, 0.0) if slope else 0.0
    k = int(np.searchsorted(profile.starts, s, side="right")) - 1
    if k < 0 and not profile.extend_start:
        return (0.0, 0.0) if slope else 0.0
    k = max(k, 0)
    a, b, c, d = profile.coefficients[k].tolist()
    ds = s - float(profile.starts[k])
    value = a + ds * (b + ds * (c + ds * d))
    return (value, b + ds * (2.0 * c + ds * 3.0 * d)) if slope else value
