"""Reference lines built piece by piece: lines, arcs and clothoid spirals chained end to start.

Each piece starts where the last one ended, so the written `<geometry>` records are continuous
by construction. Spiral end points come from Gauss-Legendre quadrature of the clothoid (exact
to ~1e-13 m for the lengths a town uses), snapped to 1e-9 m.
"""

from __future__ import annotations

import math

from world import elementary as el
from world.map.opendrive.model import ArcGeometry, Geometry, LineGeometry, SpiralGeometry


def _gauss_legendre(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Nodes and weights of n-point Gauss-Legendre quadrature on [-1, 1], by a fixed number of
    Newton steps on the Legendre recurrence in plain floats (the same bits on every machine)."""
    nodes, weights = [], []
    for i in range(1, n + 1):
        x = el.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(12):
            p0, p1 = 1.0, x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            slope = n * (x * p1 - p0) / (x * x - 1.0)
            x -= p1 / slope
        nodes.append(x)
        weights.append(2.0 / ((1.0 - x * x) * slope * slope))
    return tuple(nodes), tuple(weights)


_GL_NODES, _GL_WEIGHTS = _gauss_legendre(24)
_GL_STEP = 5.0  # metres of spiral per quadrature interval
_SNAP = 1e-9  # spiral offsets are snapped to this grid (see _spiral_offset)


def _spiral_offset(length: float, hdg: float, k0: float, k1: float) -> tuple[float, float]:
    """(dx, dy) after `length` m of a clothoid starting at heading `hdg`, curvature k0 -> k1.

    Summed with math.fsum over lockstep's cos/sin (no SIMD, BLAS or libm paths that vary with
    the CPU) and snapped to 1e-9 m, so the written town is the same on every machine."""
    pieces = max(1, math.ceil(length / _GL_STEP))
    step = length / pieces
    rate = (k1 - k0) / (2.0 * length)
    xs, ys = [], []
    for piece in range(pieces):
        mid = (piece + 0.5) * step
        for node, weight in zip(_GL_NODES, _GL_WEIGHTS, strict=True):
            u = mid + 0.5 * step * node
            theta = hdg + k0 * u + rate * u * u
            xs.append(0.5 * step * weight * el.cos(theta))
            ys.append(0.5 * step * weight * el.sin(theta))
    return _snap(math.fsum(xs)), _snap(math.fsum(ys))


def _snap(value: float) -> float:
    return round(value / _SNAP) * _SNAP


class PathBuilder:
    """Chains planView pieces from a start pose (x, y, hdg) in OpenDRIVE's frame."""

    def __init__(self, x: float, y: float, hdg: float) -> None:
        self.x, self.y, self.hdg = x, y, hdg
        self.s = 0.0
        self.geometries: list[Geometry] = []

    def line(self, length: float) -> PathBuilder:
        if length > 1e-9:
            self._add(LineGeometry(*self._start(length)))
            self.x += length * el.cos(self.hdg)
            self.y += length * el.sin(self.hdg)
            self.s += length
        return self

    def arc(self, length: float, curvature: float) -> PathBuilder:
        self._add(ArcGeometry(*self._start(length), curvature=curvature))
        end = self.hdg + curvature * length
        self.x += (el.sin(end) - el.sin(self.hdg)) / curvature
        self.y -= (el.cos(end) - el.cos(self.hdg)) / curvature
        self.hdg = end
        self.s += length
        return self

    def spiral(self, length: float, k0: float, k1: float) -> PathBuilder:
        self._add(SpiralGeometry(*self._start(length), curv_start=k0, curv_end=k1))
        dx, dy = _spiral_offset(length, self.hdg, k0, k1)
        self.x += dx
        self.y += dy
        self.hdg += 0.5 * (k0 + k1) * length
        self.s += length
        return self

    def quarter_turn(self, forward: float, lateral: float, side: int) -> PathBuilder:
        """A 90 degree turn to the left (side +1) or right (-1) ending `forward` m ahead and
        `lateral` m to that side: a line then an arc, or an arc then a line."""
        radius = min(forward, lateral)
        self.line(forward - radius)
        self.arc(0.5 * math.pi * radius, side / radius)
        return self.line(lateral - radius)

    def spiral_corner(self, radius: float, spiral_length: float, side: int) -> PathBuilder:
        """A 90 degree turn as spiral (0 -> 1/radius), arc, spiral (back to 0)."""
        k = side / radius
        arc_length = (0.5 * math.pi - spiral_length / radius) * radius
        self.spiral(spiral_length, 0.0, k)
        if arc_length > 1e-9:
            self.arc(arc_length, k)
        return self.spiral(spiral_length, k, 0.0)

    def _start(self, length: float) -> tuple[float, ...]:
        """s, x, y, hdg, length of a new record, rounded to 1e-12 (clears trigonometric noise
        such as 6e-17 so that the written numbers stay short and the same everywhere)."""
        return tuple(round(v, 12) + 0.0 for v in (self.s, self.x, self.y, self.hdg, length))

    def _add(self, geometry: Geometry) -> None:
        self.geometries.append(geometry)


def spiral_corner_reach(radius: float, spiral_length: float) -> float:
    """How far a spiral corner (see PathBuilder.spiral_corner) reaches along its start heading;
    by symmetry it is also how far it reaches sideways, so both tangents meet that far away."""
    path = PathBuilder(0.0, 0.0, 0.0).spiral_corner(radius, spiral_length, 1)
    return path.x
