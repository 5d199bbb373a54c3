"""A road's planView reference line on arrays of s: position and unit tangent.

Each geometry kind has one vectorised evaluator over local ds = s - geometry.s.
The geometry used at s is the last one starting at or before s (the first one
before the road's start, the last one continued past its end), as libOpenDRIVE
and CARLA look it up.

- line, arc: closed form.
- spiral: the clothoid integral x = int cos(theta(u)) du, theta quadratic in u,
  by composite Gauss-Legendre quadrature with panels short enough (at most 1 rad
  of heading change each) that the result is exact to rounding (~1e-13 m).
- poly3 (legacy): v(u) in the local frame, s is arc length along the curve, so u
  is found from s by Newton steps on the quadrature arc length.
- paramPoly3: p = s - s0 (arcLength) or (s - s0) / length (normalized), literally,
  as CARLA and esmini read it; where its derivative vanishes the tangent is the local u
  axis.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from world import elementary as el
from world.map.opendrive.model import (
    ArcGeometry,
    Geometry,
    LineGeometry,
    ParamPoly3Geometry,
    Poly3Geometry,
    SpiralGeometry,
)

__all__ = ["PlanView"]

_LINE, _ARC, _SPIRAL, _POLY3, _PARAM = range(5)
_KIND = {
    LineGeometry: _LINE,
    ArcGeometry: _ARC,
    SpiralGeometry: _SPIRAL,
    Poly3Geometry: _POLY3,
    ParamPoly3Geometry: _PARAM,
}
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(12)
# Nodes on [0, 1] and their weights, for integrals over [0, ds] split into panels.
_UNIT_NODES = 0.5 * (_NODES + 1.0)
_UNIT_WEIGHTS = 0.5 * _WEIGHTS
_NEWTON_STEPS = 8
# Quadrature nodes evaluated at once by the spiral (samples x nodes), at most.
_QUADRATURE_CELLS = 1 << 20


class PlanView:
    """The reference line of one road, from its planView geometries (sorted by start s)."""

    __slots__ = (
        "count",
        "hdg",
        "kind",
        "length",
        "params",
        "row_starts",
        "rows",
        "starts",
        "x",
        "y",
    )

    def __init__(self, geometries: Sequence[Geometry]) -> None:
        ordered = sorted(geometries, key=lambda g: g.s)
        self.count = len(ordered)
        self.starts = np.array([g.s for g in ordered], dtype=float)
        self.x = np.array([g.x for g in ordered], dtype=float)
        self.y = np.array([g.y for g in ordered], dtype=float)
        self.hdg = np.array([g.hdg for g in ordered], dtype=float)
        self.length = np.array([g.length for g in ordered], dtype=float)
        self.kind = np.array([_KIND[type(g)] for g in ordered], dtype=np.int8)
        self.params = np.zeros((self.count, 8))
        for i, g in enumerate(ordered):
            self.params[i] = _params(g)
        # the same numbers per geometry in plain floats, for point_at
        self.row_starts = self.starts.tolist()
        self.rows = list(
            zip(
                self.x.tolist(),
                self.y.tolist(),
                self.hdg.tolist(),
                self.kind.tolist(),
                self.params.tolist(),
                strict=True,
            )
        )

    def evaluate(self, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """x, y and the unit tangent (dx/ds, dy/ds) of the reference line at each s."""
        s = np.asarray(s, dtype=float)
        shape = s.shape
        s = s.ravel()
        x = np.zeros(s.shape)
        y = np.zeros(s.shape)
        tx = np.ones(s.shape)
        ty = np.zeros(s.shape)
        if self.count:
            idx = np.maximum(np.searchsorted(self.starts, s, side="right") - 1, 0)
            ds = s - self.starts[idx]
            kinds = self.kind[idx]
            for kind in np.unique(kinds):
                m = kinds == kind
                g = idx[m]
                u, v, tu, tv = _LOCAL[kind](ds[m], self.params[g], self.length[g])
                c, sn = el.cos_v(self.hdg[g]), el.sin_v(self.hdg[g])
                x[m] = self.x[g] + c * u - sn * v
                y[m] = self.y[g] + sn * u + c * v
                tx[m] = c * tu - sn * tv
                ty[m] = sn * tu + c * tv
        return x.reshape(shape), y.reshape(shape), tx.reshape(shape), ty.reshape(shape)

    def point_at(self, s: float) -> tuple[float, float, float, float]:
        """`evaluate` at one s, in plain floats: the same numbers by the same IEEE operations
        (elementary's scalar sin, cos and hypot, whose bits equal their array forms') without
        numpy's cost per call. A spiral or poly3 geometry (an array product in its
        quadrature) is answered by `evaluate`."""
        if not self.count:
            return 0.0, 0.0, 1.0, 0.0
        g = max(bisect_right(self.row_starts, s) - 1, 0)
        x0, y0, hdg, kind, params = self.rows[g]
        local = _LOCAL_AT.get(kind)
        if local is None:
            x, y, tx, ty = self.evaluate(np.array([s]))
            return float(x[0]), float(y[0]), float(tx[0]), float(ty[0])
        u, v, tu, tv = local(s - self.row_starts[g], params)
        c, sn = el.cos(hdg), el.sin(hdg)
        return x0 + c * u - sn * v, y0 + sn * u + c * v, c * tu - sn * tv, sn * tu + c * tv

    def heading(self, s: np.ndarray) -> np.ndarray:
        """Heading (rad, in (-pi, pi]) of the reference line at each s."""
        _, _, tx, ty = self.evaluate(s)
        return el.atan2_v(ty, tx)


def _params(g: Geometry) -> tuple[float, ...]:
    """The kind-specific numbers of a geometry, padded to 8."""
    if isinstance(g, ArcGeometry):
        return (g.curvature, 0, 0, 0, 0, 0, 0, 0)
    if isinstance(g, SpiralGeometry):
        return (g.curv_start, g.curv_end, 0, 0, 0, 0, 0, 0)
    if isinstance(g, Poly3Geometry):
        return (g.a, g.b, g.c, g.d, 0, 0, 0, 0)
    if isinstance(g, ParamPoly3Geometry):
        scale = 1.0 if g.p_range == "arcLength" else 1.0 / g.length if g.length else 0.0
        # Coefficients rescaled so that the polynomials take ds directly.
        return (
            g.aU,
            g.bU * scale,
            g.cU * scale**2,
            g.dU * scale**3,
            g.aV,
            g.bV * scale,
            g.cV * scale**2,
            g.dV * scale**3,
        )
    return (0, 0, 0, 0, 0, 0, 0, 0)


# Each local evaluator: (ds, params (n, 8), length) -> local u, v and unit tangent (tu, tv).


def _line(ds: np.ndarray, p: np.ndarray, length: np.ndarray):
    return ds, np.zeros_like(ds), np.ones_like(ds), np.zeros_like(ds)


def _arc(ds: np.ndarray, p: np.ndarray, length: np.ndarray):
    k = p[:, 0]
    angle = k * ds
    straight = k == 0.0
    safe_k = np.where(straight, 1.0, k)
    u = np.where(straight, ds, el.sin_v(angle) / safe_k)
    v = np.where(straight, 0.0, 2.0 * el.sin_v(0.5 * angle) ** 2 / safe_k)
    return u, v, el.cos_v(angle), el.sin_v(angle)


def _spiral(ds: np.ndarray, p: np.ndarray, length: np.ndarray):
    k0 = p[:, 0]
    rate = np.where(length > 0, (p[:, 1] - k0) / np.where(length > 0, length, 1.0), 0.0)
    # Heading change along [0, ds] bounds the panel count (<= 1 rad per panel).
    turn = np.abs(k0 * ds) + 0.5 * np.abs(rate) * ds * ds
    panels = int(max(1, np.ceil(turn.max(initial=0.0))))
    edges = np.arange(panels) / panels
    frac = (edges[:, None] + _UNIT_NODES[None, :] / panels).ravel()
    weights = np.tile(_UNIT_WEIGHTS / panels, panels)
    u = np.empty_like(ds)
    v = np.empty_like(ds)
    # Rows in chunks of at most _QUADRATURE_CELLS nodes in all: memory stays bounded however
    # many samples and panels there are (the parser bounds the panels, MAX_SPIRAL_TURN).
    rows = max(1, _QUADRATURE_CELLS // len(frac))
    for lo in range(0, len(ds), rows):
        part = slice(lo, lo + rows)
        w = ds[part, None] * frac[None, :]
        theta = k0[part, None] * w + 0.5 * rate[part, None] * w * w
        u[part] = ds[part] * (el.cos_v(theta) @ weights)
        v[part] = ds[part] * (el.sin_v(theta) @ weights)
    end = k0 * ds + 0.5 * rate * ds * ds
    return u, v, el.cos_v(end), el.sin_v(end)


def _poly3_arc_length(u: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Arc length of v(w) = a + b w + c w^2 + d w^3 over w in [0, u], by quadrature."""
    panels = 4
    frac = ((np.arange(panels)[:, None] + _UNIT_NODES[None, :]) / panels).ravel()
    weights = np.tile(_UNIT_WEIGHTS / panels, panels)
    w = u[:, None] * frac[None, :]
    slope = b[:, None] + w * (2.0 * c[:, None] + 3.0 * d[:, None] * w)
    return u * (np.sqrt(1.0 + slope * slope) @ weights)


def _poly3(ds: np.ndarray, p: np.ndarray, length: np.ndarray):
    a, b, c, d = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    u = ds.copy()
    for _ in range(_NEWTON_STEPS):
        slope = b + u * (2.0 * c + 3.0 * d * u)
        u = u - (_poly3_arc_length(u, b, c, d) - ds) / np.sqrt(1.0 + slope * slope)
    v = a + u * (b + u * (c + u * d))
    slope = b + u * (2.0 * c + 3.0 * d * u)
    norm = np.sqrt(1.0 + slope * slope)
    return u, v, 1.0 / norm, slope / norm


def _param_poly3(ds: np.ndarray, p: np.ndarray, length: np.ndarray):
    au, bu, cu, du, av, bv, cv, dv = p.T
    u = au + ds * (bu + ds * (cu + ds * du))
    v = av + ds * (bv + ds * (cv + ds * dv))
    du_ds = bu + ds * (2.0 * cu + 3.0 * du * ds)
    dv_ds = bv + ds * (2.0 * cv + 3.0 * dv * ds)
    norm = el.hypot_v(du_ds, dv_ds)
    # Where the curve's derivative vanishes (bU = bV = 0 at its start, say) the tangent is
    # the local u axis, the geometry's heading, rather than no direction at all.
    flat = norm == 0.0
    norm = np.where(flat, 1.0, norm)
    return u, v, np.where(flat, 1.0, du_ds / norm), dv_ds / norm


_LOCAL = {_LINE: _line, _ARC: _arc, _SPIRAL: _spiral, _POLY3: _poly3, _PARAM: _param_poly3}


# The local evaluators at one ds, in plain floats: the array forms' operations, in their order.


def _line_at(ds: float, p: list[float]) -> tuple[float, float, float, float]:
    return ds, 0.0, 1.0, 0.0


def _arc_at(ds: float, p: list[float]) -> tuple[float, float, float, float]:
    k = p[0]
    angle = k * ds
    if k == 0.0:
        return ds, 0.0, el.cos(angle), el.sin(angle)
    half = el.sin(0.5 * angle)
    return el.sin(angle) / k, 2.0 * (half * half) / k, el.cos(angle), el.sin(angle)


def _param_poly3_at(ds: float, p: list[float]) -> tuple[float, float, float, float]:
    au, bu, cu, du, av, bv, cv, dv = p
    u = au + ds * (bu + ds * (cu + ds * du))
    v = av + ds * (bv + ds * (cv + ds * dv))
    du_ds = bu + ds * (2.0 * cu + 3.0 * du * ds)
    dv_ds = bv + ds * (2.0 * cv + 3.0 * dv * ds)
    norm = el.hypot(du_ds, dv_ds)
    if norm == 0.0:  # the array form divides by 1.0 instead
        return u, v, 1.0, dv_ds
    return u, v, du_ds / norm, dv_ds / norm


_LOCAL_AT = {_LINE: _line_at, _ARC: _arc_at, _PARAM: _param_poly3_at}
