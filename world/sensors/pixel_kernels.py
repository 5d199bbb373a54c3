"""The RGB camera's shading in one compiled pass over the pixels (world.sensors.shading's
light, fog and sRGB rules; numpy's many passes over a 800x600 picture took hundreds of ms).

Each pixel: its ray in the world (the camera's axes times its camera-frame ray, made unit);
the sky's colour by the ray's elevation, or the seen triangle's albedo (linear, from the
sRGB table) lit by the ambient and the sun on the normal turned toward the camera, or at
full colour for a lit lamp; the fog's transmittance along the ray; the nearest sRGB code
from a table of cells and one step. Plain IEEE arithmetic, world/elementary's
exp, no fastmath: the same bytes on every CPU.
"""

from __future__ import annotations

import math

import numpy as np

from world import elementary as el
from world.kernels.compiled import njit

__all__ = ["LIGHT_FIELDS", "shade_pixels"]

# the order of the light's numbers in the kernel's `light` array
LIGHT_FIELDS = (
    "sun_x", "sun_y", "sun_z", "sun_strength", "ambient",
    "zenith_r", "zenith_g", "zenith_b", "horizon_r", "horizon_g", "horizon_b",
    "fog_extinction", "fog_distance", "unused", "far_sky", "glow_tag",
)  # fmt: skip


@njit(cache=True)
def _code(value: float, midpoints: np.ndarray, cells: np.ndarray) -> int:
    """The sRGB code whose linear value is nearest `value` (clipped to [0, 1]): the first
    midpoint at or above it, as numpy's searchsorted finds it. `cells` (N + 1,) holds the
    code at each cell start k / N, cells finer than the codes' spacing, so at most one step
    from there is left."""
    if value <= 0.0:
        value = 0.0
    elif value >= 1.0:
        value = 1.0
    code = cells[int(value * (len(cells) - 1))]
    while code < len(midpoints) and midpoints[code] < value:
        code += 1
    return code


@njit(cache=True)
def _transmittance(distance: float, light: np.ndarray) -> float:
    """e^{-σ (d - d₀)} beyond the fog's start d₀, σ the extinction at the camera's height."""
    through = distance - light[12]
    if light[11] <= 0.0 or through <= 0.0:
        return 1.0
    return el.exp(-light[11] * through)


@njit(cache=True)
def shade_pixels(
    number: np.ndarray,
    depth: np.ndarray,
    local: np.ndarray,
    axes: np.ndarray,
    static: tuple,
    dynamic: tuple,
    offset: int,
    linear: np.ndarray,
    midpoints: np.ndarray,
    cells: np.ndarray,
    lit: np.ndarray,
    light: np.ndarray,
    out: np.ndarray,
) -> None:
    """Shades P pixels into `out` (P, 4) BGRA: `number` (P,) triangle numbers (-1: sky; the
    static columns below `offset`, the dynamic ones from it), `depth` (P,) planar depths,
    `local` (P, 3) camera-frame rays with x = 1, `axes` the camera's forward, right, up as
    columns, `linear` (256,) the sRGB codes' linear values,
    `midpoints` (255,) between them, `cells` the codes at a fine grid's points (_code), `lit`
    (K, 3) the lit lamps' colours, `light` the LIGHT_FIELDS. `static` and `dynamic` are the
    scene's colour, normal and tag columns of the static and the dynamic triangles."""
    static_colour, static_normal, static_tag = static
    dynamic_colour, dynamic_normal, dynamic_tag = dynamic
    colour = np.empty(3)
    for p in range(len(number)):
        lx, ly, lz = local[p, 0], local[p, 1], local[p, 2]
        length = math.sqrt(lx * lx + ly * ly + lz * lz)
        rx = (axes[0, 0] * lx + axes[0, 1] * ly + axes[0, 2] * lz) / length
        ry = (axes[1, 0] * lx + axes[1, 1] * ly + axes[1, 2] * lz) / length
        rz = (axes[2, 0] * lx + axes[2, 1] * ly + axes[2, 2] * lz) / length
        k = number[p]
        distance = light[14]
        if k < 0:
            up = math.sqrt(min(max(rz, 0.0), 1.0))
            for c in range(3):
                colour[c] = light[8 + c] + (light[5 + c] - light[8 + c]) * up
        else:
            if k < offset:
                nx, ny, nz = static_normal[k, 0], static_normal[k, 1], static_normal[k, 2]
                r, g, b, tag = (static_colour[k, 0], static_colour[k, 1], static_colour[k, 2],
                                static_tag[k])  # fmt: skip
            else:
                j = k - offset
                nx, ny, nz = dynamic_normal[j, 0], dynamic_normal[j, 1], dynamic_normal[j, 2]
                r, g, b, tag = (dynamic_colour[j, 0], dynamic_colour[j, 1], dynamic_colour[j, 2],
                                dynamic_tag[j])  # fmt: skip
            glows = False
            if tag == light[15]:
                for q in range(len(lit)):
                    if r == lit[q, 0] and g == lit[q, 1] and b == lit[q, 2]:
                        glows = True
            scale = 1.0
            if not glows:
                nx, ny, nz = float(nx), float(ny), float(nz)
                if nx * rx + ny * ry + nz * rz > 0.0:
                    nx, ny, nz = -nx, -ny, -nz
                lambert = max(nx * light[0] + ny * light[1] + nz * light[2], 0.0)
                scale = light[4] + light[3] * lambert
            colour[0] = linear[r] * scale
            colour[1] = linear[g] * scale
            colour[2] = linear[b] * scale
            distance = float(depth[p]) * length
        keep = _transmittance(distance, light)
        for c in range(3):
            value = colour[c] * keep + light[8 + c] * (1.0 - keep)
            out[p, 2 - c] = _code(value, midpoints, cells)
        out[p, 3] = 255
