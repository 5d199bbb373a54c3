"""Where signals and objects stand, in OpenDRIVE's frame, as CARLA places them.

CARLA puts a signal on the road's reference line at s (no laneOffset, no
superelevation), moves it t sideways in the horizontal plane (+t to the left),
raises it by zOffset above the elevation there, and turns it to the reference
heading plus hOffset; pitch and roll are the signal's own. (CARLA's map then
flips y for its left-handed frame and moves traffic lights 0.25 m forward; that
is the map API's business.) Object outlines follow the same placement: a
<cornerLocal> (u, v, z) is in the frame of the object standing at (s, t) with
heading reference + hdg; a <cornerRoad> (s, t, dz) stands on the reference line.
"""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.model import CornerLocal, Outline, RoadObject, Signal

__all__ = ["outline_points", "road_pose", "signal_pose"]


def road_pose(
    evaluator: RoadEvaluator,
    s: np.ndarray,
    t: np.ndarray,
    z_offset: np.ndarray | float = 0.0,
    h_offset: np.ndarray | float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x, y, z and heading (rad) of points at (s, t) raised by z_offset, turned by h_offset."""
    s = np.clip(np.asarray(s, dtype=float), 0.0, evaluator.length)
    t = np.asarray(t, dtype=float)
    x, y, tx, ty = evaluator.plan_view.evaluate(s)
    z = evaluator.elevation_profile.evaluate(s) + z_offset
    return x - t * ty, y + t * tx, z, el.atan2_v(ty, tx) + h_offset


def signal_pose(evaluator: RoadEvaluator, signal: Signal) -> tuple[float, float, float, float]:
    """x, y, z, heading (rad) of a signal of the evaluator's road."""
    x, y, z, hdg = road_pose(evaluator, signal.s, signal.t, signal.z_offset, signal.h_offset)
    return float(x), float(y), float(z), float(hdg)


def outline_points(evaluator: RoadEvaluator, obj: RoadObject, outline: Outline) -> np.ndarray:
    """Corners (n, 3) of one outline of a road object, in order."""
    ox, oy, oz, heading = road_pose(evaluator, obj.s, obj.t, obj.z_offset, obj.hdg)
    points = np.empty((len(outline.corners), 3))
    c, sn = el.cos_v(heading), el.sin_v(heading)
    for i, corner in enumerate(outline.corners):
        if isinstance(corner, CornerLocal):
            points[i] = (
                ox + c * corner.u - sn * corner.v,
                oy + sn * corner.u + c * corner.v,
                oz + corner.z,
            )
        else:
            x, y, z, _ = road_pose(evaluator, corner.s, corner.t, corner.dz)
            points[i] = (x, y, z)
    return points
