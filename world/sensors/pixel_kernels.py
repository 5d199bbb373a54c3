"""The RGB camera's shading in one compiled pass over the pixels (world.sensors.shading's
light, fog and sRGB rules; numpy's many passes over a 800x600 picture took hundreds of ms),
in the same kernel as the drawing of the view: each strip of rows is shaded as soon as
world.render.raster has drawn it, while its buffers are in the core's cache (four
1920x1080 views took 48-50 ms of CPU drawn whole and then shaded, 35-37 ms so).

Each pixel: the sky's colour by its ray's elevation, or the seen triangle's albedo (linear,
from the sRGB table) lit by the ambient and the sun on the normal turned toward the camera,
or at full colour for a lit lamp; the fog's transmittance along the ray; the nearest sRGB
code. Plain IEEE arithmetic, world/elementary's exp, no fastmath: the same bytes on every
CPU.

What does not vary per pixel is worked out once and kept, with the very same operations as
the pixel would have made, so the bytes are those of the plain per-pixel rules:

* a triangle's two sides' light (ambient + sun on the normal or on its reverse) and their
  codes without fog, the first time a pixel sees the triangle (the caller keeps the
  static scene's from frame to frame while the light stays the same);
* the pixel rays' column and row parts (the ray (1, y_i, z_j) of pixel (i, j) enters the
  camera's axes as one sum per column plus one per row, in the per-pixel order);
* the sky's transmittance (the sky is always FAR_SKY away), and the sky's word as steps of
  the ray's rise (sky_steps, kept by the caller while the light stays): a sky pixel pays
  its rise (a root and a division) and finds its step, not three codes;
* a run of pixels of a row that see one triangle (found four pixels at a time: two int64
  words of the number buffer's bytes): the side they see is the same for the run where
  n · r at both its ends is clearly of one sign (SURE_FACING), and without fog they all get
  that side's word.

The helpers a pixel calls are inlined: a compiled call per pixel with array arguments
(their reference counts) cost more than the work itself. A pixel is stored as one word.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from world import elementary as el
from world.kernels.compiled import from_numba, njit
from world.render.raster import STRIP, TILE, draw_strip, plan_view

__all__ = ["LIGHT_FIELDS", "OPAQUE", "SKY_STEPS", "UNSET", "shade_view", "sky_steps", "srgb_code"]

_address, carray = from_numba("world.kernels.intrinsics", "address", "carray")

# the order of the light's numbers in the kernel's `light` array
LIGHT_FIELDS = (
    "sun_x", "sun_y", "sun_z", "sun_strength", "ambient",
    "zenith_r", "zenith_g", "zenith_b", "horizon_r", "horizon_g", "horizon_b",
    "fog_extinction", "fog_distance", "unused", "far_sky", "glow_tag",
)  # fmt: skip

# a pixel is written as one 32-bit word whose bytes in memory are B, G, R, A: the channels'
# shifts in that word by the machine's byte order
_LITTLE = sys.byteorder == "little"
B_SHIFT, G_SHIFT, R_SHIFT, A_SHIFT = (0, 8, 16, 24) if _LITTLE else (24, 16, 8, 0)
OPAQUE = 255 << A_SHIFT  # alpha's bits in a packed BGRA word
UNSET = 0  # a triangle side's packed word not worked out yet (every word is OPAQUE)
# n · r beyond which a run of pixels seeing one triangle sees one side of it throughout:
# n · (r·|r|) is affine along a row, so it lies between its values at the run's ends, and
# with |r| in [1, 1e4) (fov below 179.98 degrees) the pixels' own sums, a few units of
# 2^-53 off, keep their sign
SURE_FACING = 1e-6


@njit(inline="always")
def srgb_code(value: float, above: np.ndarray, cells: np.ndarray) -> int:
    """The sRGB code whose linear value is nearest `value` (clipped to [0, 1]): how many of
    the codes' 255 midpoints lie below it. `above` (256,) holds the midpoints and +inf;
    `cells` (N + 1,) the code at each cell start k / N, cells finer than the codes' spacing,
    so at most one midpoint lies in a cell."""
    value = min(max(value, 0.0), 1.0)
    code = cells[int(value * (len(cells) - 1))]
    return code + (above[code] < value)


@njit
def _light_triangle(
    k: int,
    offset: int,
    static: tuple,
    dynamic: tuple,
    lit: np.ndarray,
    light: np.ndarray,
    codes: tuple,
    static_memo: tuple,
    dynamic_memo: tuple,
) -> None:
    """Works out triangle k's two sides into its memo row: the light's scale (side 0 on its
    normal, side 1 on the reverse; 1 for a lit lamp) and the packed BGRA code without fog."""
    linear, above, cells = codes
    colour, normal, tags = static if k < offset else dynamic
    memo_code, memo_scale = static_memo if k < offset else dynamic_memo
    row = k if k < offset else k - offset
    nx, ny, nz = float(normal[row, 0]), float(normal[row, 1]), float(normal[row, 2])
    r, g, b = colour[row, 0], colour[row, 1], colour[row, 2]
    glows = False
    if tags[row] == light[15]:
        for q in range(len(lit)):
            if r == lit[q, 0] and g == lit[q, 1] and b == lit[q, 2]:
                glows = True
    for side in range(2):
        scale = 1.0
        if not glows:
            if side == 1:  # -(a·b) is (-a)·b exactly: the reversed normal's own products
                nx, ny, nz = -nx, -ny, -nz
            lambert = max(nx * light[0] + ny * light[1] + nz * light[2], 0.0)
            scale = light[4] + light[3] * lambert
        # no fog: the transmittance is 1, the blend colour · 1 + horizon · 0
        code = OPAQUE
        code |= srgb_code(linear[r] * scale * 1.0 + light[8] * 0.0, above, cells) << R_SHIFT
        code |= srgb_code(linear[g] * scale * 1.0 + light[9] * 0.0, above, cells) << G_SHIFT
        code |= srgb_code(linear[b] * scale * 1.0 + light[10] * 0.0, above, cells) << B_SHIFT
        memo_code[row, side] = code
        memo_scale[row, side] = scale


@njit(cache=True)
def shade_view(
    drawing: tuple,
    rays: tuple,
    static: tuple,
    dynamic: tuple,
    offset: int,
    codes: tuple,
    lit: np.ndarray,
    light: np.ndarray,
    static_memo: tuple,
    dynamic_memo: tuple,
    sky: tuple,
    out: np.ndarray,
) -> bool:
    """Draws a camera's view and shades it into `out` (H, W) uint32, each word's bytes B,
    G, R, A, a strip of rows at a time while the strip's buffers are in the core's cache:
    `drawing` (first, second, camera, plan, strip buffers, work) as world.render.raster's
    plan_view and draw_strip read them, the strip buffers holding STRIP rows. Each pixel
    sees a triangle number (-1: sky; the static triangles below `offset`, the dynamic ones
    from it) and the inverse 1/x of its planar depth x (a surface's depth is float32(1 /
    (1/x)), the depth camera's planar depth); `rays`: the camera-frame ray of pixel (i, j)
    is (1, across[i], down[j]), and `axes` the camera's forward, right, up as columns;
    `static` and `dynamic`: the scene's colour, normal and tag columns; `codes`: (256,) the
    sRGB codes' linear values, (256,) the midpoints above each code (+inf last), the codes
    at a fine grid's points (srgb_code); `lit` (K, 3) the lit lamps' colours; `light` the
    LIGHT_FIELDS. `static_memo` and `dynamic_memo` hold each triangle's two sides' packed
    word (S, 2) int64 (UNSET: not yet) and light (S, 2) float64, filled here as pixels first
    see them. `sky`: sky_steps' (starts, words, count) of this light. Returns True when the
    plan's primitive table was too small (`out` is incomplete: grow it and shade again)."""
    first, second, camera, plan, strip_buffers, work = drawing
    across, down, axes = rays
    linear, above, cells = codes
    static_colour, static_normal = _unowned(static[0]), _unowned(static[1])
    dynamic_colour, dynamic_normal = _unowned(dynamic[0]), _unowned(dynamic[1])
    static_code, static_scale = _unowned(static_memo[0]), _unowned(static_memo[1])
    dynamic_code, dynamic_scale = _unowned(dynamic_memo[0]), _unowned(dynamic_memo[1])
    out = _unowned(out)
    height, width = out.shape
    # pixel (i, j)'s ray in the world, before its division by the length: column part + row
    # part, the order of (a·1 + b·y) + c·z; its length squared likewise (1·1 + y·y) + z·z
    column_x, column_y, column_z = np.empty(width), np.empty(width), np.empty(width)
    column_length = np.empty(width)
    for i in range(width):
        y = across[i]
        column_x[i] = axes[0, 0] * 1.0 + axes[0, 1] * y
        column_y[i] = axes[1, 0] * 1.0 + axes[1, 1] * y
        column_z[i] = axes[2, 0] * 1.0 + axes[2, 1] * y
        column_length[i] = 1.0 * 1.0 + y * y
    column_x, column_y = _unowned(column_x), _unowned(column_y)
    column_z, column_length = _unowned(column_z), _unowned(column_length)
    columns = (column_x, column_y, column_z, column_length)
    fog = light[11] > 0.0
    sky_starts, sky_words, sky_count = sky
    step = 0  # the sky's step the last sky pixel was in
    plan_view(first, second, camera, height, width, STRIP, plan)
    for s in range(-(-height // STRIP)):
        row0 = s * STRIP
        rows = min(height, row0 + STRIP) - row0
        tile_rows = -(-rows // TILE)
        strip = (
            strip_buffers[0][:rows],
            strip_buffers[1][:rows],
            strip_buffers[2][:tile_rows],
            strip_buffers[3][:tile_rows],
            strip_buffers[4][:tile_rows],
        )
        if draw_strip(first, second, camera, s, STRIP, plan, strip, work):
            return True
        # the strip's pixels, row `at` of its buffers being image row j
        number, inv_depth = _unowned(strip[1]), _unowned(strip[0])
        pairs = carray(_address(np.int64(strip[1].ctypes.data)), (rows * width) // 2, np.int64)
        for at in range(rows):
            j = row0 + at
            z = down[j]
            row_x, row_y, row_z, row_length = axes[0, 2] * z, axes[1, 2] * z, axes[2, 2] * z, z * z
            ray_row = (row_x, row_y, row_z, row_length)
            i = 0
            while i < width:
                k = number[at, i]
                if k < 0:
                    length = math.sqrt(column_length[i] + row_length)
                    rise = (column_z[i] + row_z) / length
                    if not (
                        sky_starts[step] <= rise
                        and (step + 1 == sky_count or rise < sky_starts[step + 1])
                    ):
                        step = _step_of(rise, sky_starts, sky_count)
                    out[j, i] = sky_words[step]
                    i += 1
                    continue
                end = _run_end(number, pairs, at, i, k)  # the run of pixels that see triangle k
                if k < offset:
                    if static_code[k, 0] == UNSET:
                        _light_triangle(
                            k, offset, static, dynamic, lit, light, codes, static_memo, dynamic_memo
                        )
                    front, back = static_code[k, 0], static_code[k, 1]
                    front_scale, back_scale = static_scale[k, 0], static_scale[k, 1]
                    nx, ny, nz = static_normal[k, 0], static_normal[k, 1], static_normal[k, 2]
                    r, g, b = static_colour[k, 0], static_colour[k, 1], static_colour[k, 2]
                else:
                    q = k - offset
                    if dynamic_code[q, 0] == UNSET:
                        _light_triangle(
                            k, offset, static, dynamic, lit, light, codes, static_memo, dynamic_memo
                        )
                    front, back = dynamic_code[q, 0], dynamic_code[q, 1]
                    front_scale, back_scale = dynamic_scale[q, 0], dynamic_scale[q, 1]
                    nx, ny, nz = dynamic_normal[q, 0], dynamic_normal[q, 1], dynamic_normal[q, 2]
                    r, g, b = dynamic_colour[q, 0], dynamic_colour[q, 1], dynamic_colour[q, 2]
                normal = (float(nx), float(ny), float(nz))
                side = 0  # 0: the front side for the whole run, 1: the back side, -1: per pixel
                if back_scale != front_scale:  # the side the camera sees matters
                    at_first = _facing(normal, i, columns, ray_row)
                    at_last = (
                        at_first if end - 1 == i else _facing(normal, end - 1, columns, ray_row)
                    )
                    if at_first > SURE_FACING and at_last > SURE_FACING:
                        side = 1
                    elif not (at_first < -SURE_FACING and at_last < -SURE_FACING):
                        side = -1
                if side >= 0 and not fog:
                    # unsigned columns: no check for a negative index, and no view of the row
                    # (a slice's reference counts)
                    word = back if side else front
                    for p in range(np.uint64(i), np.uint64(end)):
                        out[j, p] = word
                    i = end
                    continue
                for p in range(i, end):
                    seen = side
                    if seen < 0:
                        seen = 1 if _facing(normal, p, columns, ray_row) > 0.0 else 0
                    code = back if seen else front
                    if fog:
                        scale = back_scale if seen else front_scale
                        length = math.sqrt(column_length[p] + row_length)
                        depth = float(np.float32(1.0 / inv_depth[at, p]))
                        through = depth * length - light[12]
                        if through > 0.0:
                            keep = el.exp(-light[11] * through)
                            code = OPAQUE
                            value = linear[r] * scale * keep + light[8] * (1.0 - keep)
                            code |= srgb_code(value, above, cells) << R_SHIFT
                            value = linear[g] * scale * keep + light[9] * (1.0 - keep)
                            code |= srgb_code(value, above, cells) << G_SHIFT
                            value = linear[b] * scale * keep + light[10] * (1.0 - keep)
                            code |= srgb_code(value, above, cells) << B_SHIFT
                    out[j, p] = code
                i = end
    return False


@njit(inline="always")
def _unowned(array: np.ndarray) -> np.ndarray:
    """The same array's memory as an array without a MemInfo (numba's carray): handed to
    the inlined helpers once per run of pixels, it counts no references."""
    return carray(_address(np.int64(array.ctypes.data)), array.shape, array.dtype)


@njit(inline="always")
def _run_end(number: np.ndarray, pairs: np.ndarray, j: int, i: int, k: int) -> int:
    """The end (one past) of the run of row j's pixels from i on that see triangle k >= 0:
    compared eight, then four at a time as int64 words of two pixels (`pairs`, the int32
    buffer's bytes as int64; a word holds k twice whatever the byte order), then one by one.
    The words are read at unsigned places (no check for a negative index)."""
    width = number.shape[1]
    end = i + 1
    at = j * width + end  # the pixel's place in the buffer
    if at & 1:  # to a word's first pixel
        if end == width or number[j, end] != k:
            return end
        end += 1
        at += 1
    both = k | (k << 32)
    one, two, three = np.uint64(1), np.uint64(2), np.uint64(3)
    place = np.uint64(at >> 1)
    while (
        end + 7 < width
        and (
            ((pairs[place] ^ both) | (pairs[place + one] ^ both))
            | ((pairs[place + two] ^ both) | (pairs[place + three] ^ both))
        )
        == 0
    ):
        end += 8
        place += np.uint64(4)
    if end + 3 < width and ((pairs[place] ^ both) | (pairs[place + one] ^ both)) == 0:
        end += 4
        place += two
    if end + 1 < width and pairs[place] == both:
        end += 2
    if end < width and number[j, end] == k:
        end += 1
    return end


@njit(inline="always")
def _facing(normal: tuple, i: int, columns: tuple, ray_row: tuple) -> float:
    """n · r of pixel (i, row)'s unit ray r in the world: positive where the camera sees
    the triangle's back (its normal points away from the camera)."""
    column_x, column_y, column_z, column_length = columns
    row_x, row_y, row_z, row_length = ray_row
    nx, ny, nz = normal
    length = math.sqrt(column_length[i] + row_length)
    rx = (column_x[i] + row_x) / length
    ry = (column_y[i] + row_y) / length
    rz = (column_z[i] + row_z) / length
    return nx * rx + ny * ry + nz * rz


SKY_STEPS = 3 * 255 + 1  # the most steps of the sky's word: each channel's code rises or
# falls with the ray's rise, so it changes at most 255 times over [0, 1]


@njit(inline="always")
def _sky_keep(light: np.ndarray) -> float:
    """The share of the sky's colour its fog keeps (the sky is far_sky away)."""
    if light[11] > 0.0 and light[14] - light[12] > 0.0:
        return el.exp(-light[11] * (light[14] - light[12]))
    return 1.0


@njit(inline="always")
def _sky_word(rise: float, light: np.ndarray, keep: float, above, cells) -> int:
    """The sky's packed word for a ray whose unit direction rises by `rise`: its colour
    from the horizon's to the zenith's by sqrt(rise) (clamped to [0, 1]), fogged."""
    up = math.sqrt(min(max(rise, 0.0), 1.0))
    code = OPAQUE
    for c, shift in ((0, R_SHIFT), (1, G_SHIFT), (2, B_SHIFT)):
        colour = light[8 + c] + (light[5 + c] - light[8 + c]) * up
        value = colour * keep + light[8 + c] * (1.0 - keep)
        code |= srgb_code(value, above, cells) << shift
    return code


@njit(cache=True)
def sky_steps(light: np.ndarray, codes: tuple, starts: np.ndarray, words: np.ndarray) -> int:
    """The sky's word as steps of the ray's rise: words[s] from starts[s] up to
    starts[s + 1] (the last to any rise above; a rise below 0 is 0's), exactly the words
    _sky_word gives. Each channel's code is monotone in the rise (every operation on the
    way is, rounding included), so the word keeps its value over an interval, whose end
    is found by bisection over the doubles between (their bit patterns are in order).
    Returns the count of steps (at most SKY_STEPS)."""
    _linear, above, cells = codes
    keep = _sky_keep(light)
    bits = np.zeros(1, np.float64)
    pattern = bits.view(np.int64)
    bits[0] = 1.0
    top = pattern[0]
    rise = 0.0
    count = 0
    while True:
        word = _sky_word(rise, light, keep, above, cells)
        starts[count] = rise
        words[count] = word
        count += 1
        if _sky_word(1.0, light, keep, above, cells) == word:
            return count
        bits[0] = rise
        low, high = pattern[0], top  # the word at low is `word`, at high it is not
        while high - low > 1:
            pattern[0] = low + (high - low) // 2
            if _sky_word(bits[0], light, keep, above, cells) == word:
                low = pattern[0]
            else:
                high = pattern[0]
        pattern[0] = high
        rise = bits[0]


@njit(inline="always")
def _step_of(rise: float, starts: np.ndarray, count: int) -> int:
    """The step whose interval holds `rise` (the first below 0)."""
    low, high = 0, count - 1
    while low < high:
        mid = (low + high + 1) // 2
        if starts[mid] <= rise:
            low = mid
        else:
            high = mid - 1
    return low
