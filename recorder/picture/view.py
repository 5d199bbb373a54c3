"""The world -> pixel transform of a picture, seen from above.

CARLA's frame is left-handed with z up, so from above x runs to the right and y down,
as a picture's columns and rows do: pixel (u, v) = ((x - x0) * scale, (y - y0) * scale),
where (x0, y0) is the world point at the picture's top-left corner and `scale` is pixels
per metre. No mirroring and no rotation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class View:
    """A window on the world: top-left world point (m), pixels per metre, size in pixels."""

    x0: float
    y0: float
    scale: float
    width: int
    height: int

    def pixels(self, xy: np.ndarray) -> np.ndarray:
        """World points (..., 2) in metres as pixel coordinates (..., 2), floats."""
        xy = np.asarray(xy, dtype=float)
        return (xy - np.array([self.x0, self.y0])) * self.scale

    def shifted(self, x0: float, y0: float, width: int, height: int) -> View:
        """The same scale with another top-left point and size."""
        return View(x0, y0, self.scale, width, height)


def fit_view(
    bounds: tuple[float, float, float, float], size: int, margin: float, least: float = 1.0
) -> View:
    """A view that shows `bounds` (x_lo, y_lo, x_hi, y_hi, m) plus `margin` metres on each
    side, each side at least `least` metres (grown about the middle), its longer side
    `size` pixels."""
    x_lo, y_lo, x_hi, y_hi = bounds
    x_lo, y_lo, x_hi, y_hi = x_lo - margin, y_lo - margin, x_hi + margin, y_hi + margin
    grow_x, grow_y = max(0.0, least - (x_hi - x_lo)) / 2.0, max(0.0, least - (y_hi - y_lo)) / 2.0
    x_lo, x_hi, y_lo, y_hi = x_lo - grow_x, x_hi + grow_x, y_lo - grow_y, y_hi + grow_y
    span = max(x_hi - x_lo, y_hi - y_lo, 1.0)
    scale = size / span
    width = max(1, round((x_hi - x_lo) * scale))
    height = max(1, round((y_hi - y_lo) * scale))
    return View(x_lo, y_lo, scale, width, height)
