"""The map's static scene: every triangle that depends on the map alone, built once per map.

`static_scene(world_map)` is kept through `Map.derived`, so the worlds made on one Map share
it and the map store (runner.map_store) keeps it on disk between processes; the store's
code stamp covers world/scene, so a change of this code builds it anew. It holds, in this
order: each road's lane surfaces, curbs and skirts and its road marks; the crosswalks; the
junctions' floors; the terrain; and in lockstep's generated towns their buildings, walls,
fences, trees and poles (world.scene.town_props).

Instance ids (world.scene.mesh.STATIC_INSTANCE_BASE and up) are given in that order: one per
road outside junctions (its surface and paint), one per junction (every road inside it,
whose lanes overlap, and its floor), one per crosswalk, one for the terrain, one per prop.
A map without roads (FlatMap) is one plane of GROUND_HALF_SIZE metres each way at its
height, tag Ground.
"""

from __future__ import annotations

from itertools import count

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.builder import MeshParts, fan_triangles
from world.scene.crosswalks import crosswalks
from world.scene.junction_fill import junction_fill
from world.scene.markings import junction_painted, road_markings
from world.scene.materials import TERRAIN
from world.scene.mesh import STATIC_INSTANCE_BASE, Mesh
from world.scene.road_surface import road_surface
from world.scene.terrain import Terrain, surface_triangles
from world.scene.town_props import town_props, town_seed

__all__ = ["GROUND_HALF_SIZE", "SCENE_KEY", "build_static_scene", "static_scene"]

SCENE_KEY = "static scene"  # the Map.derived key
GROUND_HALF_SIZE = 10_000.0  # m: a road-less map's plane reaches this far from the origin


def static_scene(world_map) -> Mesh:
    """The static scene of `world_map` (a Map, or a FlatMap), built on the first ask and kept
    with the map."""
    derived = getattr(world_map, "derived", None)
    if derived is None:
        return build_static_scene(world_map)
    return derived(SCENE_KEY, lambda: build_static_scene(world_map))


def build_static_scene(world_map) -> Mesh:
    """Builds the static scene of `world_map` (see the module's docstring)."""
    document = getattr(world_map, "opendrive", None)
    if document is None:
        return _plane(float(getattr(world_map, "height", 0.0)))
    parts = MeshParts()
    ids = count(STATIC_INSTANCE_BASE)
    evaluators = world_map.road_evaluators()
    roads = list(document.roads.values())
    instance_of = {road.id: next(ids) for road in roads if road.junction == "-1"}
    junction_ids: dict[str, int] = {}
    for road in roads:
        instance = instance_of.get(road.id)
        if instance is None:
            instance = junction_ids.setdefault(road.junction, next(ids))
        evaluator = evaluators[road.id]
        samples = road_surface(parts, road, evaluator, instance)
        junction = document.junctions.get(road.junction)
        road_markings(parts, road, evaluator, samples, instance, junction_painted(junction))
    for polygon in world_map.crosswalk_polygons():
        crosswalks(parts, [polygon], next(ids))
    junction_fill(parts, parts.mesh(), list(junction_ids.values()))
    surfaces = surface_triangles(parts.mesh())
    if len(surfaces):
        terrain = Terrain(surfaces)
        terrain.add_to(parts, next(ids))
        seed = town_seed(document)
        if seed is not None:
            town_props(parts, world_map, seed, surfaces, terrain.below, ids)
    return parts.mesh()


def _plane(height: float) -> Mesh:
    r = GROUND_HALF_SIZE
    corners = np.array([[-r, -r, height], [r, -r, height], [r, r, height], [-r, r, height]])
    parts = MeshParts()
    parts.add(corners, fan_triangles(4), Label.Ground, STATIC_INSTANCE_BASE, TERRAIN)
    return parts.mesh()
