"""Small arithmetic the renderer's kernels share, inlined where they are used.

`floor_int` is math.floor for the kernels' bounded values, without a call: compiled for a
generic CPU (the ahead-of-time module), math.floor is a call into libm (SSE2 has no
rounding instruction), and the renderer floors twice per vertex and per bin edge.
"""

from __future__ import annotations

from world.kernels.compiled import njit

__all__ = ["floor_int"]


@njit(inline="always")
def floor_int(value: float) -> int:
    """The largest integer <= value, for |value| < 2**62 (math.floor's answer there): the
    conversion truncates toward zero, one less below zero where value is not whole."""
    whole = int(value)
    return whole - 1 if whole > value else whole
