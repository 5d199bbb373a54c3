"""The Mesh record: concatenation offsets the second mesh's vertex indices; validation names
the source and the bad column."""

from __future__ import annotations

import numpy as np
import pytest

from world.errors import WorldError
from world.scene import Mesh


def _triangle(z: float, tag: int) -> Mesh:
    return Mesh(
        np.array([[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]]),
        np.array([[0, 1, 2]], np.int32),
        np.array([tag], np.uint8),
        np.array([tag], np.uint32),
        np.array([[tag, tag, tag]], np.uint8),
    )


def test_concatenation_moves_the_second_meshs_indices_past_the_first_vertices() -> None:
    both = Mesh.concatenate([_triangle(0.0, 1), _triangle(2.0, 7)])
    assert both.triangles.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert both.vertices[both.triangles[1], 2].tolist() == [2.0, 2.0, 2.0]
    assert both.tag.tolist() == [1, 7]
    both.validate("two triangles")


def test_validation_names_the_source_and_what_is_wrong() -> None:
    bad = _triangle(0.0, 1)
    bad.vertices[1, 0] = np.nan
    with pytest.raises(WorldError, match=r"town\.obj: mesh vertices hold NaN"):
        bad.validate("town.obj")
    out_of_range = _triangle(0.0, 1)
    out_of_range.triangles[0, 2] = 3
    with pytest.raises(WorldError, match=r"names a vertex outside 0\.\.2"):
        out_of_range.validate("town.obj")
    wrong_type = _triangle(0.0, 1)
    wrong_type.tag = wrong_type.tag.astype(np.int64)
    with pytest.raises(WorldError, match="mesh column tag is int64"):
        wrong_type.validate("town.obj")
    assert Mesh.empty().triangle_count == 0
