"""Lane centre frames in CARLA's frame: position, yaw/pitch/roll and width on arrays of s.

The centre of a lane is the surface point (libOpenDRIVE's get_surface_pt) half
way between its inner and outer border. Its rotation follows CARLA's
Lane::ComputeTransform: yaw = -(heading of the centre line), + 180 deg for lanes
with id > 0; pitch = atan of the elevation slope, written 360 - pitch for lanes
with id > 0 as CARLA does. CARLA leaves roll at 0; lockstep reports the road's
superelevation as roll (CARLA's towns have none, so their numbers agree). The
centre line's heading is the reference heading plus atan(dt/ds) of the centre t,
which is CARLA's small-angle sum for right lanes and the true direction for both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.opendrive import Road
from world.opendrive.evaluation import RoadEvaluator

__all__ = ["LaneFrames", "RoadFrames"]

_DT = 1e-3  # half step of the central difference for dt/ds of lane centres


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
        dt_ds = (g.lane_table(index, s + _DT)[1] - g.lane_table(index, s - _DT)[1]) / (2.0 * _DT)
        ss = np.broadcast_to(s[:, None], t.shape)
        points = g.surface_point(ss, t)
        _, _, _, hdg, slope = self.reference(s)
        heading = hdg[:, None] + np.arctan(dt_ds)
        positive = ids[None, :] > 0
        yaw = -np.degrees(heading) + np.where(positive, 180.0, 0.0)
        pitch = np.broadcast_to(np.degrees(np.arctan(slope))[:, None], yaw.shape)
        pitch = np.where(positive, 360.0 - pitch, pitch)
        bank = np.degrees(g.superelevation(s))[:, None]
        roll = np.where(positive, -bank, bank) * np.ones_like(yaw)
        flip = np.array([1.0, -1.0, 1.0])
        lateral = np.broadcast_to((g.frame(s).e_t * flip)[:, None, :], points.shape)
        return LaneFrames(s, ids, points * flip, yaw, pitch, roll, width, lateral)

    def section_index(self, s: float) -> int:
        """Index of the lane section in force at s (a section starting exactly at s wins)."""
        return int(self.geometry.section_index(np.array([s]))[0])
