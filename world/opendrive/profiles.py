"""Piecewise cubic profiles (elevation, superelevation, laneOffset, lane widths) on arrays of s.

A record starting exactly at s is the one used there (libOpenDRIVE's upper_bound - 1
lookup). Before the first record a profile is 0 (`extend_start=False`: road
profiles) or the first polynomial continued backward (`extend_start=True`: lane
widths and borders).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from world.opendrive.model import CubicRecord

__all__ = ["CubicProfile"]


class CubicProfile:
    """Cubic records a + b*ds + c*ds^2 + d*ds^3, ds = s - start, sorted by start."""

    __slots__ = ("coefficients", "extend_start", "starts")

    def __init__(
        self, records: Sequence[CubicRecord], *, offset: float = 0.0, extend_start: bool = False
    ) -> None:
        """`offset` is added to each record's `s` (a lane section's start for sOffset records)."""
        ordered = sorted(records, key=lambda r: r.s)  # stable: equal starts keep file order
        self.starts = np.array([r.s + offset for r in ordered], dtype=float)
        self.coefficients = np.array([(r.a, r.b, r.c, r.d) for r in ordered], dtype=float)
        self.coefficients = self.coefficients.reshape(len(ordered), 4)
        self.extend_start = extend_start

    def __bool__(self) -> bool:
        return len(self.starts) > 0

    def _select(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Record index, ds from that record's start, and a mask of s where the profile is 0."""
        idx = np.searchsorted(self.starts, s, side="right") - 1
        before = idx < 0
        idx = np.maximum(idx, 0)
        ds = s - self.starts[idx]
        zero = before if not self.extend_start else np.zeros(s.shape, dtype=bool)
        return idx, ds, zero

    def evaluate(self, s: np.ndarray) -> np.ndarray:
        """Profile value at each s."""
        s = np.asarray(s, dtype=float)
        if not len(self.starts):
            return np.zeros(s.shape)
        idx, ds, zero = self._select(s)
        a, b, c, d = self.coefficients[idx].T
        value = a + ds * (b + ds * (c + ds * d))
        return np.where(zero, 0.0, value)

    def derivative(self, s: np.ndarray) -> np.ndarray:
        """d(value)/ds at each s."""
        s = np.asarray(s, dtype=float)
        if not len(self.starts):
            return np.zeros(s.shape)
        idx, ds, zero = self._select(s)
        _, b, c, d = self.coefficients[idx].T
        value = b + ds * (2.0 * c + ds * 3.0 * d)
        return np.where(zero, 0.0, value)
