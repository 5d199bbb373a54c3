"""Where background vehicles stand relative to a route, worked out independently of the
background's own code: the nearest point of the dense plan (1 m apart), the distance
along it, the lane by the lateral offset in lane widths, and whether a vehicle heads the
route's way or against it; and the bubble's radii from ScenarioRunner's numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UPKEEP_EVERY = 10  # ticks between two upkeeps (0.5 s at 0.05 s a tick); the first at tick 0
FRONT, BACK, SPACING = 2, 2, 15.0  # per lane ahead and behind, m between (ScenarioRunner's)
PER_SPEED = 1.7  # m of radius per m/s of the ego
CLEARANCE = 6.0  # m ahead or behind a new vehicle on its lane (2 m either side) kept free
LANE_BAND = 2.0
NEAR_CLEARANCE = 2.5  # m all round
SAFE_DISTANCE = 15.0  # m from the ego to a new vehicle


@dataclass
class Where:
    arc: float  # m along the route
    lane: int  # lanes right of the route's (negative: left)
    same_way: bool
    opposite_way: bool


class RouteGeometry:
    def __init__(self, plan: list, lane_width: float) -> None:
        self.points = np.array([(tf.location.x, tf.location.y) for tf, _ in plan])
        self.yaw = [tf.rotation.yaw for tf, _ in plan]
        steps = np.diff(self.points, axis=0)
        self.accum = np.concatenate([[0.0], np.cumsum(np.hypot(steps[:, 0], steps[:, 1]))])
        self.width = lane_width

    def where(self, x: float, y: float, yaw: float) -> Where:
        gaps = np.hypot(self.points[:, 0] - x, self.points[:, 1] - y)
        j = int(np.argmin(gaps))
        heading = math.radians(self.yaw[j])
        tx, ty = math.cos(heading), math.sin(heading)
        dx, dy = x - self.points[j, 0], y - self.points[j, 1]
        along = dx * tx + dy * ty
        lateral = dy * tx - dx * ty
        turn = math.cos(math.radians(yaw - self.yaw[j]))
        lane = round(lateral / self.width)
        return Where(float(self.accum[j]) + along, lane, turn > 0.7, turn < -0.7)


def radii(speed: float) -> tuple[float, float, float]:
    """The bubble's inner and outer radius ahead and its radius behind at `speed` m/s."""
    inner = FRONT * SPACING + PER_SPEED * speed
    return inner, inner + SPACING, (BACK + 1) * SPACING + PER_SPEED * speed


def first_seen(frames: list[dict]) -> dict[int, int]:
    """Each vehicle's first frame."""
    out: dict[int, int] = {}
    for k, frame in enumerate(frames):
        for actor_id in frame:
            out.setdefault(actor_id, k)
    return out


def last_seen(frames: list[dict]) -> dict[int, int]:
    out: dict[int, int] = {}
    for k, frame in enumerate(frames):
        for actor_id in frame:
            out[actor_id] = k
    return out
