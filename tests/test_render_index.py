"""The renderer's MeshIndex: every triangle once, boxes that hold their chunks, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from tests.render_scenes import box
from world.errors import WorldError
from world.render import MeshIndex, PinholeCamera, SceneView, visibility
from world.scene.mesh import Mesh


def _town() -> Mesh:
    rng = np.random.default_rng(3)
    boxes = []
    for k in range(300):
        lo = rng.uniform([-300.0, -300.0, 0.0], [300.0, 300.0, 2.0])
        boxes.append(box(lo, lo + rng.uniform(0.5, 20.0, 3), first_instance=100 * k))
    return Mesh.concatenate(boxes)


def test_each_triangle_is_in_one_chunk_whose_box_holds_it():
    town = _town()
    index = MeshIndex.build(town, cell=32.0, max_triangles=64)
    assert sorted(index.number.tolist()) == list(range(town.triangle_count))
    assert (np.diff(index.triangle_start) <= 64).all() and index.chunk_count > 100
    for c in range(index.chunk_count):
        rows = index.triangles[index.triangle_start[c] : index.triangle_start[c + 1]]
        assert rows.min() >= index.vertex_start[c] and rows.max() < index.vertex_start[c + 1]
        corners = index.vertices[rows]
        assert (corners >= index.lower[c]).all() and (corners <= index.upper[c]).all()
        # the chunk's triangles are the Mesh's, vertex for vertex (the same bits)
        original = town.vertices[
            town.triangles[index.number[index.triangle_start[c] : index.triangle_start[c + 1]]]
        ]
        assert (corners == original).all()


def test_a_pickled_index_renders_the_same_buffers():
    index = MeshIndex.build(_town())
    camera = PinholeCamera(
        (0.0, 0.0, 1.5), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), 320, 240, 90.0
    )
    before = visibility(SceneView(index), camera)
    after = visibility(SceneView(pickle.loads(pickle.dumps(index))), camera)
    assert (before.number >= 0).mean() > 0.05  # boxes in view
    assert before.number.tobytes() == after.number.tobytes()
    assert before.depth.tobytes() == after.depth.tobytes()


def test_an_empty_mesh_renders_nothing():
    view = SceneView(MeshIndex.build(Mesh.empty()), Mesh.empty())
    camera = PinholeCamera(
        (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), 32, 24, 90.0
    )
    assert (visibility(view, camera).number == -1).all()


def test_a_malformed_mesh_is_refused_naming_its_source():
    bad = box((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    bad.vertices[3, 1] = np.nan
    with pytest.raises(WorldError, match=r"town\.obj"):
        MeshIndex.build(bad, "town.obj")
