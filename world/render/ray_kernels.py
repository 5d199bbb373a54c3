"""Ray casts from one origin: each ray's nearest triangle and distance (numba kernels).

The rays are binned by direction: each goes to the face of a cube around the origin its
direction points through (the axis of its largest component, ties to the lower axis), at
face coordinates (a, b) = its other two components over that one, and each face's rays are
sorted into a grid of bins over the rectangle they cover. A triangle then finds its
candidate rays without a search: its projection on a face, clipped to that face's pyramid
of rays, has a bounding rectangle, and only the bins under it can hold rays through it.

Each candidate ray is tested exactly the same way whichever bin or chunk brought it: with
the triangle's vertices p0, p1, p2 relative to the origin, the ray d passes through the
triangle when it lies on the inner side of the three planes through the origin and an edge,
d.(pk x pk+1) of one sign. A neighbour computes its shared edge's plane as the same cross
product or its exact negation (x * y = y * x and a - b = -(b - a) in IEEE arithmetic), so a
ray on the plane (the dot exactly 0) goes to the one triangle whose oriented edge normal has
its first non-zero component positive: no ray slips between two triangles or hits both. The
distance is (n.p0) / (n.d) with n the triangle's normal; the nearest wins, equal distances
go to the lower triangle number. The result does not depend on the binning or on the order
of the chunks, which only decide how much work is skipped: chunks go nearest first, and a
bin whose rays all hit something nearer than a triangle's box skips that triangle.
"""

from __future__ import annotations

import math

import numpy as np

from world.kernels.compiled import njit
from world.render.kernel_math import clip_by_plane, floor_int

__all__ = ["cast_index", "face_coordinates", "sort_rays", "unsort_hits"]

# each face's grid as cast_index reads it: rows of FACE_COLUMNS float64
A_LOW, A_HIGH, B_LOW, B_HIGH, COLUMNS, ROWS, A_SCALE, B_SCALE, FIRST_BIN = range(9)
FACE_COLUMNS = 9
PAD = 1e-9  # face coordinates a triangle's rectangle is grown by (rounding of the projection)
BORDER = 1.0 + 1e-9  # a point nearer a face's border than this ratio counts on both faces
SLACK = 1e-9  # a triangle's box distance is shrunk by this share before it skips a bin


@njit(cache=True)
def face_coordinates(
    directions: np.ndarray,
    face: np.ndarray,
    coordinates: np.ndarray,
    extents: np.ndarray,
    unit: float,
) -> float:
    """Each ray's face (0..5: +x, -x, +y, -y, +z, -z) and face coordinates (a, b), and each
    face's ray count and rectangle: extents rows (count, a_low, a_high, b_low, b_high).
    Returns the longest direction's length (1.0 for no rays), or -1.0 when a direction's
    length (sqrt(x x + y y + z z)) is off 1 by more than `unit` or not a number."""
    for f in range(6):
        extents[f, 0] = 0.0
        extents[f, 1] = np.inf
        extents[f, 2] = -np.inf
        extents[f, 3] = np.inf
        extents[f, 4] = -np.inf
    longest = -np.inf if len(directions) else 1.0
    for r in range(len(directions)):
        dx, dy, dz = directions[r, 0], directions[r, 1], directions[r, 2]
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        if not abs(length - 1.0) <= unit:
            return -1.0
        longest = max(longest, length)
        ax, ay, az = abs(dx), abs(dy), abs(dz)
        if ax >= ay and ax >= az:
            axis, w, u, v = 0, dx, dy, dz
        elif ay >= az:
            axis, w, u, v = 1, dy, dz, dx
        else:
            axis, w, u, v = 2, dz, dx, dy
        f = 2 * axis + (0 if w > 0.0 else 1)
        aw = abs(w)
        a = u / aw
        b = v / aw
        face[r] = f
        coordinates[r, 0] = a
        coordinates[r, 1] = b
        extents[f, 0] += 1.0
        extents[f, 1] = min(extents[f, 1], a)
        extents[f, 2] = max(extents[f, 2], a)
        extents[f, 3] = min(extents[f, 3], b)
        extents[f, 4] = max(extents[f, 4], b)
    return longest


@njit(cache=True)
def sort_rays(
    face: np.ndarray,
    coordinates: np.ndarray,
    directions: np.ndarray,
    grids: np.ndarray,
    bin_start: np.ndarray,
    order: np.ndarray,
    sorted_directions: np.ndarray,
) -> None:
    """Sorts the rays by bin (a counting sort, rays in input order within a bin):
    order[bin_start[k]:bin_start[k + 1]] are bin k's rays, sorted_directions their
    directions in that order."""
    count = len(face)
    bins = len(bin_start) - 1
    ray_bin = np.empty(count, np.int64)
    for k in range(bins + 1):
        bin_start[k] = 0
    for r in range(count):
        k = _bin_of(grids, face[r], coordinates[r, 0], coordinates[r, 1])
        ray_bin[r] = k
        bin_start[k + 1] += 1
    for k in range(bins):
        bin_start[k + 1] += bin_start[k]
    fill = bin_start[:bins].copy()
    for r in range(count):
        k = ray_bin[r]
        order[fill[k]] = r
        fill[k] += 1
    for s in range(count):  # read where they lie, write in order
        r = order[s]
        sorted_directions[s, 0] = directions[r, 0]
        sorted_directions[s, 1] = directions[r, 1]
        sorted_directions[s, 2] = directions[r, 2]


@njit(cache=True)
def unsort_hits(
    order: np.ndarray,
    best_t: np.ndarray,
    best_n: np.ndarray,
    distance: np.ndarray,
    number: np.ndarray,
) -> None:
    """The hits from bin order back to the rays' own: distance (inf for none), number."""
    for s in range(len(order)):
        r = order[s]
        distance[r] = best_t[s] if best_n[s] >= 0 else np.inf
        number[r] = best_n[s]


@njit(inline="always")
def _bin_of(grids, f, a, b) -> int:
    """The bin of face coordinates (a, b) on face f."""
    columns = int(grids[f, COLUMNS])
    rows = int(grids[f, ROWS])
    i = min(columns - 1, max(0, floor_int((a - grids[f, A_LOW]) * grids[f, A_SCALE])))
    j = min(rows - 1, max(0, floor_int((b - grids[f, B_LOW]) * grids[f, B_SCALE])))
    return int(grids[f, FIRST_BIN]) + j * columns + i


@njit(cache=True)
def cast_index(
    index: tuple,
    offset: int,
    origin: np.ndarray,
    frame: np.ndarray,
    max_range: float,
    shrink: float,
    directions: np.ndarray,
    bins: tuple,
    best: tuple,
    work: tuple,
) -> None:
    """Casts the binned rays (`directions` in bin order, bin k's from bin_start[k] to
    bin_start[k + 1], in `frame`: rows forward, right, up in the world) against a
    MeshIndex's triangles (numbered `offset` + their Mesh number), keeping each ray's nearest
    hit in best_t / best_n (bin order; start: max_range / -1) and each bin's farthest best_t
    in bin_far (-1 for a bin without rays). A chunk or a triangle is skipped where
    its box distance times `shrink` (a hair under 1: it covers the rounding of distances and
    of the directions' lengths) exceeds the farthest hit of every bin under it. Work arrays:
    `scratch` (most_vertices, 6) float64, `polygon` (2, 16, 3) float64. The arrays come as
    groups: `index` (vertices, triangles, number, triangle_start, vertex_start, lower,
    upper), `bins` (grids, bin_start, bin_far), `best` (best_t, best_n) and `work` (scratch,
    polygon)."""
    vertices, triangles, number, triangle_start, vertex_start, lower, upper = index
    grids, bin_start, bin_far = bins
    best_t, best_n = best
    scratch, polygon = work
    chunks = len(lower)
    near = np.empty(chunks)
    corners = np.empty((16, 3))
    for c in range(chunks):
        near[c] = _box_distance(lower, upper, c, origin)
    for c in np.argsort(near):
        if near[c] > max_range:
            break
        if not _box_open(lower, upper, c, origin, frame, near[c] * shrink, grids, bin_far, corners):
            continue
        first = vertex_start[c]
        for k in range(vertex_start[c + 1] - first):
            _to_frame(vertices, first + k, origin, frame, scratch, k)
            _vertex_face(scratch, k)
        for t in range(triangle_start[c], triangle_start[c + 1]):
            _cast_triangle(
                scratch,
                triangles[t, 0] - first,
                triangles[t, 1] - first,
                triangles[t, 2] - first,
                number[t] + offset,
                max_range,
                shrink,
                directions,
                grids,
                bin_start,
                bin_far,
                best_t,
                best_n,
                polygon,
            )


@njit(inline="always")
def _to_frame(points, row, origin, frame, out, k) -> None:
    """out[k] = the point's coordinates relative to origin along the frame's three axes."""
    dx = points[row, 0] - origin[0]
    dy = points[row, 1] - origin[1]
    dz = points[row, 2] - origin[2]
    for axis in range(3):
        out[k, axis] = dx * frame[axis, 0] + dy * frame[axis, 1] + dz * frame[axis, 2]


@njit(inline="always")
def _vertex_face(p, k) -> None:
    """p[k, 3:6]: the face point k's direction points through (-1 near a border: see
    _face_of) and its face coordinates (a, b) there."""
    x, y, z = p[k, 0], p[k, 1], p[k, 2]
    face = _face_of(x, y, z)
    p[k, 3] = face
    if face >= 0:
        axis = face // 2
        w, u, v = (x, y, z) if axis == 0 else ((y, z, x) if axis == 1 else (z, x, y))
        p[k, 4] = u / abs(w)
        p[k, 5] = v / abs(w)


@njit(inline="always")
def _box_open(lower, upper, c, origin, frame, reach, grids, bin_far, corners) -> bool:
    """Whether box c may hold a ray's nearest hit: on some face, its corners' rectangle
    covers a bin whose farthest hit lies beyond `reach` (the box's distance, shrunk).
    `corners` (16, 3) is work room."""
    for corner in range(8):
        corners[corner, 0] = upper[c, 0] if corner & 1 else lower[c, 0]
        corners[corner, 1] = upper[c, 1] if corner & 2 else lower[c, 1]
        corners[corner, 2] = upper[c, 2] if corner & 4 else lower[c, 2]
    for corner in range(8):
        _to_frame(corners, corner, origin, frame, corners, corner + 8)
    for f in range(6):
        if grids[f, COLUMNS] == 0.0:
            continue
        axis = f // 2
        sign = 1.0 if f % 2 == 0 else -1.0
        a_low, a_high = grids[f, A_LOW], grids[f, A_HIGH]
        b_low, b_high = grids[f, B_LOW], grids[f, B_HIGH]
        lo_a, hi_a, lo_b, hi_b = np.inf, -np.inf, np.inf, -np.inf
        ahead = 0
        for corner in range(8, 16):
            x, y, z = corners[corner, 0], corners[corner, 1], corners[corner, 2]
            w, u, v = (
                (sign * x, y, z)
                if axis == 0
                else ((sign * y, z, x) if axis == 1 else (sign * z, x, y))
            )
            if w > 0.0:
                ahead += 1
                lo_a, hi_a = min(lo_a, u / w), max(hi_a, u / w)
                lo_b, hi_b = min(lo_b, v / w), max(hi_b, v / w)
        if ahead == 0:
            continue
        if ahead < 8:  # the box reaches the face's plane: take every bin of the face
            lo_a, hi_a, lo_b, hi_b = a_low, a_high, b_low, b_high
        if hi_a < a_low - PAD or lo_a > a_high + PAD or hi_b < b_low - PAD or lo_b > b_high + PAD:
            continue
        i0, i1, j0, j1 = _bins_under(grids, f, lo_a, hi_a, lo_b, hi_b)
        base = int(grids[f, FIRST_BIN])
        columns = int(grids[f, COLUMNS])
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                if not reach > bin_far[base + j * columns + i]:
                    return True
    return False


@njit(inline="always")
def _bins_under(grids, f, a_low, a_high, b_low, b_high):
    """The columns and rows of face f's bins under the rectangle (grown by PAD)."""
    columns = int(grids[f, COLUMNS])
    rows = int(grids[f, ROWS])
    a_scale, b_scale = grids[f, A_SCALE], grids[f, B_SCALE]
    i0 = max(0, floor_int((a_low - PAD - grids[f, A_LOW]) * a_scale))
    i1 = min(columns - 1, floor_int((a_high + PAD - grids[f, A_LOW]) * a_scale))
    j0 = max(0, floor_int((b_low - PAD - grids[f, B_LOW]) * b_scale))
    j1 = min(rows - 1, floor_int((b_high + PAD - grids[f, B_LOW]) * b_scale))
    return i0, i1, j0, j1


@njit(inline="always")
def _box_distance(lower, upper, c, origin) -> float:
    """The distance from the origin to box c."""
    gx = max(lower[c, 0] - origin[0], 0.0, origin[0] - upper[c, 0])
    gy = max(lower[c, 1] - origin[1], 0.0, origin[1] - upper[c, 1])
    gz = max(lower[c, 2] - origin[2], 0.0, origin[2] - upper[c, 2])
    return math.sqrt(gx * gx + gy * gy + gz * gz)


@njit(inline="always")
def _owns(x, y, z) -> bool:
    """Whether an oriented edge normal owns the rays on its plane: its first non-zero
    component is positive (its negation's is not)."""
    if x != 0.0:
        return x > 0.0
    if y != 0.0:
        return y > 0.0
    return z > 0.0


@njit(inline="always")
def _cast_triangle(
    p,
    a,
    b,
    c,
    tri,
    max_range,
    shrink,
    directions,
    grids,
    bin_start,
    bin_far,
    best_t,
    best_n,
    polygon,
) -> None:
    """Tests one triangle (rows a, b, c of p, relative to the origin in the rays' frame)
    against the rays of the bins under its projection."""
    x0, y0, z0 = p[a, 0], p[a, 1], p[a, 2]
    x1, y1, z1 = p[b, 0], p[b, 1], p[b, 2]
    x2, y2, z2 = p[c, 0], p[c, 1], p[c, 2]
    # the triangle's box distance: no ray meets it nearer
    gx = max(min(x0, x1, x2), 0.0, -max(x0, x1, x2))
    gy = max(min(y0, y1, y2), 0.0, -max(y0, y1, y2))
    gz = max(min(z0, z1, z2), 0.0, -max(z0, z1, z2))
    reach = math.sqrt(gx * gx + gy * gy + gz * gz)
    if reach > max_range:
        return
    reach *= shrink
    ready = False  # the edge planes are made when a bin first needs them
    ax_ = ay_ = az_ = bx_ = by_ = bz_ = cx_ = cy_ = cz_ = nx = ny = nz = height = 0.0
    own_a = own_b = own_c = False
    # a triangle whose corners point through one face lies in that face's pyramid (a
    # convex cone): only that face's rays can meet it, and it needs no clipping there
    face = int(p[a, 3])
    whole = face >= 0 and face == int(p[b, 3]) and face == int(p[c, 3])
    for f in range(6):
        if grids[f, COLUMNS] == 0.0 or (whole and f != face):
            continue
        if whole:  # its corners' face coordinates, made once per vertex
            corners = 3
            for k, row in enumerate((a, b, c)):
                polygon[1, k, 0] = p[row, 4]
                polygon[1, k, 1] = p[row, 5]
            a_low, a_high = min(p[a, 4], p[b, 4], p[c, 4]), max(p[a, 4], p[b, 4], p[c, 4])
            b_low, b_high = min(p[a, 5], p[b, 5], p[c, 5]), max(p[a, 5], p[b, 5], p[c, 5])
            if (
                a_high < grids[f, A_LOW] - PAD
                or a_low > grids[f, A_HIGH] + PAD
                or b_high < grids[f, B_LOW] - PAD
                or b_low > grids[f, B_HIGH] + PAD
            ):
                continue
        else:
            corners, a_low, a_high, b_low, b_high = _face_rectangle(
                x0, y0, z0, x1, y1, z1, x2, y2, z2, f, grids, polygon
            )
            if corners == 0:
                continue
        i0, i1, j0, j1 = _bins_under(grids, f, a_low, a_high, b_low, b_high)
        base = int(grids[f, FIRST_BIN])
        columns = int(grids[f, COLUMNS])
        for j in range(j0, j1 + 1):
            first, last = i0, i1
            if corners > 0 and j1 > j0:  # the columns the polygon reaches in this row
                first, last = _row_columns(polygon, corners, grids, f, j, i0, i1)
            for i in range(first, last + 1):
                k = base + j * columns + i
                if reach > bin_far[k]:
                    continue
                if not ready:
                    ready = True
                    # the planes through the origin and each edge: p_k x p_k+1, turned to
                    # face the triangle's inside; and the triangle's plane n.p = height
                    ax_, ay_, az_ = y0 * z1 - z0 * y1, z0 * x1 - x0 * z1, x0 * y1 - y0 * x1
                    bx_, by_, bz_ = y1 * z2 - z1 * y2, z1 * x2 - x1 * z2, x1 * y2 - y1 * x2
                    cx_, cy_, cz_ = y2 * z0 - z2 * y0, z2 * x0 - x2 * z0, x2 * y0 - y2 * x0
                    volume = ax_ * x2 + ay_ * y2 + az_ * z2  # p2 . (p0 x p1)
                    if volume == 0.0:
                        return  # seen edge-on from the origin
                    if volume < 0.0:
                        ax_, ay_, az_, bx_, by_, bz_ = -ax_, -ay_, -az_, -bx_, -by_, -bz_
                        cx_, cy_, cz_ = -cx_, -cy_, -cz_
                    own_a = _owns(ax_, ay_, az_)
                    own_b = _owns(bx_, by_, bz_)
                    own_c = _owns(cx_, cy_, cz_)
                    e1x, e1y, e1z = x1 - x0, y1 - y0, z1 - z0
                    e2x, e2y, e2z = x2 - x0, y2 - y0, z2 - z0
                    nx = e1y * e2z - e1z * e2y
                    ny = e1z * e2x - e1x * e2z
                    nz = e1x * e2y - e1y * e2x
                    height = nx * x0 + ny * y0 + nz * z0
                farthest = 0.0
                for r in range(bin_start[k], bin_start[k + 1]):
                    dx, dy, dz = directions[r, 0], directions[r, 1], directions[r, 2]
                    sa = dx * ax_ + dy * ay_ + dz * az_
                    sb = dx * bx_ + dy * by_ + dz * bz_
                    sc = dx * cx_ + dy * cy_ + dz * cz_
                    # all three sides at once (no early branch: rays go either way)
                    if (
                        ((sa > 0.0) | ((sa == 0.0) & own_a))
                        & ((sb > 0.0) | ((sb == 0.0) & own_b))
                        & ((sc > 0.0) | ((sc == 0.0) & own_c))
                    ):
                        along = nx * dx + ny * dy + nz * dz
                        if along != 0.0:
                            t = height / along
                            held = best_t[r]
                            if t > 0.0 and (
                                t < held or (t == held and (best_n[r] < 0 or tri < best_n[r]))
                            ):
                                best_t[r] = t
                                best_n[r] = tri
                    farthest = max(farthest, best_t[r])
                bin_far[k] = farthest


@njit(inline="always")
def _face_rectangle(x0, y0, z0, x1, y1, z1, x2, y2, z2, f, grids, polygon):
    """The triangle's projection on face f, clipped to the face's pyramid of rays: its vertex
    count (0: it misses the pyramid; -1: it reaches the apex, take every bin) with the
    vertices' (a, b) left in polygon[1], and its bounding rectangle. (Arrays are indexed in
    place, never viewed: a view costs a reference count in numba.)"""
    axis = f // 2
    sign = 1.0 if f % 2 == 0 else -1.0
    _face_point(polygon, 0, x0, y0, z0, axis, sign)
    _face_point(polygon, 1, x1, y1, z1, axis, sign)
    _face_point(polygon, 2, x2, y2, z2, axis, sign)
    a_low, a_high = grids[f, A_LOW], grids[f, A_HIGH]
    b_low, b_high = grids[f, B_LOW], grids[f, B_HIGH]
    # outside one plane with all three corners: nothing of it in the pyramid
    behind = left = right = below = above = 0
    for k in range(3):
        w, u, v = polygon[0, k, 0], polygon[0, k, 1], polygon[0, k, 2]
        behind += w <= 0.0
        left += u < a_low * w
        right += u > a_high * w
        below += v < b_low * w
        above += v > b_high * w
    if behind == 3 or left == 3 or right == 3 or below == 3 or above == 3:
        return 0, 0.0, 0.0, 0.0, 0.0
    count = 3
    if behind + left + right + below + above:
        count = _clip_to_pyramid(polygon, a_low, a_high, b_low, b_high)
        if count == 0:
            return 0, 0.0, 0.0, 0.0, 0.0
    lo_a, hi_a, lo_b, hi_b = np.inf, -np.inf, np.inf, -np.inf
    for k in range(count):
        w = polygon[0, k, 0]
        if not w > 0.0:
            return -1, a_low, a_high, b_low, b_high  # it reaches the apex: every ray
        a = polygon[0, k, 1] / w
        b = polygon[0, k, 2] / w
        polygon[1, k, 0] = a
        polygon[1, k, 1] = b
        lo_a, hi_a = min(lo_a, a), max(hi_a, a)
        lo_b, hi_b = min(lo_b, b), max(hi_b, b)
    return count, lo_a, hi_a, lo_b, hi_b


@njit(inline="always")
def _face_of(x, y, z) -> int:
    """The cube face a point's direction points through, as face_coordinates assigns rays,
    or -1 where it lies within a hair (relative BORDER) of another face: a ray there might
    round onto the other face."""
    ax, ay, az = abs(x), abs(y), abs(z)
    if ax > ay * BORDER and ax > az * BORDER:
        return 0 if x > 0.0 else 1
    if ay > ax * BORDER and ay > az * BORDER:
        return 2 if y > 0.0 else 3
    if az > ax * BORDER and az > ay * BORDER:
        return 4 if z > 0.0 else 5
    return -1


@njit(inline="always")
def _row_columns(polygon, count, grids, f, j, i0, i1):
    """The columns, within [i0, i1], of the bins in row j of face f that the projected convex
    polygon (polygon[1], count vertices (a, b)) reaches (grown by PAD); empty as (1, 0)."""
    scale = grids[f, B_SCALE]
    low = grids[f, B_LOW] + j / scale - PAD
    high = grids[f, B_LOW] + (j + 1) / scale + PAD
    lo_a, hi_a = np.inf, -np.inf
    for k in range(count):
        n = k + 1 if k + 1 < count else 0
        pa, pb = polygon[1, k, 0], polygon[1, k, 1]
        qa, qb = polygon[1, n, 0], polygon[1, n, 1]
        if low <= pb <= high:
            lo_a, hi_a = min(lo_a, pa), max(hi_a, pa)
        for edge in (low, high):  # where the polygon's edge crosses the row's edges
            if (pb < edge) != (qb < edge):
                a = pa + (edge - pb) / (qb - pb) * (qa - pa)
                lo_a, hi_a = min(lo_a, a), max(hi_a, a)
    if lo_a > hi_a:
        return 1, 0
    a_scale = grids[f, A_SCALE]
    first = max(i0, floor_int((lo_a - PAD - grids[f, A_LOW]) * a_scale))
    last = min(i1, floor_int((hi_a + PAD - grids[f, A_LOW]) * a_scale))
    return first, last


@njit(inline="always")
def _face_point(polygon, k, x, y, z, axis, sign) -> None:
    """A point as (w, u, v): along the face's axis (signed), then the two others in turn."""
    if axis == 0:
        polygon[0, k, 0], polygon[0, k, 1], polygon[0, k, 2] = sign * x, y, z
    elif axis == 1:
        polygon[0, k, 0], polygon[0, k, 1], polygon[0, k, 2] = sign * y, z, x
    else:
        polygon[0, k, 0], polygon[0, k, 1], polygon[0, k, 2] = sign * z, x, y


@njit(inline="always")
def _clip_to_pyramid(polygon, a_low, a_high, b_low, b_high) -> int:
    """Keeps the part of the triangle polygon[0] (w, u, v) inside the face's pyramid: the
    planes u - a_low w >= 0, a_high w - u >= 0, v - b_low w >= 0, b_high w - v >= 0 and
    w >= 0 in turn (Sutherland-Hodgman, through polygon[1]); returns the vertex count. An
    edge crossing a plane is cut from its end inside, whichever way the polygon runs."""
    count = 3
    for plane in range(5):
        if plane == 0:
            cw, cu, cv = -a_low, 1.0, 0.0
        elif plane == 1:
            cw, cu, cv = a_high, -1.0, 0.0
        elif plane == 2:
            cw, cu, cv = -b_low, 0.0, 1.0
        elif plane == 3:
            cw, cu, cv = b_high, 0.0, -1.0
        else:
            cw, cu, cv = 1.0, 0.0, 0.0
        count = clip_by_plane(polygon, count, cw, cu, cv, 0.0)
        if count == 0:
            return 0
    return count
