"""Piecewise cubic profiles (elevation, superelevation, crossfall, lane widths) on arrays of s.

A record starting exactly at s is the one used there (libOpenDRIVE's upper_bound - 1
lookup). Before the first record a `CubicProfile` is 0 (`extend_start=False`: road
profiles) or the first polynomial continued backward (`extend_start=True`: lane
widths, crossfall). `GlobalCubic` is libOpenDRIVE's form, for laneOffset and the
lane borders built from it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from world.map.opendrive.model import CubicRecord

__all__ = ["CubicProfile", "GlobalCubic"]


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


class GlobalCubic:
    """Piecewise cubics with coefficients in absolute s, keyed by start: libOpenDRIVE's form.

    libOpenDRIVE stores each record as a + b*s + c*s^2 + d*s^3 in absolute s and
    builds a lane's outer border by adding such profiles key by key. Lane borders
    are computed the same way, in the same order, so that they round exactly as
    libOpenDRIVE's do: which lane holds a point lying on a border shared with a
    zero-width lane depends on that last bit. A profile is 0 before its first key
    only through `add` (where the other profile alone counts); `evaluate` continues
    the first polynomial backward.
    """

    __slots__ = ("_coefficient_array", "_key_array", "coefficients", "keys")

    def __init__(self, keys: list[float], coefficients: list[tuple[float, float, float, float]]):
        self.keys = keys
        self.coefficients = coefficients
        self._key_array = np.array(keys, dtype=float)
        self._coefficient_array = np.array(coefficients, dtype=float).reshape(len(keys), 4)

    @classmethod
    def from_records(
        cls, records: Sequence[CubicRecord], *, offset: float = 0.0, zero_at_start: bool = False
    ) -> GlobalCubic:
        """Records starting at offset + record.s (a later record at an equal start wins);
        `zero_at_start` puts a zero polynomial at s = 0 first, as road profiles have."""
        by_key: dict[float, tuple[float, float, float, float]] = {}
        if zero_at_start:
            by_key[0.0] = (0.0, 0.0, 0.0, 0.0)
        for r in records:
            s0 = offset + r.s
            a, b, c, d = r.a, r.b, r.c, r.d
            by_key[s0] = (
                a - b * s0 + c * s0 * s0 - d * s0 * s0 * s0,
                b - 2 * c * s0 + 3 * d * s0 * s0,
                c - 3 * d * s0,
                d,
            )
        keys = sorted(by_key)
        return cls(keys, [by_key[k] for k in keys])

    def __bool__(self) -> bool:
        return bool(self.keys)

    def negate(self) -> GlobalCubic:
        return GlobalCubic(list(self.keys), [(-a, -b, -c, -d) for a, b, c, d in self.coefficients])

    def _poly_at(self, s: float) -> tuple[float, float, float, float] | None:
        """The polynomial in force at s, None before the first key."""
        if not self.keys or s < self.keys[0]:
            return None
        return self.coefficients[bisect_right(self.keys, s) - 1]

    def add(self, other: GlobalCubic) -> GlobalCubic:
        """Sum key by key over both profiles' keys (only one counts before the other starts)."""
        if not other.keys:
            return self
        if not self.keys:
            return other
        keys = sorted(set(self.keys) | set(other.keys))
        coefficients = []
        for k in keys:
            mine, theirs = self._poly_at(k), other._poly_at(k)
            if mine is None or theirs is None:
                coefficients.append(theirs if mine is None else mine)
            else:
                coefficients.append(tuple(x + y for x, y in zip(mine, theirs, strict=True)))
        return GlobalCubic(keys, coefficients)

    def _gather(self, s: np.ndarray) -> tuple[np.ndarray, ...]:
        idx = np.maximum(np.searchsorted(self._key_array, s, side="right") - 1, 0)
        return tuple(self._coefficient_array[idx].T)

    def evaluate(self, s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, dtype=float)
        if not self.keys:
            return np.zeros(s.shape)
        a, b, c, d = self._gather(s)
        return a + b * s + c * s * s + d * s * s * s

    def derivative(self, s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, dtype=float)
        if not self.keys:
            return np.zeros(s.shape)
        _, b, c, d = self._gather(s)
        return b + 2 * c * s + 3 * d * s * s

    def value_at(self, s: float) -> float:
        """`evaluate` at one s, in plain floats (the same operations in the same order)."""
        if not self.keys:
            return 0.0
        a, b, c, d = self.coefficients[max(bisect_right(self.keys, s) - 1, 0)]
        return a + b * s + c * s * s + d * s * s * s
