"""The camera's rasterizer: each pixel's nearest triangle and its inverse depth (numba kernels).

A pinhole camera at origin o with axes forward F, right R, up U sees a point p at camera
coordinates x = (p - o).F, y = (p - o).R, z = (p - o).U, and puts it at pixel coordinates
u = f y / x + W / 2, v = -f z / x + H / 2 (f = W / (2 tan(fov / 2))); pixel (i, j) is
covered where its centre (i + 0.5, j + 0.5) lies in a triangle's projection.

Coverage is exact and watertight: vertices are snapped to 1/SUBPIXEL of a pixel and the
edge functions are computed in 64-bit integers, so two triangles that share an edge compute
the same edge with opposite signs, and a pixel centre exactly on it goes to one of them by
a fixed rule (the edge whose inward normal points down, or right when the edge is
vertical, owns it). A triangle crossing the near plane (x = near) is clipped there, and one
reaching beyond the guard band (GUARD pixels off the principal point) is clipped to it, so
the integers stay in range; a clipped edge's new vertex is computed from the end in front,
so both triangles of a shared edge make the same one.

Depth is exact per pixel, not interpolated from snapped vertices: 1/x along the pixel's
ray is an affine function of (u, v) on the triangle's plane, A + B u + C v, computed in
double from the plane of the triangle's camera coordinates. The buffer keeps the largest
1/x (the nearest); equal values go to the lower triangle number, so the result does not
depend on the order triangles are drawn in. Plain IEEE double arithmetic throughout, no
fused multiply-adds, so every CPU gives the same buffers.

An image is drawn a strip of STRIP rows at a time: plan_view lists the chunks in view and
bins them by the strips their boxes reach, draw_strip draws one strip's chunks (a chunk's
triangles are set up, moved into the camera's frame, snapped and clipped, the first time
a strip needs them, and kept for the next). A strip's buffers (0.7 MB for 1920 pixels a
row) stay in the core's cache while its triangles are drawn, and a kernel that uses each
strip as soon as it is drawn (the RGB camera's shading) needs no buffers of the whole
image. Each pixel's answer does not depend on the order of the triangles, so the strips
give the bits the whole image drawn at once would.
"""

from __future__ import annotations

import numpy as np

from world.kernels.compiled import njit
from world.render.kernel_math import clip_by_plane, floor_int

__all__ = [
    "GUARD",
    "STRIP",
    "SUBPIXEL",
    "draw_strip",
    "draw_view",
    "plan_view",
    "planar_depth",
]

SUBPIXEL = 256  # fixed-point steps per pixel (8 bits)
HALF = SUBPIXEL // 2  # a pixel centre's offset in fixed point
GUARD = float(1 << 20)  # pixels off the principal point a projected vertex may lie
# camera parameters as the kernels read them (a float64 array)
ORIGIN, FORWARD, RIGHT, UP, FOCAL, NEAR, FAR, WIDTH, HEIGHT = 0, 3, 6, 9, 12, 13, 14, 15, 16
PARAMETERS = 17
POLYGON = 16  # the clipped polygon's most vertices (3 + 5 planes, with room)


TILE = 8  # pixels: the side of the tiles whose farthest depth the occlusion tests read
# a vertex's outcode: the planes it lies outside of
BEHIND, BEYOND, LEFT_OF, RIGHT_OF, ABOVE, BELOW, UNSNAPPED = 1, 2, 4, 8, 16, 32, 64
OUTSIDE = BEHIND | BEYOND | LEFT_OF | RIGHT_OF | ABOVE | BELOW
STRIP = 32  # rows: a camera is drawn a strip of rows at a time (a multiple of TILE)
# a listed chunk's row of the plan's `chunks` (int64): which index (0 first, 1 second), its
# number there, the tiles its box covers (columns TI0..TI1, rows TJ0..TJ1 of the image), and
# its primitives' place in the plan's table once set up (FIRST_PRIMITIVE -1: not yet)
WHICH, CHUNK, TI0, TI1, TJ0, TJ1, FIRST_PRIMITIVE, END_PRIMITIVE = range(8)
CHUNK_FIELDS = 8
# a primitive (a triangle, or a fan triangle of a clipped one) as _fill_strip reads it: its
# fixed-point corners, counter-clockwise (SX0 ... SY2), its number, the rows its box covers
# (int64); the plane's 1/x = C0 + CU u + CV v and the range it is held in (float64)
SX0, SY0, SX1, SY1, SX2, SY2, NUMBER, ROW0, ROW1 = range(9)
PRIMITIVE_INTS = 9
C0, CU, CV, LOW, HIGH = range(5)
PRIMITIVE_FLOATS = 5
LISTED, USED, FULL = 0, 1, 2  # the plan's counters: chunks listed, primitives set up, no room


@njit(cache=True)
def planar_depth(inv_depth: np.ndarray, hit: np.ndarray, far: float, depth: np.ndarray) -> None:
    """depth = x = 1 / (1/x) where a triangle was drawn, `far` elsewhere (float32)."""
    height, width = hit.shape
    for j in range(height):
        for i in range(width):
            depth[j, i] = 1.0 / inv_depth[j, i] if hit[j, i] >= 0 else far


@njit(inline="always")
def _clear_undrawn(inv_depth: np.ndarray, hit: np.ndarray, drawn: np.ndarray) -> None:
    """Clears the pixels of the tiles no triangle reached (inv_depth 0, hit -1): after a
    strip's last triangle, its buffers hold every pixel's answer."""
    rows, columns = drawn.shape
    for tj in range(rows):
        for ti in range(columns):
            if not drawn[tj, ti]:
                _clear_tile(inv_depth, hit, ti, tj)


@njit(inline="always")
def _clear_tile(inv_depth, hit, ti, tj) -> None:
    """Nothing drawn in tile (ti, tj): 1/x 0, number -1 (the image's last tiles clipped)."""
    height, width = hit.shape
    i0, i1 = ti * TILE, min(width, ti * TILE + TILE)
    for j in range(tj * TILE, min(height, tj * TILE + TILE)):
        for i in range(i0, i1):
            inv_depth[j, i] = 0.0
            hit[j, i] = -1


@njit(cache=True)
def draw_view(
    first: tuple, second: tuple, camera: np.ndarray, plan: tuple, buffers: tuple, work: tuple
) -> bool:
    """Draws two MeshIndex's triangles (`first` before `second`, each the tuple of
    camera.index_arguments) into the whole image's `buffers` (inv_depth, hit, tiles, stale,
    drawn), a strip of STRIP rows at a time (plan_view, then draw_strip on each strip's rows
    of the buffers): `inv_depth` (H, W) float64 gets 1/x of each pixel's nearest triangle (0:
    nothing), `hit` (H, W) int32 its number (-1: nothing); `tiles` float64, `stale` and
    `drawn` bool ((ceil(H / TILE), ceil(W / TILE))) are draw_strip's. `plan` and `work` as
    draw_strip's. Returns True when the plan's primitive table had no room left (the
    buffers are incomplete: grow it and draw again)."""
    inv_depth, hit, tiles, stale, drawn = buffers
    height, width = hit.shape
    plan_view(first, second, camera, height, width, STRIP, plan)
    for s in range(-(-height // STRIP)):
        r0, r1 = s * STRIP, min(height, s * STRIP + STRIP)
        t0, t1 = r0 // TILE, -(-r1 // TILE)
        rows = (inv_depth[r0:r1], hit[r0:r1], tiles[t0:t1], stale[t0:t1], drawn[t0:t1])
        if draw_strip(first, second, camera, s, STRIP, plan, rows, work):
            return True
    return False


@njit(cache=True)
def plan_view(
    first: tuple, second: tuple, camera: np.ndarray, height: int, width: int, strip: int, plan
) -> None:
    """Lists the chunks of two indices (index_arguments' tuples; `first` drawn before
    `second`) that may show in the camera's image, each index's nearest first, with the
    tiles their boxes cover, and bins them by the strips of `strip` rows (a multiple of
    TILE) those tiles reach. `plan` (chunks, reach, bin_start, bins, ints, floats, counters):
    chunks (C, CHUNK_FIELDS) int64 and reach (C,) float64 (the box's largest 1/x, inf where
    it reaches behind the near plane) for the C chunks of both indices, bin_start (strips +
    1,) int64 and bins (C * strips,) int64 (strip s draws the listed chunks bins[bin_start[s]
    : bin_start[s + 1]]), the primitive table ints (P, PRIMITIVE_INTS) int64 and floats (P,
    PRIMITIVE_FLOATS) float64, filled by draw_strip as strips first need a chunk, and
    counters (3,) int64 (LISTED, USED, FULL)."""
    chunks, reach, bin_start, bins, _ints, _floats, counters = plan
    listed = _list_chunks(first, 0, 0, camera, height, width, chunks, reach)
    listed = _list_chunks(second, 1, listed, camera, height, width, chunks, reach)
    counters[LISTED] = listed
    counters[USED] = 0
    counters[FULL] = 0
    strips = -(-height // strip)
    for s in range(strips + 1):
        bin_start[s] = 0
    for p in range(listed):
        for s in range(chunks[p, TJ0] * TILE // strip, chunks[p, TJ1] * TILE // strip + 1):
            bin_start[s + 1] += 1
    for s in range(strips):
        bin_start[s + 1] += bin_start[s]
    cursor = bin_start[:strips].copy()
    for p in range(listed):
        chunks[p, FIRST_PRIMITIVE] = -1
        for s in range(chunks[p, TJ0] * TILE // strip, chunks[p, TJ1] * TILE // strip + 1):
            bins[cursor[s]] = p
            cursor[s] += 1


@njit(inline="always")
def _camera_frame(camera):
    """A camera array's origin, its (3, 3) forward, right and up rows, focal length, near
    and far planes."""
    axes = np.empty((3, 3))
    axes[0] = camera[FORWARD : FORWARD + 3]
    axes[1] = camera[RIGHT : RIGHT + 3]
    axes[2] = camera[UP : UP + 3]
    return camera[ORIGIN : ORIGIN + 3], axes, camera[FOCAL], camera[NEAR], camera[FAR]


@njit(inline="always")
def _list_chunks(index, which, listed, camera, height, width, chunks, reach) -> int:
    """plan_view's listing of one index's chunks from row `listed` on; returns the rows."""
    _vertices, _triangles, _number, _tstart, _vstart, lower, upper, _offset = index
    o, axes, focal, near, far = _camera_frame(camera)
    count = len(lower)
    depth = np.empty(count)
    for c in range(count):
        depth[c] = _box_depth(lower, upper, c, o, axes)
    for c in np.argsort(depth):
        if depth[c] > far:
            break
        seen, ti0, ti1, tj0, tj1, largest = _box_rect(
            lower, upper, c, o, axes, focal, near, width * 0.5, height * 0.5, width, height
        )
        if not seen:
            continue
        chunks[listed, WHICH] = which
        chunks[listed, CHUNK] = c
        chunks[listed, TI0], chunks[listed, TI1] = ti0, ti1
        chunks[listed, TJ0], chunks[listed, TJ1] = tj0, tj1
        reach[listed] = largest
        listed += 1
    return listed


@njit(cache=True)
def draw_strip(
    first: tuple,
    second: tuple,
    camera: np.ndarray,
    s: int,
    strip: int,
    plan: tuple,
    buffers: tuple,
    work: tuple,
) -> bool:
    """Draws plan_view's chunks of strip s (image rows s * strip on) into the strip's
    `buffers` (inv_depth, hit, tiles, stale, drawn: arrays of the strip's rows and tile
    rows, their first row the strip's first): `inv_depth` gets 1/x of each pixel's nearest
    triangle (0: nothing), `hit` its number (-1: nothing). While it draws, a tile whose
    `drawn` is False holds anything, and is cleared when a triangle first reaches it (the
    tiles none reached are cleared at the end), and `tiles` holds a lower bound of each
    tile's inv_depth, its least when `stale` is False (their values before the call do not
    matter). `work` (scratch, snapped, polygon): scratch (most_vertices, 3) float64,
    snapped (most_vertices, 3) int64 and polygon (2, POLYGON, 3) float64. Returns True when
    the primitive table is full (the plan's FULL counter is set; the strip is incomplete).

    A chunk whose nearest point lies behind everything already drawn in every tile of the
    strip its box covers is skipped: a pixel's depth is held within its triangle's (so
    within its chunk's box), so the skipped chunk could not have won a pixel. Its triangles
    are set up (moved into the camera's frame, snapped, clipped) when a strip first draws
    it, and kept in the plan for the next strips."""
    chunks, reach, bin_start, bins, ints, floats, counters = plan
    rows = buffers[1].shape[0]
    buffers[2][:] = 0.0  # nothing drawn: each tile's least 0, its pixels cleared when reached
    buffers[3][:] = False
    buffers[4][:] = False
    row0 = s * strip
    band = np.empty((TILE, 2), np.int64)  # _fill_strip's spans of a band of rows
    inv_far = 1.0 / camera[FAR]
    for e in range(bin_start[s], bin_start[s + 1]):
        p = bins[e]
        if reach[p] < np.inf and _rect_behind(reach[p], chunks, p, row0, rows, buffers):
            continue
        if chunks[p, FIRST_PRIMITIVE] < 0:
            start = counters[USED]
            if chunks[p, WHICH] == 0:
                room = _set_up_chunk(first, chunks[p, CHUNK], camera, plan, work)
            else:
                room = _set_up_chunk(second, chunks[p, CHUNK], camera, plan, work)
            if not room:
                counters[FULL] = 1
                return True
            chunks[p, FIRST_PRIMITIVE], chunks[p, END_PRIMITIVE] = start, counters[USED]
        for q in range(chunks[p, FIRST_PRIMITIVE], chunks[p, END_PRIMITIVE]):
            if ints[q, ROW1] >= row0 and ints[q, ROW0] < row0 + rows:
                _fill_strip(ints, floats, q, row0, inv_far, buffers, band)
    _clear_undrawn(buffers[0], buffers[1], buffers[4])
    return False


@njit(inline="always")
def _rect_behind(nearest, chunks, p, row0, rows, buffers) -> bool:
    """Whether 1/x `nearest` lies behind all that is drawn in every tile of the strip (its
    buffers, first row row0) that listed chunk p's box covers."""
    inv_depth, _hit, tiles, stale, _drawn = buffers
    tile0 = row0 // TILE
    tj0 = max(chunks[p, TJ0], tile0)
    tj1 = min(chunks[p, TJ1], (row0 + rows - 1) // TILE)
    for tj in range(tj0, tj1 + 1):
        for ti in range(chunks[p, TI0], chunks[p, TI1] + 1):
            if not _behind(nearest, inv_depth, tiles, stale, ti, tj - tile0):
                return False
    return True


@njit(inline="always")
def _set_up_chunk(index, c, camera, plan, work) -> bool:
    """Appends chunk c's primitives to the plan's table (a triangle out of the image or seen
    edge-on has none, one crossing the near plane or the guard band a fan); False when the
    table has no room left."""
    vertices, triangles, number, triangle_start, vertex_start, _lower, _upper, offset = index
    scratch, snapped, polygon = work
    _chunks, _reach, _bin_start, _bins, ints, floats, counters = plan
    o, axes, focal, near, far = _camera_frame(camera)
    height, width = int(camera[HEIGHT]), int(camera[WIDTH])
    hw = width * 0.5
    hh = height * 0.5
    inv_far = 1.0 / far
    first = vertex_start[c]
    for k in range(vertex_start[c + 1] - first):
        _vertex(vertices, first + k, o, axes, focal, near, far, hw, hh, scratch, snapped, k)
    for t in range(triangle_start[c], triangle_start[c + 1]):
        a = triangles[t, 0] - first
        b = triangles[t, 1] - first
        d = triangles[t, 2] - first
        if snapped[a, 2] & snapped[b, 2] & snapped[d, 2] & OUTSIDE:
            continue
        tri = number[t] + offset
        if (snapped[a, 2] | snapped[b, 2] | snapped[d, 2]) & UNSNAPPED:
            if not _set_up_clipped(scratch, a, b, d, tri, camera, polygon, plan):
                return False
            continue
        sx0, sy0, sx1, sy1, sx2, sy2 = (
            snapped[a, 0],
            snapped[a, 1],
            snapped[b, 0],
            snapped[b, 1],
            snapped[d, 0],
            snapped[d, 1],
        )
        if _covers_no_centre(sx0, sy0, sx1, sy1, sx2, sy2, width, height):
            continue
        plane = _plane(scratch, a, b, d, focal, hw, hh)
        if plane[3] == 0.0:
            continue
        x0, x1, x2 = scratch[a, 0], scratch[b, 0], scratch[d, 0]
        low = 1.0 / max(x0, x1, x2)
        high = 1.0 / min(x0, x1, x2)
        corners = (sx0, sy0, sx1, sy1, sx2, sy2)
        if not _add_primitive(
            corners, plane, low, high, inv_far, tri, width, height, ints, floats, counters
        ):
            return False
    return True


@njit(inline="always")
def _add_primitive(
    corners, plane, low, high, inv_far, tri, width, height, ints, floats, counters
) -> bool:
    """Appends a fixed-point triangle (turned counter-clockwise) with its plane and depth
    range to the table, unless it covers no pixel centre of the image, has no area or lies
    wholly beyond `far`; False when the table has no room left."""
    sx0, sy0, sx1, sy1, sx2, sy2 = corners
    area = (sx1 - sx0) * (sy2 - sy0) - (sy1 - sy0) * (sx2 - sx0)
    if area == 0:
        return True
    if area < 0:
        sx1, sy1, sx2, sy2 = sx2, sy2, sx1, sy1
    i0 = max(0, -((HALF - min(sx0, sx1, sx2)) // SUBPIXEL))
    i1 = min(width - 1, (max(sx0, sx1, sx2) - HALF) // SUBPIXEL)
    j0 = max(0, -((HALF - min(sy0, sy1, sy2)) // SUBPIXEL))
    j1 = min(height - 1, (max(sy0, sy1, sy2) - HALF) // SUBPIXEL)
    if i0 > i1 or j0 > j1 or high < inv_far:
        return True
    q = counters[USED]
    if q == len(ints):
        return False
    ints[q, SX0], ints[q, SY0], ints[q, SX1], ints[q, SY1] = sx0, sy0, sx1, sy1
    ints[q, SX2], ints[q, SY2], ints[q, NUMBER] = sx2, sy2, tri
    ints[q, ROW0], ints[q, ROW1] = j0, j1
    floats[q, C0], floats[q, CU], floats[q, CV] = plane[0], plane[1], plane[2]
    floats[q, LOW], floats[q, HIGH] = low, high
    counters[USED] = q + 1
    return True


@njit(inline="always")
def _vertex(vertices, row, o, axes, focal, near, far, hw, hh, cam, out, k) -> None:
    """A vertex's camera coordinates (into cam[k]), its pixel coordinates in fixed point and
    its outcode (into out[k]: X, Y, code). (Rows are passed by number: a view of a row
    costs a reference count in numba, more than the arithmetic.)"""
    dx = vertices[row, 0] - o[0]
    dy = vertices[row, 1] - o[1]
    dz = vertices[row, 2] - o[2]
    x = dx * axes[0, 0] + dy * axes[0, 1] + dz * axes[0, 2]
    y = dx * axes[1, 0] + dy * axes[1, 1] + dz * axes[1, 2]
    z = dx * axes[2, 0] + dy * axes[2, 1] + dz * axes[2, 2]
    cam[k, 0], cam[k, 1], cam[k, 2] = x, y, z
    fy = focal * y
    fz = focal * z
    gw = hw + 1.0  # the image's edges a pixel out: rounding cannot cross the margin
    gh = hh + 1.0
    code = 0
    if x < near:
        code |= BEHIND | UNSNAPPED
    if x > far:
        code |= BEYOND
    if fy + gw * x < 0.0:
        code |= LEFT_OF
    if gw * x - fy < 0.0:
        code |= RIGHT_OF
    if gh * x - fz < 0.0:
        code |= ABOVE
    if gh * x + fz < 0.0:
        code |= BELOW
    if GUARD * x - fy < 0.0 or GUARD * x + fy < 0.0 or GUARD * x - fz < 0.0 or GUARD * x + fz < 0.0:
        code |= UNSNAPPED
    if code & UNSNAPPED:
        out[k, 0] = 0
        out[k, 1] = 0
    else:
        out[k, 0] = _snap(y * focal / x + hw)
        out[k, 1] = _snap(-(z * focal) / x + hh)
    out[k, 2] = code


@njit(inline="always")
def _box_depth(lower, upper, c, o, axes) -> float:
    """The least forward distance (p - o).F over box c's corners."""
    total = 0.0
    for k in range(3):
        total += axes[0, k] * ((lower[c, k] if axes[0, k] > 0.0 else upper[c, k]) - o[k])
    return total


@njit(inline="always")
def _box_rect(lower, upper, c, o, axes, focal, near, hw, hh, width, height):
    """Whether any point of box c may show (in front of the near plane, inside the image's
    edges a pixel out), the tiles its corners' rectangle covers (TI0, TI1, TJ0, TJ1: the
    whole image where the box reaches behind the near plane) and its largest 1/x (inf
    there)."""
    u_low, u_high, v_low, v_high = np.inf, -np.inf, np.inf, -np.inf
    nearest, farthest = np.inf, -np.inf
    gw = hw + 1.0  # the image's edges a pixel out, as the vertices' outcodes
    gh = hh + 1.0
    # the largest value over the corners of each edge's plane (homogeneous: any sign of x)
    left = right = top = bottom = -np.inf
    for corner in range(8):
        px = upper[c, 0] if corner & 1 else lower[c, 0]
        py = upper[c, 1] if corner & 2 else lower[c, 1]
        pz = upper[c, 2] if corner & 4 else lower[c, 2]
        dx, dy, dz = px - o[0], py - o[1], pz - o[2]
        x = dx * axes[0, 0] + dy * axes[0, 1] + dz * axes[0, 2]
        y = dx * axes[1, 0] + dy * axes[1, 1] + dz * axes[1, 2]
        z = dx * axes[2, 0] + dy * axes[2, 1] + dz * axes[2, 2]
        nearest, farthest = min(nearest, x), max(farthest, x)
        fy, fz = focal * y, focal * z
        left, right = max(left, fy + gw * x), max(right, gw * x - fy)
        top, bottom = max(top, gh * x - fz), max(bottom, gh * x + fz)
        if x > 0.0:
            u, v = fy / x + hw, -fz / x + hh
            u_low, u_high = min(u_low, u), max(u_high, u)
            v_low, v_high = min(v_low, v), max(v_high, v)
    if farthest < near or left < 0.0 or right < 0.0 or top < 0.0 or bottom < 0.0:
        return False, 0, 0, 0, 0, 0.0  # wholly behind the camera or beside the image
    if nearest < near:  # reaches behind the near plane: drawn (its clipping decides)
        return True, 0, (width - 1) // TILE, 0, (height - 1) // TILE, np.inf
    if u_high < -1.0 or u_low > width + 1.0 or v_high < -1.0 or v_low > height + 1.0:
        return False, 0, 0, 0, 0, 0.0
    i0 = max(0, floor_int(u_low) - 1) // TILE
    i1 = min(width - 1, floor_int(u_high) + 1) // TILE
    j0 = max(0, floor_int(v_low) - 1) // TILE
    j1 = min(height - 1, floor_int(v_high) + 1) // TILE
    return True, i0, i1, j0, j1, 1.0 / nearest


@njit(inline="always")
def _behind(nearest, inv_depth, tiles, stale, ti, tj) -> bool:
    """Whether 1/x `nearest` lies below all the tile holds (so could win none of its
    pixels): below its bound, or, the bound being stale, below its least worked out anew."""
    if nearest < tiles[tj, ti]:
        return True
    if not stale[tj, ti]:
        return False
    least = _tile_least(inv_depth, ti, tj)
    tiles[tj, ti] = least
    stale[tj, ti] = False
    return nearest < least


@njit(inline="always")
def _tile_least(inv_depth, ti, tj) -> float:
    """The smallest 1/x drawn in a tile (0 while a pixel of it holds nothing): a running
    least per column, so the comparisons do not wait on each other."""
    height, width = inv_depth.shape
    i0 = ti * TILE
    j1 = min(height, tj * TILE + TILE)
    if i0 + TILE > width:  # the image's last column of tiles: narrower
        least = np.inf
        for j in range(tj * TILE, j1):
            for i in range(i0, width):
                least = min(least, inv_depth[j, i])
        return least
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = np.inf
    for j in range(tj * TILE, j1):
        m0 = min(m0, inv_depth[j, i0])
        m1 = min(m1, inv_depth[j, i0 + 1])
        m2 = min(m2, inv_depth[j, i0 + 2])
        m3 = min(m3, inv_depth[j, i0 + 3])
        m4 = min(m4, inv_depth[j, i0 + 4])
        m5 = min(m5, inv_depth[j, i0 + 5])
        m6 = min(m6, inv_depth[j, i0 + 6])
        m7 = min(m7, inv_depth[j, i0 + 7])
    return min(min(min(m0, m1), min(m2, m3)), min(min(m4, m5), min(m6, m7)))


@njit(inline="always")
def _covers_no_centre(sx0, sy0, sx1, sy1, sx2, sy2, width, height) -> bool:
    """Whether the fixed-point triangle's bounding box holds no pixel centre of the image."""
    i0 = max(0, -((HALF - min(sx0, sx1, sx2)) // SUBPIXEL))
    i1 = min(width - 1, (max(sx0, sx1, sx2) - HALF) // SUBPIXEL)
    if i0 > i1:
        return True
    j0 = max(0, -((HALF - min(sy0, sy1, sy2)) // SUBPIXEL))
    j1 = min(height - 1, (max(sy0, sy1, sy2) - HALF) // SUBPIXEL)
    return j0 > j1


@njit(inline="always")
def _plane(cam, a, b, c, focal, hw, hh):
    """1/x along the ray of pixel point (u, v) on the triangle's plane, as c0 + cu u + cv v;
    and the plane's n.p0 (0: the plane passes through the camera, seen edge-on). The ray's
    direction is (1, (u - hw) / f, -(v - hh) / f), so 1/x = n.direction / n.p0."""
    x0, y0, z0 = cam[a, 0], cam[a, 1], cam[a, 2]
    e1x, e1y, e1z = cam[b, 0] - x0, cam[b, 1] - y0, cam[b, 2] - z0
    e2x, e2y, e2z = cam[c, 0] - x0, cam[c, 1] - y0, cam[c, 2] - z0
    nx = e1y * e2z - e1z * e2y
    ny = e1z * e2x - e1x * e2z
    nz = e1x * e2y - e1y * e2x
    d = nx * x0 + ny * y0 + nz * z0
    if d == 0.0:
        return 0.0, 0.0, 0.0, 0.0
    cu = ny / (focal * d)
    cv = -nz / (focal * d)
    return nx / d - cu * hw - cv * hh, cu, cv, d


@njit
def _set_up_clipped(cam, a, b, c, tri, camera, polygon, plan) -> bool:
    """Appends the primitives of a triangle that reaches behind the near plane or past the
    guard band: clipped to both, then a fan over the polygon (its inner edges are shared:
    the fill rule splits them), each held within the clipped polygon's depth range. False
    when the table has no room left."""
    _chunks, _reach, _bin_start, _bins, ints, floats, counters = plan
    focal, near, far = camera[FOCAL], camera[NEAR], camera[FAR]
    height, width = int(camera[HEIGHT]), int(camera[WIDTH])
    hw = width * 0.5
    hh = height * 0.5
    plane = _plane(cam, a, b, c, focal, hw, hh)
    if plane[3] == 0.0:
        return True
    count = _clip_polygon(cam, a, b, c, focal, near, polygon)
    if count < 3:
        return True
    nearest, farthest = np.inf, 0.0
    for k in range(count):
        nearest = min(nearest, polygon[0, k, 0])
        farthest = max(farthest, polygon[0, k, 0])
    low, high = 1.0 / farthest, 1.0 / nearest
    sx0 = _snap(polygon[0, 0, 1] * focal / polygon[0, 0, 0] + hw)
    sy0 = _snap(-(polygon[0, 0, 2] * focal) / polygon[0, 0, 0] + hh)
    sx1 = _snap(polygon[0, 1, 1] * focal / polygon[0, 1, 0] + hw)
    sy1 = _snap(-(polygon[0, 1, 2] * focal) / polygon[0, 1, 0] + hh)
    for k in range(2, count):
        sx2 = _snap(polygon[0, k, 1] * focal / polygon[0, k, 0] + hw)
        sy2 = _snap(-(polygon[0, k, 2] * focal) / polygon[0, k, 0] + hh)
        corners = (sx0, sy0, sx1, sy1, sx2, sy2)
        if not _add_primitive(
            corners, plane, low, high, 1.0 / far, tri, width, height, ints, floats, counters
        ):
            return False
        sx1, sy1 = sx2, sy2
    return True


@njit(inline="always")
def _snap(value: float) -> int:
    """A pixel coordinate in fixed point (nearest 1/SUBPIXEL, halves up)."""
    return floor_int(value * SUBPIXEL + 0.5)


@njit(inline="always")
def _clip_polygon(cam, a, b, c, focal, near, polygon) -> int:
    """Clips the triangle (rows of camera coordinates) to x >= near and the guard band, the
    planes a x + b y + c z + e >= 0 in turn (Sutherland-Hodgman, through polygon[1]); the
    polygon is left in polygon[0]; returns its vertex count. The point where an edge
    crosses a plane is computed from its end inside, whichever way the polygon runs, so a
    shared edge is cut at the same point in both its triangles."""
    for axis in range(3):
        polygon[0, 0, axis] = cam[a, axis]
        polygon[0, 1, axis] = cam[b, axis]
        polygon[0, 2, axis] = cam[c, axis]
    count = 3
    for plane in range(5):
        if plane == 0:
            pa, pb, pc, pe = 1.0, 0.0, 0.0, -near
        elif plane == 1:
            pa, pb, pc, pe = GUARD, -focal, 0.0, 0.0
        elif plane == 2:
            pa, pb, pc, pe = GUARD, focal, 0.0, 0.0
        elif plane == 3:
            pa, pb, pc, pe = GUARD, 0.0, -focal, 0.0
        else:
            pa, pb, pc, pe = GUARD, 0.0, focal, 0.0
        count = clip_by_plane(polygon, count, pa, pb, pc, pe)
    return count


@njit(inline="always")
def _fill_strip(ints, floats, q, row0, inv_far, buffers, band) -> None:
    """Fills the pixels of a strip (`buffers` as draw_strip's, their first row image row
    row0) whose centres primitive q covers where it is nearer than what the buffers hold:
    1/x = c0 + cu u + cv v at the centre (u, v), held within [low, high] (the triangle's
    own range: snapping may put a centre a hair outside the triangle) and seen only from
    1/far on. A tile whose pixels change forgets its farthest depth.

    Rows go in bands of a tile's height. In each band, a tile whose farthest drawn depth
    lies nearer than the triangle's nearest over the tile is left out: c0 + cv (j + 0.5)
    grows (or shrinks) with j, and adding cu (i + 0.5) to it with i, in floating point as
    in exact arithmetic (rounding keeps order), so the largest 1/x any pixel of a rectangle
    gets is at one of its corners, and no pixel of the tile could have won. The band is
    drawn tile by tile (each tile's rows, then the next tile), so a tile's lines are read
    together, and a tile is cleared as it is first reached. `band` (TILE, 2) is a work
    array."""
    inv_depth, hit, tiles, stale, drawn = buffers
    rows, width = hit.shape
    sx0, sy0, sx1, sy1 = ints[q, SX0], ints[q, SY0], ints[q, SX1], ints[q, SY1]
    sx2, sy2, tri = ints[q, SX2], ints[q, SY2], ints[q, NUMBER]
    c0, cu, cv = floats[q, C0], floats[q, CU], floats[q, CV]
    low, high = floats[q, LOW], floats[q, HIGH]
    i0 = max(0, -((HALF - min(sx0, sx1, sx2)) // SUBPIXEL))
    i1 = min(width - 1, (max(sx0, sx1, sx2) - HALF) // SUBPIXEL)
    j0 = max(row0, ints[q, ROW0])
    j1 = min(row0 + rows - 1, ints[q, ROW1])
    tile0 = row0 // TILE
    px = i0 * SUBPIXEL + HALF
    py = j0 * SUBPIXEL + HALF
    # edge k from A to B: E(P) = (Bx - Ax)(Py - Ay) - (By - Ay)(Px - Ax), positive inside;
    # a centre on the edge (E = 0) is inside when the edge owns it (dx > 0, or dx = 0 and
    # dy < 0: the inward normal (-dy, dx) points down, or right), else it needs E >= 1
    w0, s0, t0 = _edge(sx0, sy0, sx1, sy1, px, py)
    w1, s1, t1 = _edge(sx1, sy1, sx2, sy2, px, py)
    w2, s2, t2 = _edge(sx2, sy2, sx0, sy0, px, py)
    last = i1 - i0
    first_row = j0
    while first_row <= j1:
        last_row = min(j1, (first_row // TILE) * TILE + TILE - 1)
        union_lo, union_hi = width, -1
        for r in range(last_row - first_row + 1):
            lo, hi = _span(w0, s0, 0, last)
            lo, hi = _span(w1, s1, lo, hi)
            lo, hi = _span(w2, s2, lo, hi)
            band[r, 0] = i0 + lo
            band[r, 1] = i0 + hi
            if lo <= hi:
                union_lo = min(union_lo, i0 + lo)
                union_hi = max(union_hi, i0 + hi)
            w0 += t0
            w1 += t1
            w2 += t2
        if union_lo <= union_hi:
            tj = first_row // TILE - tile0
            row_a = c0 + cv * (first_row + 0.5)
            row_b = c0 + cv * (last_row + 0.5)
            for ti in range(union_lo // TILE, union_hi // TILE + 1):
                ua = max(union_lo, ti * TILE) + 0.5
                ub = min(union_hi, ti * TILE + TILE - 1) + 0.5
                nearest = max(
                    max(row_a + cu * ua, row_a + cu * ub), max(row_b + cu * ua, row_b + cu * ub)
                )
                nearest = min(max(nearest, low), high)
                if nearest < inv_far or _behind(nearest, inv_depth, tiles, stale, ti, tj):
                    continue
                left, right = ti * TILE, ti * TILE + TILE - 1
                covered = 0
                for r in range(last_row - first_row + 1):
                    covered += max(0, min(band[r, 1], right) - max(band[r, 0], left) + 1)
                # a tile no triangle reached yet holds nothing: each pixel the triangle covers
                # is nearer (its 1/x is above 0) and is written without a test
                fresh = not drawn[tj, ti] and low >= inv_far
                if not drawn[tj, ti]:
                    if not (fresh and covered == TILE * TILE):
                        _clear_tile(inv_depth, hit, ti, tj)
                    drawn[tj, ti] = True
                changed = False
                for r in range(last_row - first_row + 1):
                    start, end = max(band[r, 0], left), min(band[r, 1], right)
                    if start <= end:
                        j = first_row + r
                        row = c0 + cv * (j + 0.5)
                        at = j - row0  # the row in the strip's buffers
                        if fresh:
                            _write_run(row, cu, low, high, tri, at, start, end, inv_depth, hit)
                            changed = True
                        else:
                            changed |= _fill_run(
                                row, cu, low, high, inv_far, tri, at, start, end, inv_depth, hit
                            )
                # a fresh tile's least stays known: 0 where the triangle left pixels cleared,
                # its own least (the farthest below) where it covered them all; a changed
                # tile's is worked out when a test needs it
                if changed and not fresh:
                    stale[tj, ti] = True
                if covered == TILE * TILE:  # every pixel now holds at least the farthest
                    farthest = min(
                        min(row_a + cu * ua, row_a + cu * ub), min(row_b + cu * ua, row_b + cu * ub)
                    )
                    farthest = min(max(farthest, low), high)
                    if farthest >= inv_far and farthest > tiles[tj, ti]:
                        tiles[tj, ti] = farthest
        first_row = last_row + 1


@njit(inline="always")
def _write_run(row, cu, low, high, tri, j, start, stop, inv_depth, hit) -> None:
    """Draws the pixels start..stop of row j of a tile that held nothing (as _fill_run would:
    each 1/x is at least `low`, above 0). The columns are unsigned (no check for a negative
    index) and i + 0.5 is worked out anew (exact: half-integers far below 2^52), so the loop
    runs on vectors."""
    for i in range(np.uint64(start), np.uint64(stop + 1)):
        inv_depth[j, i] = min(max(row + cu * (np.int64(i) + 0.5), low), high)
        hit[j, i] = tri


@njit(inline="always")
def _fill_run(row, cu, low, high, inv_far, tri, j, start, stop, inv_depth, hit) -> bool:
    """Draws the pixels start..stop of row j where the triangle is nearer; whether any
    changed. Each pixel is written (its old values where the triangle is not nearer), with
    _write_run's unsigned columns, so this loop too runs on vectors."""
    changed = False
    if low >= inv_far:  # every 1/x the triangle gives is seen
        for i in range(np.uint64(start), np.uint64(stop + 1)):
            z = min(max(row + cu * (np.int64(i) + 0.5), low), high)
            held = inv_depth[j, i]
            number = hit[j, i]
            wins = (z > held) | ((z == held) & (tri < number))
            inv_depth[j, i] = z if wins else held
            hit[j, i] = tri if wins else number
            changed |= wins
        return changed
    for i in range(np.uint64(start), np.uint64(stop + 1)):
        z = min(max(row + cu * (np.int64(i) + 0.5), low), high)
        held = inv_depth[j, i]
        number = hit[j, i]
        wins = (z >= inv_far) & ((z > held) | ((z == held) & (tri < number)))
        inv_depth[j, i] = z if wins else held
        hit[j, i] = tri if wins else number
        changed |= wins
    return changed


@njit(inline="always")
def _edge(ax, ay, bx, by, px, py):
    """An edge's value at the first pixel centre (less one where the edge does not own its
    boundary), its step to the next pixel along a row, and to the next row."""
    dx = bx - ax
    dy = by - ay
    owns = dx > 0 or (dx == 0 and dy < 0)
    value = dx * (py - ay) - dy * (px - ax) - (0 if owns else 1)
    return value, -dy * SUBPIXEL, dx * SUBPIXEL


@njit(inline="always")
def _span(w, step, lo, hi):
    """The steps n in [lo, hi] where w + n step >= 0 (exact integer arithmetic)."""
    if step > 0:
        if w < 0:
            lo = max(lo, (-w + step - 1) // step)
    elif step < 0:
        if w < 0:
            return 1, 0
        hi = min(hi, w // -step)
    elif w < 0:
        return 1, 0
    return lo, hi
