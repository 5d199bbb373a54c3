"""A synthetic town as triangles, for the renderer's benchmark while no map's scene is at hand.

A square grid of blocks with roads between them: each road's lanes as strips of 2 m quads,
dashed markings a centimetre above, raised sidewalks with their kerbs, ground tiles inside
the blocks, buildings (boxes whose walls are cut into storeys and bays), trees (a trunk and
a crown) and, as the dynamic part, cars (a body and a cabin, a few hundred triangles each)
on the roads. Sized like CARLA's Town04 by default (about 1 km across and a few hundred
thousand triangles). Seeded: the same arguments give the same bytes.
"""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.scene.mesh import STATIC_INSTANCE_BASE, Mesh

ROAD, SIDEWALK, BUILDING, VEGETATION, TERRAIN, ROADLINE, CAR = 1, 2, 3, 9, 10, 24, 14
LANE = 3.5  # m
LANES = 4  # lanes per road (two each way)
SIDEWALK_WIDTH = 3.0
KERB = 0.15


class _Builder:
    def __init__(self) -> None:
        self.vertices: list[np.ndarray] = []
        self.triangles: list[np.ndarray] = []
        self.tags: list[np.ndarray] = []
        self.instances: list[np.ndarray] = []
        self.colours: list[np.ndarray] = []
        self.count = 0

    def add(self, vertices, triangles, tag, instance, colour) -> None:
        self.vertices.append(np.asarray(vertices, np.float64))
        self.triangles.append(np.asarray(triangles, np.int64) + self.count)
        n = len(triangles)
        self.tags.append(np.full(n, tag, np.uint8))
        self.instances.append(np.full(n, instance, np.uint32))
        self.colours.append(np.tile(np.asarray(colour, np.uint8), (n, 1)))
        self.count += len(vertices)

    def grid(self, origin, du, dv, nu, nv, tag, instance, colour) -> None:
        """A parallelogram cut into nu x nv quads (two triangles each)."""
        i, j = np.meshgrid(np.arange(nu + 1), np.arange(nv + 1), indexing="ij")
        points = (
            np.asarray(origin)[None, :]
            + i.reshape(-1, 1) * np.asarray(du)[None, :] / nu
            + j.reshape(-1, 1) * np.asarray(dv)[None, :] / nv
        )
        a = (np.arange(nu)[:, None] * (nv + 1) + np.arange(nv)[None, :]).ravel()
        b, c, d = a + (nv + 1), a + (nv + 2), a + 1
        tris = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
        self.add(points, tris, tag, instance, colour)

    def box(self, lo, hi, cuts, tag, instance, colour) -> None:
        """A box's four walls and roof, each wall cut into cuts = (along, up) quads."""
        (x0, y0, z0), (x1, y1, z1) = lo, hi
        along, up = cuts
        h = (0.0, 0.0, z1 - z0)
        walls = [
            ((x0, y0, z0), (x1 - x0, 0.0, 0.0)),
            ((x1, y0, z0), (0.0, y1 - y0, 0.0)),
            ((x1, y1, z0), (x0 - x1, 0.0, 0.0)),
            ((x0, y1, z0), (0.0, y0 - y1, 0.0)),
        ]
        for origin, du in walls:
            self.grid(origin, du, h, along, up, tag, instance, colour)
        self.grid(
            (x0, y0, z1), (x1 - x0, 0.0, 0.0), (0.0, y1 - y0, 0.0), 2, 2, tag, instance, colour
        )

    def mesh(self) -> Mesh:
        return Mesh(
            np.concatenate(self.vertices),
            np.concatenate(self.triangles).astype(np.int32),
            np.concatenate(self.tags),
            np.concatenate(self.instances),
            np.concatenate(self.colours),
        )


def town(blocks: int = 9, block: float = 100.0, seed: int = 4) -> Mesh:
    """The static town: `blocks` x `blocks` blocks of `block` metres between road centres."""
    rng = np.random.default_rng(seed)
    out = _Builder()
    instance = STATIC_INSTANCE_BASE
    road = LANES * LANE
    size = blocks * block
    for k in range(blocks + 1):
        c = k * block
        # a north-south and an east-west road through the whole town, lanes in 2 m quads
        for lane in range(LANES):
            off = c - road / 2 + lane * LANE
            out.grid(
                (off, 0.0, 0.0),
                (LANE, 0.0, 0.0),
                (0.0, size, 0.0),
                1,
                int(size / 2),
                ROAD,
                instance,
                (128, 64, 128),
            )
            out.grid(
                (0.0, off, 0.0),
                (0.0, LANE, 0.0),
                (size, 0.0, 0.0),
                1,
                int(size / 2),
                ROAD,
                instance,
                (128, 64, 128),
            )
            if lane:  # dashed lines between lanes: 3 m dashes every 9 m
                for s in np.arange(0.0, size, 9.0):
                    out.grid(
                        (off - 0.075, s, 0.01),
                        (0.15, 0.0, 0.0),
                        (0.0, 3.0, 0.0),
                        1,
                        1,
                        ROADLINE,
                        instance,
                        (255, 255, 255),
                    )
                    out.grid(
                        (s, off - 0.075, 0.01),
                        (3.0, 0.0, 0.0),
                        (0.0, 0.15, 0.0),
                        1,
                        1,
                        ROADLINE,
                        instance,
                        (255, 255, 255),
                    )
        instance += 1
    for bx in range(blocks):
        for by in range(blocks):
            x0 = bx * block + road / 2
            y0 = by * block + road / 2
            inner = block - road
            # sidewalks: a raised strip with its kerb along each side, 2 m quads
            n = int(inner / 2)
            for origin, du, dv in [
                ((x0, y0, KERB), (inner, 0.0, 0.0), (0.0, SIDEWALK_WIDTH, 0.0)),
                (
                    (x0, y0 + inner - SIDEWALK_WIDTH, KERB),
                    (inner, 0.0, 0.0),
                    (0.0, SIDEWALK_WIDTH, 0.0),
                ),
                ((x0, y0, KERB), (0.0, inner, 0.0), (SIDEWALK_WIDTH, 0.0, 0.0)),
                (
                    (x0 + inner - SIDEWALK_WIDTH, y0, KERB),
                    (0.0, inner, 0.0),
                    (SIDEWALK_WIDTH, 0.0, 0.0),
                ),
            ]:
                out.grid(origin, du, dv, n, 2, SIDEWALK, instance, (244, 35, 232))
            out.grid(
                (x0, y0, 0.0),
                (inner, 0.0, 0.0),
                (0.0, 0.0, KERB),
                n,
                1,
                SIDEWALK,
                instance,
                (244, 35, 232),
            )
            out.grid(
                (x0, y0, 0.0),
                (0.0, inner, 0.0),
                (0.0, 0.0, KERB),
                n,
                1,
                SIDEWALK,
                instance,
                (244, 35, 232),
            )
            out.grid(
                (x0 + inner, y0, 0.0),
                (0.0, inner, 0.0),
                (0.0, 0.0, KERB),
                n,
                1,
                SIDEWALK,
                instance,
                (244, 35, 232),
            )
            out.grid(
                (x0, y0 + inner, 0.0),
                (inner, 0.0, 0.0),
                (0.0, 0.0, KERB),
                n,
                1,
                SIDEWALK,
                instance,
                (244, 35, 232),
            )
            instance += 1
            # ground inside the sidewalks, 4 m tiles
            g0 = SIDEWALK_WIDTH
            gin = inner - 2 * g0
            out.grid(
                (x0 + g0, y0 + g0, 0.05),
                (gin, 0.0, 0.0),
                (0.0, gin, 0.0),
                int(gin / 4),
                int(gin / 4),
                TERRAIN,
                instance,
                (145, 170, 100),
            )
            instance += 1
            # buildings along the block's edge, trees in the middle
            for _ in range(int(rng.integers(6, 11))):
                w, d = rng.uniform(10.0, 25.0, 2)
                h = rng.uniform(8.0, 40.0)
                px = x0 + g0 + 1.0 + rng.uniform(0.0, gin - w - 2.0)
                py = y0 + g0 + 1.0 + rng.uniform(0.0, gin - d - 2.0)
                out.box(
                    (px, py, 0.0),
                    (px + w, py + d, h),
                    (max(1, int(w / 3)), max(1, int(h / 3))),
                    BUILDING,
                    instance,
                    (70, 70, 70),
                )
                instance += 1
            for _ in range(int(rng.integers(10, 25))):
                px = x0 + g0 + rng.uniform(2.0, gin - 2.0)
                py = y0 + g0 + rng.uniform(2.0, gin - 2.0)
                out.box(
                    (px - 0.2, py - 0.2, 0.0),
                    (px + 0.2, py + 0.2, 3.0),
                    (1, 1),
                    VEGETATION,
                    instance,
                    (107, 142, 35),
                )
                out.box(
                    (px - 2.0, py - 2.0, 3.0),
                    (px + 2.0, py + 2.0, 7.0),
                    (2, 2),
                    VEGETATION,
                    instance,
                    (107, 142, 35),
                )
                instance += 1
    return out.mesh()


def cars_at(spots, seed: int = 5) -> Mesh:
    """A car (a body and a cabin, cut into quads) at each (x, y, z, yaw) of `spots`, z the
    ground under it, actor ids from 100."""
    rng = np.random.default_rng(seed)
    out = _Builder()
    for k, (x, y, z, yaw) in enumerate(spots):
        first = len(out.vertices)
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        out.box((-2.4, -1.0, 0.3), (2.4, 1.0, 1.0), (8, 3), CAR, 100 + k, colour)
        out.box((-1.2, -0.6, 1.0), (1.2, 0.6, 1.5), (6, 2), CAR, 100 + k, colour)
        c, s = el.cos(np.radians(yaw)), el.sin(np.radians(yaw))
        for part in out.vertices[first:]:
            px, py = part[:, 0].copy(), part[:, 1].copy()
            part[:, 0] = x + px * c - py * s
            part[:, 1] = y + px * s + py * c
            part[:, 2] += z
    return out.mesh()


def cars(count: int = 30, blocks: int = 9, block: float = 100.0, seed: int = 5) -> Mesh:
    """`count` cars in the lanes (a body and a cabin, cut into quads), actor ids from 100."""
    rng = np.random.default_rng(seed)
    out = _Builder()
    for k in range(count):
        road = int(rng.integers(0, blocks + 1)) * block
        along = rng.uniform(5.0, blocks * block - 5.0)
        lane = int(rng.integers(0, LANES))
        across = road - LANES * LANE / 2 + (lane + 0.5) * LANE
        x, y = (across, along) if k % 2 else (along, across)
        lx, ly = (1.0, 2.4) if k % 2 else (2.4, 1.0)
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        out.box((x - lx, y - ly, 0.3), (x + lx, y + ly, 1.0), (8, 3), CAR, 100 + k, colour)
        out.box(
            (x - lx * 0.6, y - ly * 0.5, 1.0),
            (x + lx * 0.6, y + ly * 0.5, 1.5),
            (6, 2),
            CAR,
            100 + k,
            colour,
        )
    return out.mesh()
