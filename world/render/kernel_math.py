"""Small arithmetic the renderer's kernels share, inlined where they are used.

`clip_by_plane` is one Sutherland-Hodgman pass, shared by the rasterizer's near plane and
guard band and the ray caster's cube-face pyramids. `floor_int` is math.floor for the
kernels' bounded values, without a call: compiled for a generic CPU (the ahead-of-time
module), math.floor is a call into libm (SSE2 has no rounding instruction), and the
renderer floors twice per vertex and per bin edge.
"""

from __future__ import annotations

from world.kernels.compiled import njit

__all__ = ["clip_by_plane", "floor_int"]


@njit(inline="always")
def floor_int(value: float) -> int:
    """The largest integer <= value, for |value| < 2**62 (math.floor's answer there): the
    conversion truncates toward zero, one less below zero where value is not whole."""
    whole = int(value)
    return whole - 1 if whole > value else whole


@njit(inline="always")
def clip_by_plane(polygon, count: int, pa: float, pb: float, pc: float, pe: float) -> int:
    """Keeps the part of the polygon polygon[0] (its first `count` rows) where
    pa x + pb y + pc z + pe >= 0, through polygon[1], and leaves it in polygon[0]; returns
    its vertex count. An edge crossing the plane is cut from its end inside, whichever way
    the polygon runs, so an edge two triangles share is cut at the same point in both."""
    out = 0
    for k in range(count):
        n = k + 1 if k + 1 < count else 0
        dp = pa * polygon[0, k, 0] + pb * polygon[0, k, 1] + pc * polygon[0, k, 2] + pe
        dq = pa * polygon[0, n, 0] + pb * polygon[0, n, 1] + pc * polygon[0, n, 2] + pe
        if dp >= 0.0:
            for axis in range(3):
                polygon[1, out, axis] = polygon[0, k, axis]
            out += 1
        if (dp >= 0.0) != (dq >= 0.0):
            i, o, di, do = (k, n, dp, dq) if dp >= 0.0 else (n, k, dq, dp)
            t = di / (di - do)
            for axis in range(3):
                inner = polygon[0, i, axis]
                polygon[1, out, axis] = inner + t * (polygon[0, o, axis] - inner)
            out += 1
    for k in range(out):
        for axis in range(3):
            polygon[0, k, axis] = polygon[1, k, axis]
    return out
