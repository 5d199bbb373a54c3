"""The world as triangles for the rendering sensors: the map's static scene, the actors' shapes.

`static_scene(map)` is every triangle that depends on the map alone (lanes by type, curbs,
road marks, crosswalks, junction floors, terrain, and in lockstep's towns their buildings,
trees and poles), built once per map and kept with it (`Map.derived`, so the map store
keeps it on disk); `ActorShapes().mesh(actors, type_ids, attributes, light_state)` poses
the actors' shapes of one frame from the state tables; `load_user_meshes` reads users'
OBJ, PLY and glTF files. Each gives a `Mesh`.

The scene builds on map/, actors/ and the plain types at the top of world/; it never imports
physics/, traffic/, sensors/ or world.py (it is handed the map and the state tables).
"""

from world.scene.actor_shapes import ActorShapes, actor_shapes
from world.scene.mesh import STATIC_INSTANCE_BASE, Mesh
from world.scene.static_scene import build_static_scene, static_scene
from world.scene.user_meshes import UserMesh, load_user_mesh, load_user_meshes

__all__ = [
    "STATIC_INSTANCE_BASE",
    "ActorShapes",
    "Mesh",
    "UserMesh",
    "actor_shapes",
    "build_static_scene",
    "load_user_mesh",
    "load_user_meshes",
    "static_scene",
]
