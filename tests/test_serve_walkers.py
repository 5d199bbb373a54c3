"""Pedestrians through `lockstep serve`: the navigation mesh CARLA's client walks its AI
walkers on (made from the map's sidewalks and crosswalks), and walkers with
`controller.ai.walker` going to random navigation points, driven by CARLA's own client.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from serve_helpers import carla_client_or_skip, output, run_client, served

from runner.carla.client import Client, configure
from runner.serve.navmesh import AREA_CROSSWALK, AREA_SIDEWALK, build_navmesh
from world import LaneType, Location


@pytest.fixture(scope="module")
def town_small():
    configure()
    return Client("127.0.0.1", 1).get_world().get_map()


def _on_walkway(carla_map, x: float, y: float, z: float, reach: float = 0.0) -> bool:
    """Whether (x, y) lies on a sidewalk lane of the map (within `reach` m of one)."""
    wp = carla_map.get_waypoint(
        Location(x, y, z), project_to_road=True, lane_type=LaneType.Sidewalk
    )
    if wp is None:
        return False
    centre = wp.transform.location
    return np.hypot(centre.x - x, centre.y - y) <= wp.lane_width / 2.0 + reach + 1e-6


def test_the_mesh_is_convex_clockwise_polygons_on_the_walkways(town_small):
    mesh = build_navmesh(town_small)
    assert mesh is not None
    areas = np.array(mesh.areas)
    # town_small: 16 crosswalk outlines; its sidewalks sampled at most 1 m apart
    assert int((areas == AREA_CROSSWALK).sum()) == 16
    assert int((areas == AREA_SIDEWALK).sum()) > 1000
    for p, polygon in enumerate(mesh.polygons):
        points = mesh.vertices[polygon, :2]
        edges = np.roll(points, -1, axis=0) - points
        turns = (
            edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1]
            - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        )
        assert 3 <= len(polygon) <= 6
        assert (turns <= 1e-9).all(), f"polygon {p} is not convex and clockwise"
        for neighbour in mesh.neighbours[p]:
            if neighbour >= 0:
                assert p in mesh.neighbours[neighbour], f"{p} -> {neighbour} is one-way"
        if mesh.areas[p] == AREA_SIDEWALK:
            x, y, z = mesh.vertices[polygon].mean(axis=0)
            assert _on_walkway(town_small, x, y, z)
    # every crosswalk meets a sidewalk at both its ends
    for p in np.flatnonzero(areas == AREA_CROSSWALK).tolist():
        met = [n for n in mesh.neighbours[p] if n >= 0 and mesh.areas[n] == AREA_SIDEWALK]
        assert len(met) == 2


def test_the_file_has_the_layout_carla_s_navigation_loads(town_small):
    mesh = build_navmesh(town_small)
    data = mesh.to_bytes()
    magic, version, tiles = struct.unpack_from("<3i", data, 0)
    assert (magic, version, tiles) == (0x4D534554, 1, 1)  # 'MSET'
    *origin, width, height, max_tiles, max_polys = struct.unpack_from("<5f2i", data, 12)
    polygons, vertices = len(mesh.polygons), len(mesh.vertices)
    detour = mesh.vertices[:, [0, 2, 1]].astype(np.float32)  # Detour's y is up
    assert origin == detour.min(axis=0).tolist()
    span = detour.max(axis=0) - detour.min(axis=0)
    assert (width, height) == (float(np.float32(span[0] + 1.0)), float(np.float32(span[2] + 1.0)))
    assert max_tiles == 1 and max_polys >= polygons and max_polys & (max_polys - 1) == 0
    tile_ref, size = struct.unpack_from("<Ii", data, 40)
    assert tile_ref == max_polys  # salt 1 above the polygon bits, tile 0, polygon 0
    assert len(data) == 48 + size
    head = struct.unpack_from("<iiiiiIiiiiiiiii", data, 48)
    assert head[:2] == (0x444E4156, 7)  # 'DNAV', Detour's version 7
    assert head[6:8] == (polygons, vertices)
    links, details, detail_vertices, triangles, nodes = head[8:13]
    assert links == sum(n >= 0 for row in mesh.neighbours for n in row)
    assert (details, detail_vertices, nodes) == (polygons, 0, 0)
    assert triangles == sum(len(p) - 2 for p in mesh.polygons)
    # dtMeshHeader 100 bytes, then vertices (12), polygons (32), links (12), detail meshes
    # (12 with padding) and detail triangles (4), each 4-byte aligned
    assert size == 100 + 12 * vertices + 32 * polygons + 12 * links + 12 * polygons + 4 * triangles
    # Detour's y is up: the first vertex is CARLA's (x, z, y)
    first = struct.unpack_from("<3f", data, 48 + 100)
    x, y, z = mesh.vertices[0]
    assert first == tuple(float(np.float32(v)) for v in (x, z, y))


WALKERS = """
import sys, carla
from carla import command
client = carla.Client("127.0.0.1", int(sys.argv[1]))
client.set_timeout(20.0)
world = client.get_world()
world.set_pedestrians_seed(7)
spots = [world.get_random_location_from_navigation() for _ in range(20)]
for spot in spots:
    print("spot %.6f %.6f %.6f" % (spot.x, spot.y, spot.z))
library = world.get_blueprint_library()
people = library.filter("walker.pedestrian.*")
batch = [command.SpawnActor(people[i], carla.Transform(spots[i] + carla.Location(z=1.0)))
         for i in range(10)]
walkers = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
controller = library.find("controller.ai.walker")
batch = [command.SpawnActor(controller, carla.Transform(), w) for w in walkers]
controllers = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
world.tick()
for i, actor_id in enumerate(controllers):
    ai = world.get_actor(actor_id)
    ai.start()
    ai.go_to_location(spots[10 + i])
    ai.set_max_speed(1.4)
start = {w.id: w.get_location() for w in world.get_actors(walkers)}
for _ in range(200):
    world.tick()
for w in world.get_actors(walkers):
    at = w.get_location()
    print("walker %.1f %.6f %.6f %.6f" % (at.distance(start[w.id]), at.x, at.y, at.z))
for actor_id in controllers:
    world.get_actor(actor_id).stop()
"""


def test_ai_walkers_walk_the_sidewalks_to_random_points(tmp_path, town_small):
    carla_client_or_skip()
    with served(tmp_path, "--sync") as server:
        out = output(run_client(tmp_path, server.port, WALKERS)).splitlines()
    spots = [[float(v) for v in line.split()[1:]] for line in out if line.startswith("spot")]
    walkers = [[float(v) for v in line.split()[1:]] for line in out if line.startswith("walker")]
    assert len(spots) == 20 and len(set(map(tuple, spots))) == 20
    for x, y, z in spots:  # CARLA's client picks them on sidewalk polygons of the mesh
        assert _on_walkway(town_small, x, y, z)
    assert len(walkers) == 10
    # CARLA's crowd walks them at 1.4 m/s at most: 200 ticks of 0.05 s are 14 m
    moved = [w[0] for w in walkers]
    assert sum(d > 5.0 for d in moved) >= 8
    assert max(moved) <= 14.0 * 1.05
    for _, x, y, z in walkers:  # still on the walkways (a crosswalk reaches 2 m past)
        assert _on_walkway(town_small, x, y, z, reach=2.5)
