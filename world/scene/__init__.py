"""The world as triangles for the rendering sensors: the map's static scene, the actors' shapes.

The scene builds on map/, actors/ and the plain types at the top of world/; it never imports
physics/, traffic/, sensors/ or world.py (it is handed the map and the state tables).
"""

from world.scene.mesh import Mesh

__all__ = ["Mesh"]
