"""Users' meshes (world.scene.user_meshes): tiny OBJ, PLY and glTF files written here, read
back through trimesh (the `scene` extra, which the test extra installs)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from world.actors.vehicle_state import CityObjectLabel as Label
from world.errors import WorldError
from world.scene.user_meshes import (
    USER_COLOUR,
    USER_INSTANCE_BASE,
    UserMesh,
    load_user_mesh,
    load_user_meshes,
)

pytest.importorskip("trimesh", reason="trimesh (the scene extra) is not installed")

OBJ = "v 0 0 0\nv 2 0 0\nv 0 3 0\nv 0 0 4\nf 1 2 3\nf 1 2 4\n"
PLY = (
    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
    "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
    "0 0 0\n1 0 0\n0 1 0.5\n3 0 1 2\n"
)


def test_an_obj_file_round_trips_with_its_tag_and_colour(tmp_path):
    path = tmp_path / "house.obj"
    path.write_text(OBJ)
    mesh = load_user_mesh(path, Label.Buildings, (200, 10, 20))
    assert mesh.vertices.tolist() == [[0, 0, 0], [2, 0, 0], [0, 3, 0], [0, 0, 4]]
    assert mesh.triangles.tolist() == [[0, 1, 2], [0, 1, 3]]
    assert mesh.tag.tolist() == [int(Label.Buildings)] * 2
    assert mesh.colour.tolist() == [[200, 10, 20]] * 2
    assert mesh.instance.tolist() == [USER_INSTANCE_BASE] * 2


def test_ply_and_gltf_files_read_in_carlas_frame_as_written(tmp_path):
    import trimesh

    (tmp_path / "kerb.ply").write_text(PLY)
    glb = tmp_path / "sign.glb"
    trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 2]], [[0, 1, 2]], process=False).export(glb)
    mesh = load_user_meshes([UserMesh(tmp_path / "kerb.ply", 2), UserMesh(glb, "Poles")])
    assert mesh.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0.5], [0, 0, 0], [1, 0, 0],
                                      [0, 1, 2]]  # fmt: skip
    assert mesh.triangles.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert mesh.tag.tolist() == [int(Label.Sidewalks), int(Label.Poles)]
    assert mesh.instance.tolist() == [USER_INSTANCE_BASE, USER_INSTANCE_BASE + 1]
    assert mesh.colour.tolist() == [list(USER_COLOUR)] * 2


def test_a_nan_vertex_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "broken.obj"
    path.write_text("v 0 0 nan\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    with pytest.raises(WorldError, match=r"broken\.obj: mesh vertices hold NaN"):
        load_user_mesh(path, Label.Static)


@pytest.mark.parametrize(
    ("text", "tag", "colour", "message"),
    [
        (OBJ, 99, None, r"tag 99 is not a CityObjectLabel"),
        (OBJ, "Trees", None, r"tag 'Trees' is not a CityObjectLabel"),
        (OBJ, 3, (300, 0, 0), r"colour must be three integers 0\.\.255"),
        ("v 1e9 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 3, None, r"1e\+09 m from the origin"),
    ],
)
def test_bad_tags_colours_and_absurd_sizes_are_refused(tmp_path, text, tag, colour, message):
    path = tmp_path / "bad.obj"
    path.write_text(text)
    with pytest.raises(WorldError, match=rf"bad\.obj: .*{message}"):
        load_user_mesh(path, tag, colour)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(WorldError, match=r"nowhere\.obj: no such mesh file"):
        load_user_mesh(tmp_path / "nowhere.obj", 3)


def test_the_scene_imports_without_trimesh():
    """The core install has no trimesh: importing the scene must not need it."""
    probe = "import world.scene, sys; print('trimesh' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
