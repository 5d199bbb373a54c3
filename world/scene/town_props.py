"""What stands beside the streets of lockstep's generated towns: buildings, walls, fences,
trees and poles, seeded by the town's seed, so a camera and a LiDAR see a town.

Only maps of vendor "lockstep" (world.map.towngen) get them: the town's seed is in the
file's header (<userData code="lockstep.towngen.seed">; an older file without it takes
seed 0), and one generator, spawned from it with a stable key, draws every choice in a
fixed order (roads in document order, each side, along s), so the same town gives the same
bytes and another seed another town.

Along each street's sidewalks (the outermost lanes of every road outside junctions):
- buildings: boxes BUILDING_WIDTH wide, BUILDING_DEPTH deep and BUILDING_HEIGHT tall
  (uniform draws), set back from the sidewalk's outer edge, one after another with gaps;
  a footprint that would cover a lane or another building is not built (a plan raster of
  RASTER metres knows what is taken);
- walls and fences in the gaps between buildings, on the building line;
- trees (trunk and crown, tag Vegetation) on the sidewalk every TREE_SPACING metres or so,
  and street lamps (tag Poles) near the curb, clear of the streets' ends, where signs and
  lights stand.
Inside the blocks: more trees and a few poles on free ground. Everything stands on the
ground: its foot reaches the terrain's grid (`ground`) below it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.map.lane_borders import section_borders, section_spans
from world.map.towngen.build import SEED_CODE
from world.scene.builder import MeshParts, norms
from world.scene.materials import lane_surface
from world.scene.templates import POLE, UNIT_OCTAGON

__all__ = [
    "PROPS_KEY",
    "town_props",
    "town_seed",
]

PROPS_KEY = 0x5CE4E  # the generator's stable spawn key ("scene")
RASTER = 1.0  # m: the plan raster's cells
BUILDING_WIDTH = (9.0, 22.0)
BUILDING_DEPTH = (9.0, 18.0)
BUILDING_HEIGHT = (5.0, 28.0)
SETBACK = (0.5, 2.5)  # m from the sidewalk's outer edge
GAP = (1.0, 6.0)  # m between buildings
TREE_SPACING = 14.0  # m, about
LAMP_SPACING = 26.0  # m, about
END_CLEAR = 10.0  # m at each street end without trees or lamps
FOOT = 0.5  # m a prop's foot reaches below the ground under it
_BUILDING_COLOURS = np.array(
    [(176, 160, 140), (150, 132, 118), (196, 186, 168), (128, 118, 112), (168, 120, 96),
     (120, 128, 136), (200, 196, 184), (144, 150, 132)],
    dtype=np.uint8,
)  # fmt: skip
TRUNK = (92, 70, 50)
LEAVES = (58, 98, 46)
WALL = (150, 140, 128)
FENCE = (110, 104, 92)


def town_seed(document) -> int | None:
    """The generator's seed of a lockstep town (0 for one written before the seed was kept),
    None for a map of any other vendor."""
    if document.header.vendor != "lockstep":
        return None
    text = document.header.user_data.get(SEED_CODE, "0")
    try:
        return max(0, int(text))
    except ValueError:
        return 0


class _Raster:
    """What is taken of the plan, in RASTER cells over the scene's extent."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray) -> None:
        self.origin = lo[:2] - 2.0
        size = np.ceil((hi[:2] + 2.0 - self.origin) / RASTER).astype(np.int64)
        self.taken = np.zeros((int(size[0]), int(size[1])), dtype=bool)

    def cells(self, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.floor((xy[:, :2] - self.origin) / RASTER).astype(np.int64)
        k = np.clip(k, 0, np.array(self.taken.shape) - 1)
        return k[:, 0], k[:, 1]

    def take_triangles(self, triangles: np.ndarray) -> None:
        """Marks the cells whose centre lies in a triangle (T, 3, 3), and their neighbours:
        every cell of each triangle's bounding box is tested at once."""
        lo_i, lo_j = self.cells(triangles.min(axis=1))
        hi_i, hi_j = self.cells(triangles.max(axis=1))
        wide, tall = hi_i - lo_i + 1, hi_j - lo_j + 1
        counts = wide * tall
        owner = np.repeat(np.arange(len(triangles)), counts)
        k = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        i = lo_i[owner] + k // tall[owner]
        j = lo_j[owner] + k % tall[owner]
        centre = self.origin + (np.stack([i, j], axis=1) + 0.5) * RASTER
        t = triangles[owner]
        inside = _in_triangle(centre, t[:, 0, :2], t[:, 1, :2], t[:, 2, :2])
        self.taken[i[inside], j[inside]] = True
        grown = self.taken.copy()
        grown[1:] |= self.taken[:-1]
        grown[:-1] |= self.taken[1:]
        grown[:, 1:] |= self.taken[:, :-1]
        grown[:, :-1] |= self.taken[:, 1:]
        self.taken = grown

    def free(self, points: np.ndarray) -> bool:
        i, j = self.cells(points)
        inside = (points[:, 0] >= self.origin[0]) & (points[:, 1] >= self.origin[1])
        return bool(inside.all() and not self.taken[i, j].any())

    def take(self, points: np.ndarray) -> None:
        i, j = self.cells(points)
        self.taken[i, j] = True


def _in_triangle(p, a, b, c) -> np.ndarray:
    def side(u, v, w):
        return (v[:, 0] - u[:, 0]) * (w[:, 1] - u[:, 1]) - (v[:, 1] - u[:, 1]) * (w[:, 0] - u[:, 0])

    d1, d2, d3 = side(a, b, p), side(b, c, p), side(c, a, p)
    negative = (d1 < 0) | (d2 < 0) | (d3 < 0)
    positive = (d1 > 0) | (d2 > 0) | (d3 > 0)
    return ~(negative & positive)


def _lattice(corners: np.ndarray) -> np.ndarray:
    """Plan points every RASTER / 2 over the quadrilateral corners[0..3] (a footprint)."""
    u_len = float(norms(np.append(corners[1] - corners[0], 0.0)[None, :])[0])
    v_len = float(norms(np.append(corners[3] - corners[0], 0.0)[None, :])[0])
    nu = max(2, math.ceil(2.0 * u_len / RASTER) + 1)
    nv = max(2, math.ceil(2.0 * v_len / RASTER) + 1)
    u = np.linspace(0.0, 1.0, nu)[:, None, None]
    v = np.linspace(0.0, 1.0, nv)[None, :, None]
    near = corners[0] + u * (corners[1] - corners[0])
    far = corners[3] + u * (corners[2] - corners[3])
    return (near + v * (far - near)).reshape(-1, 2)


def _frontages(world_map) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per side of each road outside junctions whose outermost lane is a sidewalk: its outer
    edge (n, 3), its inner edge (n, 3) (both tops) and the unit outward plan normal (n, 2),
    sampled every metre of s, roads in document order, right side first."""
    out = []
    evaluators = world_map.road_evaluators()
    for road in world_map.opendrive.roads.values():
        if road.junction != "-1":
            continue
        evaluator = evaluators[road.id]
        for k, s0, s1 in section_spans(road):
            lanes = road.lane_sections[k].lanes
            s = np.linspace(s0, s1, max(2, math.ceil(s1 - s0) + 1))
            b = section_borders(evaluator, k, s)
            for col in (0, len(b.lane_ids) - 1):
                lane = lanes[int(b.lane_ids[col])]
                surface = lane_surface(lane.type)
                if int(b.lane_ids[col]) == 0 or surface is None or surface.tag != Label.Sidewalks:
                    continue
                lift = 0.0 if lane.heights else 0.15
                up = b.up * lift
                outer, inner = b.outer[:, col] + up, b.inner[:, col] + up
                normal = outer[:, :2] - inner[:, :2]
                length = np.sqrt(normal[:, 0] * normal[:, 0] + normal[:, 1] * normal[:, 1])
                ok = length > 1e-6
                if ok.sum() < 2:
                    continue
                normal = normal[ok] / length[ok, None]
                out.append((outer[ok], inner[ok], normal))
    return out


def town_props(
    parts: MeshParts,
    world_map,
    seed: int,
    lanes: np.ndarray,
    ground: Callable[[np.ndarray], np.ndarray],
    instances,
) -> None:
    """Adds the props of a lockstep town with `seed`: `lanes` (T, 3, 3) are the scene's
    surface triangles (what is taken), `ground(xy)` the terrain's height below plan points,
    `instances` an iterator of fresh static instance ids."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(PROPS_KEY,)))
    flat = lanes.reshape(-1, 3)
    raster = _Raster(flat.min(axis=0), flat.max(axis=0))
    raster.take_triangles(lanes)
    for outer, inner, normal in _frontages(world_map):
        _street_side(parts, raster, rng, outer, inner, normal, ground, instances)
    _blocks(parts, raster, rng, flat.min(axis=0), flat.max(axis=0), ground, instances)


def _box(parts, corners: np.ndarray, z0: float, z1: float, tag, colour, instance, roof=None):
    """A box over the plan quadrilateral `corners` (4, 2) from z0 to z1."""
    low = np.column_stack([corners, np.full(4, z0)])
    high = np.column_stack([corners, np.full(4, z1)])
    vertices = np.concatenate([low, high])
    sides = [[i, (i + 1) % 4, 4 + (i + 1) % 4] for i in range(4)]
    sides += [[i, 4 + (i + 1) % 4, 4 + i] for i in range(4)]
    parts.add(vertices, [*sides, [0, 1, 2], [0, 2, 3]], tag, instance, colour)
    parts.add(vertices, [[4, 5, 6], [4, 6, 7]], tag, instance, roof if roof is not None else colour)


def _prism(parts, x, y, radius, z0, z1, tag, colour, instance) -> None:
    c, s = UNIT_OCTAGON
    ring = np.column_stack([x + radius * c, y + radius * s])
    low = np.column_stack([ring, np.full(8, z0)])
    high = np.column_stack([ring, np.full(8, z1)])
    triangles = []
    for i in range(8):
        j = (i + 1) % 8
        triangles += [[i, j, 8 + j], [i, 8 + j, 8 + i]]
    triangles += [[8, 8 + i, 9 + i] for i in range(1, 7)]
    triangles += [[0, 1 + i, i] for i in range(1, 7)]
    parts.add(np.concatenate([low, high]), triangles, tag, instance, colour)


def _tree(parts, rng, x, y, z, instance) -> None:
    trunk = float(rng.uniform(1.8, 3.0))
    crown = float(rng.uniform(1.2, 2.4))
    top = trunk + float(rng.uniform(2.0, 4.5))
    _prism(parts, x, y, 0.15, z - FOOT, z + trunk + 0.3, Label.Vegetation, TRUNK, instance)
    _prism(parts, x, y, crown, z + trunk, z + top, Label.Vegetation, LEAVES, instance)


def _lamp(parts, x, y, z, toward: np.ndarray, instance) -> None:
    _prism(parts, x, y, 0.08, z - FOOT, z + 6.0, Label.Poles, POLE, instance)
    foot = np.array([x, y])
    tip = foot + 1.2 * toward
    side = np.array([-toward[1], toward[0]]) * 0.12
    corners = np.array([foot + side, tip + side, tip - side, foot - side])
    _box(parts, corners, z + 5.85, z + 6.05, Label.Poles, POLE, instance)


def _street_side(parts, raster, rng, outer, inner, normal, ground, instances) -> None:
    """Buildings, walls and fences along one sidewalk's outer edge; trees and lamps on it."""
    step = outer[1:, :2] - outer[:-1, :2]
    lengths = np.sqrt(step[:, 0] * step[:, 0] + step[:, 1] * step[:, 1])
    along = np.concatenate([[0.0], np.cumsum(lengths)])
    total = float(along[-1])

    def at(a: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = int(min(max(np.searchsorted(along, a, side="right") - 1, 0), len(along) - 2))
        span = along[k + 1] - along[k]
        w = (a - along[k]) / span if span > 0 else 0.0
        p = outer[k] + w * (outer[k + 1] - outer[k])
        q = inner[k] + w * (inner[k + 1] - inner[k])
        n = normal[k] + w * (normal[k + 1] - normal[k])
        return p, q, n / float(np.sqrt(n[0] * n[0] + n[1] * n[1]))

    # buildings, and walls or fences in the gaps
    a = float(rng.uniform(0.0, 4.0))
    last_end = None
    while a < total - 4.0:
        width = float(rng.uniform(*BUILDING_WIDTH))
        depth = float(rng.uniform(*BUILDING_DEPTH))
        height = float(rng.uniform(*BUILDING_HEIGHT))
        setback = float(rng.uniform(*SETBACK))
        gap = float(rng.uniform(*GAP))
        colour = _BUILDING_COLOURS[int(rng.integers(len(_BUILDING_COLOURS)))]
        b = min(a + width, total)
        p0, _, n0 = at(a)
        p1, _, n1 = at(b)
        n = n0 + n1
        n = n / float(np.sqrt(n[0] * n[0] + n[1] * n[1]))
        front = np.array([p0[:2] + setback * n, p1[:2] + setback * n])
        corners = np.array([front[0], front[1], front[1] + depth * n, front[0] + depth * n])
        if b - a > 4.0 and raster.free(_lattice(corners)):
            raster.take(_lattice(corners))
            z0 = float(ground(corners).min()) - FOOT
            z1 = min(float(p0[2]), float(p1[2])) + height
            _box(parts, corners, z0, z1, Label.Buildings, tuple(colour.tolist()), next(instances),
                 roof=tuple((colour * 0.8).astype(int).tolist()))  # fmt: skip
            if last_end is not None:
                _gap(parts, raster, rng, last_end, (front[0], float(p0[2])), ground, instances)
            last_end = (front[1], float(p1[2]))
            a = b + gap
        else:
            a += 3.0
    # trees and lamps on the sidewalk, clear of the ends
    a = END_CLEAR + float(rng.uniform(0.0, TREE_SPACING / 2))
    while a < total - END_CLEAR:
        p, q, _ = at(a)
        spot = q + 0.7 * (p - q)
        _tree(parts, rng, float(spot[0]), float(spot[1]), float(spot[2]), next(instances))
        a += TREE_SPACING * float(rng.uniform(0.8, 1.2))
    a = END_CLEAR + LAMP_SPACING / 2 + float(rng.uniform(-2.0, 2.0))
    while a < total - END_CLEAR:
        p, q, n = at(a)
        spot = q + 0.12 * (p - q)
        _lamp(parts, float(spot[0]), float(spot[1]), float(spot[2]), -n, next(instances))
        a += LAMP_SPACING * float(rng.uniform(0.9, 1.1))


def _gap(parts, raster, rng, start, end, ground, instances) -> None:
    """A wall or a fence (or nothing) on the building line from one building to the next."""
    (a, za), (b, zb) = start, end
    d = b - a
    length = float(np.sqrt(d[0] * d[0] + d[1] * d[1]))
    choice = int(rng.integers(3))
    if length < 1.0 or length > 12.0 or choice == 2:
        return
    thick, height, tag, colour = (
        (0.25, 1.8, Label.Walls, WALL) if choice == 0 else (0.06, 1.3, Label.Fences, FENCE)
    )
    side = np.array([-d[1], d[0]]) / length * (0.5 * thick)
    corners = np.array([a + side, b + side, b - side, a - side])
    # the ends touch the buildings: only the stretch between them must be free
    inset = d / length * min(RASTER, 0.4 * length)
    between = _lattice(np.array([a + inset + side, b - inset + side, b - inset - side,
                                 a + inset - side]))  # fmt: skip
    if not raster.free(between):
        return
    raster.take(between)
    z0 = float(ground(corners).min()) - FOOT
    _box(parts, corners, z0, min(za, zb) + height, tag, colour, next(instances))


def _blocks(parts, raster, rng, lo, hi, ground, instances) -> None:
    """Trees and a few poles on the free ground inside the blocks."""
    area = float((hi[0] - lo[0]) * (hi[1] - lo[1]))
    count = int(area / 500.0)
    points = np.column_stack([rng.uniform(lo[0], hi[0], count), rng.uniform(lo[1], hi[1], count)])
    kinds = rng.random(count)
    for (x, y), kind in zip(points.tolist(), kinds.tolist(), strict=True):
        spot = np.array([[x, y]])
        around = spot + np.array([[dx, dy] for dx in (-2.0, 0.0, 2.0) for dy in (-2.0, 0.0, 2.0)])
        if not raster.free(around):
            continue
        raster.take(around)
        z = float(ground(around).min())
        if kind < 0.9:
            _tree(parts, rng, x, y, z, next(instances))
        else:
            _prism(parts, x, y, 0.12, z - FOOT, z + 8.0, Label.Poles, POLE, next(instances))
