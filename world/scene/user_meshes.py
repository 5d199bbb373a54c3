"""Users' own meshes of their town (OBJ, PLY, glTF/GLB) added to the scene.

A file is read with `trimesh` (the optional `scene` extra: `pip install 'lockstep[scene]'`)
as triangles whose coordinates are taken as they are: metres in CARLA's frame (x forward,
y right, z up), no axis is turned. Every triangle of a file gets the file's tag (a
CityObjectLabel, its number or its name such as "Buildings") and one instance id; its
colour is the one given, else the file's own face colours where it has them, else
USER_COLOUR. A mesh with a coordinate that is not
finite or beyond MAX_COORDINATE, or with more than MAX_TRIANGLES triangles, is refused
with an error naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from world.actors.vehicle_state import CityObjectLabel
from world.errors import WorldError
from world.scene.mesh import STATIC_INSTANCE_BASE, Mesh

__all__ = [
    "MAX_COORDINATE",
    "MAX_TRIANGLES",
    "USER_COLOUR",
    "USER_INSTANCE_BASE",
    "UserMesh",
    "load_user_mesh",
    "load_user_meshes",
]

USER_INSTANCE_BASE = STATIC_INSTANCE_BASE + (1 << 27)  # above the map's own static ids
USER_COLOUR = (160, 160, 160)
MAX_COORDINATE = 1.0e6  # m from the origin
MAX_TRIANGLES = 20_000_000


@dataclass(frozen=True, slots=True)
class UserMesh:
    """One file to add: its path, its tag, and a colour for all its triangles (None: the
    file's own, else USER_COLOUR)."""

    path: str | Path
    tag: CityObjectLabel | int | str
    colour: tuple[int, int, int] | None = None


def _tag(tag: CityObjectLabel | int | str, source: str) -> int:
    try:
        if isinstance(tag, str) and not tag.strip().isdigit():
            return int(CityObjectLabel[tag.strip()])
        return int(CityObjectLabel(int(tag)))
    except (KeyError, ValueError):
        known = ", ".join(f"{m.name} ({int(m)})" for m in CityObjectLabel)
        raise WorldError(f"{source}: tag {tag!r} is not a CityObjectLabel; expected one of "
                         f"{known}") from None  # fmt: skip


def _colour(colour, source: str) -> tuple[int, int, int]:
    values = tuple(colour)
    if len(values) != 3 or not all(isinstance(v, int) and 0 <= v <= 255 for v in values):
        raise WorldError(f"{source}: colour must be three integers 0..255, found {colour!r}")
    return values  # type: ignore[return-value]


def load_user_mesh(
    path: str | Path,
    tag: CityObjectLabel | int | str,
    colour: tuple[int, int, int] | None = None,
    instance: int = USER_INSTANCE_BASE,
) -> Mesh:
    """The triangles of one OBJ, PLY or glTF/GLB file (see the module), validated."""
    source = str(path)
    tag_value = _tag(tag, source)
    fixed = None if colour is None else _colour(colour, source)
    try:
        import trimesh
    except ImportError:
        raise WorldError(
            f"{source}: reading a mesh file needs trimesh: pip install 'lockstep[scene]'"
        ) from None
    if not Path(path).is_file():
        raise WorldError(f"{source}: no such mesh file")
    try:
        loaded = trimesh.load(source, force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds for a file it cannot read
        raise WorldError(f"{source}: cannot read the mesh: {exc}") from None
    vertices = np.asarray(getattr(loaded, "vertices", np.zeros((0, 3))), dtype=np.float64)
    faces = np.asarray(getattr(loaded, "faces", np.zeros((0, 3))), dtype=np.int64)
    if faces.ndim != 2 or (len(faces) and faces.shape[1] != 3):
        raise WorldError(f"{source}: expected triangles, found faces of shape {faces.shape}")
    if len(faces) > MAX_TRIANGLES:
        raise WorldError(
            f"{source}: {len(faces)} triangles, more than the {MAX_TRIANGLES} a scene takes"
        )
    t = len(faces)
    if fixed is None:
        fixed_colours = _file_colours(loaded, t)
    else:
        fixed_colours = np.broadcast_to(np.array(fixed, dtype=np.uint8), (t, 3)).copy()
    mesh = Mesh(
        vertices.reshape(-1, 3),
        faces.astype(np.int32),
        np.full(t, tag_value, dtype=np.uint8),
        np.full(t, instance, dtype=np.uint32),
        fixed_colours,
    )
    mesh.validate(source)
    if len(mesh.vertices) and np.abs(mesh.vertices).max() > MAX_COORDINATE:
        raise WorldError(
            f"{source}: a vertex lies {np.abs(mesh.vertices).max():.3g} m from the origin, "
            f"beyond the {MAX_COORDINATE:g} m a scene takes"
        )
    return mesh


def _file_colours(loaded, count: int) -> np.ndarray:
    """The file's own face colours (RGB of trimesh's face colours) where it has any."""
    visual = getattr(loaded, "visual", None)
    if visual is not None and getattr(visual, "kind", None) in ("face", "vertex"):
        colours = np.asarray(visual.face_colors)
        if colours.shape == (count, 4):
            return colours[:, :3].astype(np.uint8)
    return np.broadcast_to(np.array(USER_COLOUR, dtype=np.uint8), (count, 3)).copy()


def load_user_meshes(entries: Sequence[UserMesh]) -> Mesh:
    """All the files of `entries` in one mesh, file k's triangles with instance id
    USER_INSTANCE_BASE + k."""
    return Mesh.concatenate(
        [
            load_user_mesh(entry.path, entry.tag, entry.colour, USER_INSTANCE_BASE + k)
            for k, entry in enumerate(entries)
        ]
    )
