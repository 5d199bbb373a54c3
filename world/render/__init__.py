"""The CPU renderer: what a camera's pixels and a sensor's rays see of a scene of triangles.

It builds on world.scene's Mesh alone (and the kernels' decorator): a MeshIndex groups a
Mesh's triangles into chunks once (the map's static scene, kept per map); a SceneView is
one frame's static index and posed actors, numbered as one; `visibility` gives a pinhole
camera's nearest triangle and planar depth per pixel, `cast_rays` each ray's nearest
triangle and distance. numba kernels in plain IEEE double arithmetic (no fastmath, no
threads, no transcendental call), with fixed tie rules, so the same scene gives the same
bits on every CPU.
"""

from world.render.camera import (
    FAR,
    NEAR,
    PinholeCamera,
    RasterWork,
    StripDrawing,
    Visibility,
    visibility,
)
from world.render.index import MeshIndex
from world.render.rays import RayBundle, RayHits, cast_rays
from world.render.view import SceneView

__all__ = [
    "FAR",
    "NEAR",
    "MeshIndex",
    "PinholeCamera",
    "RasterWork",
    "RayBundle",
    "RayHits",
    "SceneView",
    "StripDrawing",
    "Visibility",
    "cast_rays",
    "visibility",
]
