"""The pedestrians' navigation mesh CARLA's client walks its AI walkers on, made from the map.

CARLA's client moves the walkers of `controller.ai.walker` itself: it loads a Recast/Detour
navigation mesh the server names in `get_required_files("Nav")` (and sends with
`request_file`), runs Detour's crowd on it, and sends each walker's place every tick in an
`apply_batch` of ApplyWalkerState commands. lockstep makes that mesh from the OpenDRIVE
map: a convex polygon for each sampled metre of every sidewalk lane (between its two
borders) and one for each crosswalk outline. Polygons are neighbours where they share an
edge (along a lane), where a lane's end edge meets another lane's (middles within
LINK_DISTANCE) and where a crosswalk's edge meets a sidewalk's side.

The file is the layout LibCarla's Navigation::Load reads: a "MSET" header with Detour's
dtNavMeshParams, then one tile: Detour's dtMeshHeader, the vertices, the polygons, a zeroed
link area (Detour fills it when it adds the tile), a detail mesh per polygon made of a fan of
the polygon's own vertices, and no bounding-volume tree (Detour then tests every polygon).
Detour's frame is y-up: CARLA's point (x, y, z) is (x, z, y) there, and a polygon's vertices
go clockwise seen from above in CARLA's frame (Detour's areas come out positive). Areas and
flags are CARLA's (LibCarla nav/Navigation.h).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from world.map.lane_enums import LaneType

__all__ = ["AREA_CROSSWALK", "AREA_SIDEWALK", "LINK_DISTANCE", "NavMesh", "build_navmesh"]

LINK_DISTANCE = 2.5  # m between the middles of two edges that become neighbours
_MAX_VERTS = 6  # Detour's DT_VERTS_PER_POLYGON
_MAX_TILE_VERTS = 0xFFFF  # a tile's vertex indices are u16
_MIN_AREA = 1e-4  # m²: a smaller polygon (a lane of no width) is left out

AREA_SIDEWALK, AREA_CROSSWALK = 1, 2  # CARLA_AREA_*
_FLAGS = {AREA_SIDEWALK: 0x02, AREA_CROSSWALK: 0x04}  # CARLA_TYPE_*

_SET_MAGIC = ord("M") << 24 | ord("S") << 16 | ord("E") << 8 | ord("T")
_NAV_MAGIC = ord("D") << 24 | ord("N") << 16 | ord("A") << 8 | ord("V")
_NAV_VERSION = 7
_AGENT = (1.8, 0.3, 0.9)  # height, radius, climb of CARLA's walkers, m


@dataclass(slots=True)
class NavMesh:
    """Convex polygons over shared vertices (CARLA frame), each edge's neighbour (-1: none)."""

    vertices: np.ndarray  # (V, 3)
    polygons: list[list[int]]
    areas: list[int]
    neighbours: list[list[int]]

    def to_bytes(self) -> bytes:
        """The navigation file CARLA's client loads (LibCarla's Navigation::Load)."""
        return _navigation_file(self)


def build_navmesh(world_map) -> NavMesh | None:
    """The map's walkable polygons; None when it has no sidewalk or more vertices than one
    Detour tile holds."""
    points: list[np.ndarray] = []
    polygons: list[list[int]] = []
    areas: list[int] = []
    lane_ends: list[tuple[int, int, int]] = []  # (u, v, lane): each lane's two end edges
    count = 0
    for lane, (left, right) in enumerate(_sidewalk_borders(world_map)):
        n = len(left)
        points += [left, right]
        for i in range(n - 1):
            polygons.append([count + i, count + n + i, count + n + i + 1, count + i + 1])
            areas.append(AREA_SIDEWALK)
        lane_ends += [(count, count + n, lane), (count + n - 1, count + 2 * n - 1, lane)]
        count += 2 * n
    for corners in _crosswalk_outlines(world_map):
        points.append(corners)
        polygons.append(list(range(count, count + len(corners))))
        areas.append(AREA_CROSSWALK)
        count += len(corners)
    if not polygons or count > _MAX_TILE_VERTS:
        return None
    vertices = np.vstack(points)
    polygons, areas = _convex_clockwise(vertices, polygons, areas)
    mesh = NavMesh(vertices, polygons, areas, [[-1] * len(p) for p in polygons])
    edges = _edge_index(mesh)
    _join_shared(mesh, edges)
    _join_lane_ends(mesh, edges, lane_ends)
    _join_crosswalks(mesh)
    return mesh


# the map's walkable shapes ------------------------------------------------------------------
def _sidewalk_borders(world_map) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each sidewalk lane's two borders, sampled as the map's lane segments are (<= 1 m)."""
    seg = world_map.lane_segments
    types = np.array([int(world_map.road_graph.nodes[k].lane_type) for k in world_map.lane_keys])
    if not len(types):
        return []
    rows = np.flatnonzero((types[seg.node] & int(LaneType.Sidewalk)) > 0)
    out = []
    for node in np.unique(seg.node[rows]).tolist():
        mine = rows[seg.node[rows] == node]
        centre = np.vstack([seg.a[mine], seg.b[mine][-1:]])
        lateral = np.vstack([seg.lateral[mine], seg.lateral[mine][-1:]])
        half = np.concatenate([seg.width[mine], seg.width[mine][-1:]])[:, None] / 2.0
        out.append((centre + lateral * half, centre - lateral * half))
    return out


def _crosswalk_outlines(world_map) -> list[np.ndarray]:
    """Each crosswalk's corners (the outline's closing corner dropped), at most 6."""
    out, current = [], []
    for corner in world_map.get_crosswalks():
        point = np.array([corner.x, corner.y, corner.z], dtype=np.float64)
        if current and np.allclose(point, current[0]):
            if 3 <= len(current) <= _MAX_VERTS:
                out.append(np.array(current))
            current = []
        else:
            current.append(point)
    return out


# polygons ------------------------------------------------------------------------------------
def _shoelace(points: np.ndarray) -> np.ndarray:
    """Signed areas of polygons (..., n, 2+): positive counter-clockwise in (x, y)."""
    x, y = points[..., 0], points[..., 1]
    return 0.5 * (x * np.roll(y, -1, axis=-1) - y * np.roll(x, -1, axis=-1)).sum(axis=-1)


def _turns(points: np.ndarray) -> np.ndarray:
    """The cross product of each corner's two edges (polygons (..., n, 2+))."""
    edge = np.roll(points, -1, axis=-2) - points
    after = np.roll(edge, -1, axis=-2)
    return edge[..., 0] * after[..., 1] - edge[..., 1] * after[..., 0]


def _convex_clockwise(
    vertices: np.ndarray, polygons: list[list[int]], areas: list[int]
) -> tuple[list[list[int]], list[int]]:
    """Each polygon clockwise in CARLA's (x, y); a non-convex one cut into triangles (a fan
    from its reflex corner); polygons with no area left out. Polygons of the same size are
    turned together."""
    out_polygons, out_areas = [], []
    sizes = np.array([len(p) for p in polygons])
    for size in np.unique(sizes).tolist():
        which = np.flatnonzero(sizes == size)
        rings = np.array([polygons[i] for i in which.tolist()], dtype=np.int64)
        counter = _shoelace(vertices[rings]) > 0.0
        rings[counter] = rings[counter, ::-1]
        turns = _turns(vertices[rings])
        size_of = -_shoelace(vertices[rings])
        convex = ~(turns > 0.0).any(axis=1)
        for k in np.flatnonzero(convex | (size_of <= _MIN_AREA)).tolist():
            if size_of[k] > _MIN_AREA:
                out_polygons.append(rings[k].tolist())
                out_areas.append(areas[int(which[k])])
        for k in np.flatnonzero(~convex & (size_of > _MIN_AREA)).tolist():
            # a corner turning the other way: a fan of triangles from it
            first = (int(np.argmax(turns[k])) + 1) % size
            ring = rings[k].tolist()
            ring = ring[first:] + ring[:first]
            for piece in ([ring[0], ring[i], ring[i + 1]] for i in range(1, size - 1)):
                if -_shoelace(vertices[piece]) > _MIN_AREA:
                    out_polygons.append(piece)
                    out_areas.append(areas[int(which[k])])
    return out_polygons, out_areas


# neighbours ----------------------------------------------------------------------------------
def _edge_index(mesh: NavMesh) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """The (polygon, edge) pairs of every edge, by its two vertices (lower first)."""
    edges: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for p, polygon in enumerate(mesh.polygons):
        for e, u in enumerate(polygon):
            v = polygon[(e + 1) % len(polygon)]
            edges.setdefault((min(u, v), max(u, v)), []).append((p, e))
    return edges


def _join(mesh: NavMesh, a: tuple[int, int], b: tuple[int, int]) -> None:
    mesh.neighbours[a[0]][a[1]] = b[0]
    mesh.neighbours[b[0]][b[1]] = a[0]


def _join_shared(mesh: NavMesh, edges: dict) -> None:
    """Polygons that share an edge (consecutive metres of a lane, the halves of a cut one)."""
    for owners in edges.values():
        if len(owners) == 2:
            _join(mesh, owners[0], owners[1])


def _middle(mesh: NavMesh, owner: tuple[int, int]) -> np.ndarray:
    polygon = mesh.polygons[owner[0]]
    u, v = polygon[owner[1]], polygon[(owner[1] + 1) % len(polygon)]
    return (mesh.vertices[u] + mesh.vertices[v]) / 2.0


def _join_nearest(mesh: NavMesh, pairs: list[tuple[float, tuple, tuple]]) -> None:
    """Joins free edge pairs nearest first, each edge to one other."""
    for _, a, b in sorted(pairs):
        if mesh.neighbours[a[0]][a[1]] < 0 and mesh.neighbours[b[0]][b[1]] < 0:
            _join(mesh, a, b)


def _join_lane_ends(mesh: NavMesh, edges: dict, lane_ends: list[tuple[int, int, int]]) -> None:
    """A lane's end edge and another lane's end edge whose middles are within LINK_DISTANCE
    (a street's sidewalk and the junction corner's)."""
    found = [
        (edges[(min(u, v), max(u, v))][0], lane)
        for u, v, lane in lane_ends
        if (min(u, v), max(u, v)) in edges
    ]
    if not found:
        return
    middles = np.array([_middle(mesh, owner) for owner, _ in found])
    pairs = []
    for i, (owner, lane) in enumerate(found):
        gap = np.linalg.norm(middles[i + 1 :, :2] - middles[i, :2], axis=1)
        for j in np.flatnonzero(gap < LINK_DISTANCE).tolist():
            other, other_lane = found[i + 1 + j]
            if other_lane != lane:
                pairs.append((float(gap[j]), owner, other))
    _join_nearest(mesh, pairs)


def _join_crosswalks(mesh: NavMesh) -> None:
    """Each free edge of a crosswalk and the free sidewalk edge nearest it (middles within
    LINK_DISTANCE): where the crossing meets the kerb."""
    sidewalk = [
        (p, e)
        for p, area in enumerate(mesh.areas)
        if area == AREA_SIDEWALK
        for e, n in enumerate(mesh.neighbours[p])
        if n < 0
    ]
    if not sidewalk:
        return
    middles = np.array([_middle(mesh, owner) for owner in sidewalk])
    pairs = []
    for p, area in enumerate(mesh.areas):
        if area != AREA_CROSSWALK:
            continue
        for e in range(len(mesh.polygons[p])):
            gap = np.linalg.norm(middles[:, :2] - _middle(mesh, (p, e))[:2], axis=1)
            j = int(np.argmin(gap))
            if gap[j] < LINK_DISTANCE:
                pairs.append((float(gap[j]), (p, e), sidewalk[j]))
    _join_nearest(mesh, pairs)


# the file ------------------------------------------------------------------------------------
def _align4(data: bytes) -> bytes:
    return data + bytes(-len(data) % 4)


def _navigation_file(mesh: NavMesh) -> bytes:
    """CARLA's navigation file: the set header, the tile's header and its data."""
    detour = mesh.vertices[:, [0, 2, 1]].astype(np.float32)  # (x, z, y): Detour's y is up
    low, high = detour.min(axis=0), detour.max(axis=0)
    count = len(mesh.polygons)
    poly_bits = max(1, int(count - 1).bit_length())
    params = struct.pack(
        "<3f2f2i",
        *low.tolist(),
        float(high[0] - low[0]) + 1.0,
        float(high[2] - low[2]) + 1.0,
        1,  # tiles
        1 << poly_bits,  # polygons per tile
    )
    tile = _tile(mesh, detour, low, high)
    tile_ref = 1 << poly_bits  # salt 1, tile 0, polygon 0
    return (
        struct.pack("<3i", _SET_MAGIC, 1, 1)
        + params
        + struct.pack("<Ii", tile_ref, len(tile))
        + tile
    )


def _tile(mesh: NavMesh, detour: np.ndarray, low: np.ndarray, high: np.ndarray) -> bytes:
    """Detour's tile data (DetourNavMesh.h: dtMeshHeader, then its arrays, 4-byte aligned)."""
    count = len(mesh.polygons)
    links = sum(n >= 0 for row in mesh.neighbours for n in row)
    triangles = sum(len(p) - 2 for p in mesh.polygons)
    header = struct.pack(
        "<iiiiiIiiiiiiiiifff3f3ff",
        _NAV_MAGIC,
        _NAV_VERSION,
        0,  # tile x
        0,  # tile y
        0,  # layer
        0,  # user id
        count,
        len(detour),
        links,  # link slots: one per joined edge
        count,  # detail meshes
        0,  # detail vertices: the polygons' own
        triangles,
        0,  # bounding-volume nodes
        0,  # off-mesh connections
        count,  # first off-mesh polygon
        *_AGENT,
        *low.tolist(),
        *high.tolist(),
        1.0,  # quantisation of the (absent) bounding-volume tree
    )
    polygons, details, fans = [], [], []
    for p, polygon in enumerate(mesh.polygons):
        n = len(polygon)
        verts = polygon + [0] * (_MAX_VERTS - n)
        neis = [k + 1 if k >= 0 else 0 for k in mesh.neighbours[p]] + [0] * (_MAX_VERTS - n)
        area = mesh.areas[p]
        polygons.append(struct.pack("<I6H6HHBB", 0, *verts, *neis, _FLAGS[area], n, area))
        details.append(struct.pack("<IIBB2x", 0, len(fans), 0, n - 2))
        for i in range(1, n - 1):
            fans.append(bytes([0, i, i + 1, _fan_edges(i, n)]))
    return b"".join(
        [
            _align4(header),
            _align4(detour.tobytes()),
            _align4(b"".join(polygons)),
            bytes(12 * links),
            _align4(b"".join(details)),
            _align4(b"".join(fans)),
        ]
    )


def _fan_edges(i: int, n: int) -> int:
    """Which edges of fan triangle (0, i, i + 1) lie on the polygon's boundary (Detour's
    detail-triangle flags, 2 bits an edge)."""
    boundary = [i == 1, True, i + 1 == n - 1]
    return sum(1 << (2 * k) for k, on in enumerate(boundary) if on)
