"""Where along s a lane section is sampled for its triangles: densely on curves, sparsely on
straights, so that no chord between two samples strays more than `TOLERANCE` from a lane
border.

The section's lane borders are evaluated every `FINE_STEP` metres (about); their second
difference gives each border's bend at each fine point (curvature of the plan, of the
elevation and of the widths alike), and a chord of length L over a stretch whose largest
bend is c strays at most c L^2 / 8. From each fine point the farthest fine point whose
chord keeps to TOLERANCE (and to MAX_STEP) is found for all points at once (a binary
search over a sparse table of the bends' maxima), and the samples walk from the section's
start by these farthest steps to its end. Where even one fine step strays more (a border
of radius under about 1.6 m), every fine point is kept. Plain IEEE arithmetic: the same
samples on every machine.
"""

from __future__ import annotations

import math

import numpy as np

from world.map.opendrive.evaluation import RoadEvaluator
from world.scene.builder import norms

__all__ = ["FINE_STEP", "MAX_STEP", "TOLERANCE", "section_samples"]

FINE_STEP = 0.5  # m between the evaluated points
MAX_STEP = 10.0  # m: the longest step, even on a straight
TOLERANCE = 0.02  # m: what a chord may stray from the lanes' borders


def section_samples(evaluator: RoadEvaluator, section: int, s0: float, s1: float) -> np.ndarray:
    """Increasing s from s0 to s1 (both included) for the triangles of lane section
    `section`."""
    n = max(2, math.ceil((s1 - s0) / FINE_STEP) + 1)
    fine = np.linspace(s0, s1, n)
    if n == 2:
        return fine
    h = fine[1] - fine[0]
    t = evaluator.lane_borders(section, fine)  # (n, lanes)
    frame = evaluator.frame(fine)
    points = frame.origin[:, None, :] + t[..., None] * frame.e_t[:, None, :]
    second = points[:-2] - 2.0 * points[1:-1] + points[2:]
    bend = norms(second).max(axis=1) / (h * h)  # at the inner fine points
    bend = np.concatenate([bend[:1], bend, bend[-1:]])
    farthest = _farthest(fine, bend)
    keep = [0]
    while keep[-1] < n - 1:
        keep.append(farthest[keep[-1]])
    return fine[keep]


def _farthest(s: np.ndarray, bend: np.ndarray) -> list[int]:
    """For each fine point i, the largest j > i whose chord from i keeps to TOLERANCE over
    the largest bend of points i..j, and to MAX_STEP (at least i + 1)."""
    n = len(s)
    table = [bend]  # table[k][i]: the largest bend of points i .. i + 2^k - 1
    while (1 << len(table)) <= n:
        width = 1 << (len(table) - 1)
        previous = table[-1]
        table.append(np.maximum(previous[:-width], previous[width:]))
    i = np.arange(n - 1)
    lo = i + 1  # always allowed
    hi = np.maximum(np.searchsorted(s, s[:-1] + MAX_STEP, side="right") - 1, lo)
    while (hi > lo).any():
        mid = (lo + hi + 1) // 2
        span = mid - i + 1
        level = np.frexp(span.astype(np.float64))[1] - 1  # floor(log2(span)), exactly
        largest = np.empty(len(i))
        for k in np.unique(level).tolist():
            m = level == k
            row = table[k]
            largest[m] = np.maximum(row[i[m]], row[mid[m] - (1 << k) + 1])
        length = s[mid] - s[i]
        ok = largest * (length * length) <= 8.0 * TOLERANCE
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid - 1)
    return lo.tolist()
