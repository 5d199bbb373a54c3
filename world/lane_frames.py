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

from dataclasses import dataclass

import numpy as np

from world.opendrive import Road
from world.opendrive.evaluation import RoadEvaluator

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

    def reference(self, s: np.ndarray) -> tuple[np.ndarray, ...]:
        """Reference line x, y, z (OpenDRIVE frame), heading (rad) and elevation slope at s."""
        x, y, z, hdg = self.geometry.reference(s)
        return x, y, z, hdg, self.geometry.tangent(s)[2]

    def frames(self, index: int, s: np.ndarray) -> LaneFrames:
        """Frames of every lane (lane 0 included) of lane section `index` at each s."""
        g = self.geometry
        s = np.asarray(s, dtype=float).ravel()
        ids = g.sections[index].ids
        _, t, width = g.lane_table(index, s)
        dt_ds = self._centre_slope(index, s)
        frame = g.frame(s)
        ss = np.broadcast_to(s[:, None], t.shape).ravel()
        h = g.surface_height(ss, t.ravel()).reshape(t.shape)
        points = frame.origin[:, None, :] + t[..., None] * frame.e_t[:, None, :]
        points += h[..., None] * frame.e_h[:, None, :]
        e_s = frame.e_s
        hdg = np.arctan2(e_s[:, 1], e_s[:, 0])
        slope = e_s[:, 2] / np.hypot(e_s[:, 0], e_s[:, 1])
        heading = hdg[:, None] + np.arctan(dt_ds)
        positive = ids[None, :] > 0
        yaw = -np.degrees(heading) + np.where(positive, 180.0, 0.0)
        pitch = np.broadcast_to(np.degrees(np.arctan(slope))[:, None], yaw.shape)
        pitch = np.where(positive, 360.0 - pitch, pitch)
        bank = np.degrees(g.superelevation(s))[:, None]
        roll = np.where(positive, -bank, bank) * np.ones_like(yaw)
        flip = np.array([1.0, -1.0, 1.0])
        lateral = np.broadcast_to((frame.e_t * flip)[:, None, :], points.shape)
        return LaneFrames(s, ids, points * flip, yaw, pitch, roll, width, lateral)

    def _centre_slope(self, index: int, s: np.ndarray) -> np.ndarray:
        """d(centre t)/ds of every lane of a section at each s, from the polynomials' own
        derivatives (a laneOffset or width record starting at s is the one used there)."""
        lanes = self.geometry.sections[index]
        offset = self.geometry.lane_offset_profile.derivative(s)
        outer = np.empty((len(s), len(lanes.ids)))
        outer[:, lanes.center] = offset
        count = len(lanes.ids)
        for step, cols in (
            (1, range(lanes.center + 1, count)),
            (-1, range(lanes.center - 1, -1, -1)),
        ):
            slope = offset
            for col in cols:
                if lanes.widths[col] or not lanes.borders[col]:
                    slope = slope + step * lanes.widths[col].derivative(s)
                else:
                    slope = lanes.borders[col].derivative(s)
                outer[:, col] = slope
        inner = [lanes.inner_column(c) for c in range(count)]
        return 0.5 * (outer + outer[:, inner])

    def section_index(self, s: float) -> int:
        """Index of the lane section in force at s (a section starting exactly at s wins)."""
        return int(self.geometry.section_index(np.array([s]))[0])
