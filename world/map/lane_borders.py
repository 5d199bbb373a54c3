"""Points on the road surface along the lanes' borders, in CARLA's frame, lane by lane.

Each lane's two borders are evaluated on the lane's own surface (its crossfall side, its
`level` flag and its <height> records): a sidewalk raised by <height> records has its top
at both of its borders, where `RoadEvaluator.surface_point` (the lane holding t) gives the
lane inside at the inner border. The map's pictures (recorder.picture.map_layer) and the
3-D scene (world.scene) sample the lanes through here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.model import Road

__all__ = ["SectionBorders", "lane_points", "section_borders", "section_spans"]

_FLIP = np.array([1.0, -1.0, 1.0])  # OpenDRIVE's right-handed frame to CARLA's


@dataclass(slots=True)
class SectionBorders:
    """The borders of every lane of one lane section at N values of s (L lanes, lane 0
    included, columns in ascending lane id). Points are (N, L, 3) in CARLA's frame."""

    s: np.ndarray
    lane_ids: np.ndarray
    t_outer: np.ndarray  # (N, L)
    t_inner: np.ndarray  # (N, L)
    outer: np.ndarray  # (N, L, 3) the lane's surface at its outer border
    inner: np.ndarray  # (N, L, 3) the lane's surface at its inner border
    up: np.ndarray  # (N, 3) the surface's normal e_h at each s, CARLA's frame


def section_spans(road: Road) -> list[tuple[int, float, float]]:
    """(index, start s, end s) of each lane section of `road` with a positive length."""
    sections = road.lane_sections
    out = []
    for k, section in enumerate(sections):
        end = sections[k + 1].s if k + 1 < len(sections) else road.length
        if end > section.s:
            out.append((k, section.s, end))
    return out


def lane_points(
    evaluator: RoadEvaluator,
    section: int,
    s: np.ndarray,
    t: np.ndarray,
    cols: np.ndarray,
    lift: float = 0.0,
) -> np.ndarray:
    """(N, M, 3) CARLA-frame points at each s (N,) and t (N, M) on the surface of lane column
    `cols` (M,) of `section` (each column's own height rule), raised `lift` metres along the
    surface's normal; s is clamped to the road as `surface_point` clamps it."""
    s = np.clip(np.asarray(s, dtype=float), 0.0, evaluator.length)
    t = np.asarray(t, dtype=float)
    n, m = t.shape
    frame = evaluator.frame(s)
    borders = evaluator.lane_borders(section, s)
    ss = np.repeat(s, m)
    h = evaluator.lane_height(section, ss, t.ravel(), np.tile(cols, n), np.repeat(borders, m, 0))
    h = h.reshape(n, m) + lift
    points = frame.origin[:, None, :] + t[..., None] * frame.e_t[:, None, :]
    points += h[..., None] * frame.e_h[:, None, :]
    return points * _FLIP


def section_borders(evaluator: RoadEvaluator, section: int, s: np.ndarray) -> SectionBorders:
    """Both borders of every lane of lane section `section` at each s, each on its lane's
    own surface."""
    s = np.clip(np.atleast_1d(np.asarray(s, dtype=float)), 0.0, evaluator.length)
    lanes = evaluator.sections[section]
    t_outer = evaluator.lane_borders(section, s)
    t_inner = t_outer[:, lanes.inner]
    cols = np.arange(len(lanes.ids))
    frame = evaluator.frame(s)
    n, m = t_outer.shape
    ss = np.repeat(s, m)
    every = np.tile(cols, n)
    repeated = np.repeat(t_outer, m, 0)
    points = []
    for t in (t_outer, t_inner):
        h = evaluator.lane_height(section, ss, t.ravel(), every, repeated).reshape(n, m)
        p = frame.origin[:, None, :] + t[..., None] * frame.e_t[:, None, :]
        p += h[..., None] * frame.e_h[:, None, :]
        points.append(p * _FLIP)
    return SectionBorders(
        s, lanes.ids.copy(), t_outer, t_inner, points[0], points[1], frame.e_h * _FLIP
    )
