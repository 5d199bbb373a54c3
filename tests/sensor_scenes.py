"""Tiny scenes for the rendering sensors' tests: a ground plane, a wall, boxes, and a world
whose rendering frame sees them (and each vehicle as its box), so a test knows every
triangle and can work the sensors' answers out by hand."""

from __future__ import annotations

import numpy as np

from world import FlatMap, World, WorldSettings
from world.actors.vehicle_state import ActorType, CityObjectLabel
from world.geometry import rotation_matrices
from world.render import MeshIndex
from world.scene.mesh import STATIC_INSTANCE_BASE, Mesh
from world.sensors.scene_frame import RenderingFrame

# a box's 8 corners (signs of the extent) and its 12 triangles
_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
_BOX_TRIANGLES = np.array(
    [
        [0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5],  # x = -1, x = +1
        [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],  # y = -1, y = +1
        [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3],  # z = -1, z = +1
    ],
    np.int32,
)  # fmt: skip


def _mesh(vertices, triangles, tag: int, instance: int, colour=(128, 128, 128)) -> Mesh:
    t = len(triangles)
    return Mesh(
        np.asarray(vertices, float),
        np.asarray(triangles, np.int32),
        np.full(t, tag, np.uint8),
        np.full(t, instance, np.uint32),
        np.tile(np.array(colour, np.uint8), (t, 1)),
    )


def ground(z: float = 0.0, half: float = 500.0, tag: int = int(CityObjectLabel.Roads)) -> Mesh:
    """A square of 2·half metres at height z."""
    v = [[-half, -half, z], [half, -half, z], [half, half, z], [-half, half, z]]
    return _mesh(v, [[0, 1, 2], [0, 2, 3]], tag, STATIC_INSTANCE_BASE, (128, 64, 128))


def wall(x: float, half: float = 50.0, tag: int = int(CityObjectLabel.Walls)) -> Mesh:
    """A wall across the x axis at x, facing it, 2·half metres wide and high about z = 0."""
    v = [[x, -half, -half], [x, half, -half], [x, half, half], [x, -half, half]]
    return _mesh(v, [[0, 1, 2], [0, 2, 3]], tag, STATIC_INSTANCE_BASE + 1, (102, 102, 156))


def box(centre, extent, tag: int, instance: int, colour=(0, 0, 142)) -> Mesh:
    """An axis-aligned box."""
    v = np.asarray(centre, float) + _CORNERS * np.asarray(extent, float)
    return _mesh(v, _BOX_TRIANGLES, tag, instance, colour)


def vehicle_boxes(actors, type_ids, attributes, light_state) -> Mesh:
    """Each live vehicle as its box (extent about box_loc, posed by its pos and rot), tag Car,
    instance its actor id."""
    n = actors.n
    rows = np.flatnonzero(actors.alive[:n] & (actors.kind[:n] == int(ActorType.Vehicle)))
    parts = []
    for row in rows.tolist():
        axes = rotation_matrices(*(actors.rot[[row], k] for k in range(3)))[0]
        local = actors.box_loc[row] + _CORNERS * actors.extent[row]
        vertices = local @ axes.T + actors.pos[row]
        parts.append(_mesh(vertices, _BOX_TRIANGLES, int(CityObjectLabel.Car), row + 1))
    return Mesh.concatenate(parts)


def scene_world(*static: Mesh, dt: float = 0.05) -> World:
    """A world on a flat map whose rendering sensors see `static` and the vehicles' boxes."""
    world = World(FlatMap(), static_actor_providers=())
    index = MeshIndex.build(Mesh.concatenate(list(static)), "the test's scene")
    world._rendering = RenderingFrame(  # the tests' own scene instead of the map's
        index_of=lambda _map: index, actor_mesh=vehicle_boxes
    )
    world.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=dt))
    return world


def listen(world: World, blueprint_id: str, transform, attach_to=None, **attributes) -> list:
    """Spawns a sensor with `attributes` and returns the list its measurements go to."""
    bp = world.get_blueprint_library().find(blueprint_id)
    for key, value in attributes.items():
        bp.set_attribute(key, str(value))
    sensor = world.spawn_actor(bp, transform, attach_to)
    received: list = []
    sensor.listen(received.append)
    return received
