"""The props of lockstep's generated towns (world.scene.town_props): seeded, beside the roads."""

from __future__ import annotations

from itertools import count
from pathlib import Path

import numpy as np
import pytest
from scene_geometry import height_on

from world import Map
from world.actors.vehicle_state import CityObjectLabel as Label
from world.map.towngen import TOWN_PRESETS, render_town
from world.scene.builder import MeshParts
from world.scene.mesh import Mesh
from world.scene.static_scene import build_static_scene
from world.scene.terrain import Terrain, surface_triangles
from world.scene.town_props import town_props, town_seed

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small():
    town = Map.from_file(REPO / "configs" / "maps" / "town_small.xodr")
    return town, build_static_scene(town)


def _props(town: Map, scene: Mesh, seed: int) -> Mesh:
    roads = np.isin(scene.tag, [Label.Roads, Label.Sidewalks, Label.RoadLines])
    lanes = Mesh(scene.vertices, scene.triangles[roads], scene.tag[roads],
                 scene.instance[roads], scene.colour[roads])  # fmt: skip
    surfaces = surface_triangles(lanes)
    parts = MeshParts()
    town_props(parts, town, seed, surfaces, Terrain(surfaces).below, count(1 << 25))
    return parts.mesh()


def _bytes(mesh: Mesh) -> bytes:
    return b"".join(
        getattr(mesh, name).tobytes()
        for name in ("vertices", "triangles", "tag", "instance", "colour")
    )


def test_the_seed_is_kept_in_the_town_file():
    """town_small is TownSpec(seed=7, ...): its header's userData keeps 7; a file written
    before (no userData) reads as seed 0; a map of another vendor has none."""
    town = Map.from_file(REPO / "configs" / "maps" / "town_small.xodr")
    assert TOWN_PRESETS["town_small"].seed == 7
    assert town_seed(town.opendrive) == 7
    text = render_town(TOWN_PRESETS["town_small"])
    older = "\n".join(line for line in text.splitlines() if "userData" not in line)
    assert town_seed(Map("old", older).opendrive) == 0
    carla = text.replace('vendor="lockstep"', 'vendor="VectorZero"')
    assert town_seed(Map("other", carla).opendrive) is None


def test_the_same_seed_gives_the_same_bytes_and_another_seed_another_town(small):
    town, scene = small
    first, again, other = _props(town, scene, 7), _props(town, scene, 7), _props(town, scene, 8)
    assert _bytes(first) == _bytes(again)
    assert _bytes(first) != _bytes(other)
    # the static scene holds exactly these props after its roads, floors and terrain
    tail = scene.triangle_count - first.triangle_count
    assert (scene.tag[tail:] == first.tag).all()
    assert scene.vertices[scene.triangles[tail:]] == pytest.approx(
        first.vertices[first.triangles], abs=0.0
    )


def test_a_town_has_buildings_walls_fences_trees_and_poles_off_the_roads(small):
    town, scene = small
    props = _props(town, scene, 7)
    tags = set(props.tag.tolist())
    assert {int(Label.Buildings), int(Label.Vegetation), int(Label.Poles)} <= tags
    assert tags & {int(Label.Walls), int(Label.Fences)}
    # no building's footprint corner lies on a lane or sidewalk
    buildings = props.tag == Label.Buildings
    corners = props.vertices[props.triangles[buildings]].reshape(-1, 3)
    lanes = scene.vertices[scene.triangles[np.isin(scene.tag, [Label.Roads, Label.Sidewalks])]]
    assert np.isneginf(height_on(lanes, np.unique(corners[:, :2], axis=0))).all()
    # every building stands on the ground: its lowest point is under the terrain at each of
    # its corners
    terrain = scene.vertices[scene.triangles[scene.tag == Label.Terrain]]
    terrain = terrain[np.ptp(terrain[..., 2], axis=1) < 5.0]  # the grid, not the skirts
    for instance in np.unique(props.instance[buildings]).tolist()[::5]:
        box = props.vertices[props.triangles[props.instance == instance]].reshape(-1, 3)
        ground = height_on(terrain, box[:, :2])
        assert np.isfinite(ground).all()
        assert box[:, 2].min() <= ground.min()
