"""The rendering sensors' view of one frame: the map's static scene plus the actors posed now.

A World keeps one RenderingFrame. On a tick where a rendering sensor measures, the first
one asks for the frame's scene: the render index of the map's static scene (world.scene's
static_scene through world.render's MeshIndex, built once per map and kept with it,
`Map.derived`, so the map store keeps it on disk), the actors' Mesh posed from the state
tables (world.scene's ActorShapes), and the renderer's view of both; every other sensor of
that tick gets the same FrameScene. The FrameScene answers what the sensors ask: camera
visibility buffers, ray casts, and per-triangle tag, instance, colour, normal, glow and the
actor row it belongs to (with that actor's velocity).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from world.actors.vehicle_state import CityObjectLabel
from world.render import (
    MeshIndex,
    PinholeCamera,
    RasterWork,
    SceneView,
    StripDrawing,
    Visibility,
    cast_rays,
    visibility,
)
from world.scene import STATIC_INSTANCE_BASE, ActorShapes, Mesh, static_scene
from world.scene.actor_shapes import LAMP_COLOURS

__all__ = ["INDEX_KEY", "FrameScene", "RenderingFrame", "static_index"]

INDEX_KEY = "render index"  # the Map.derived key of the static scene's MeshIndex
LIT_LAMPS = np.array([lit for lit, _dark in LAMP_COLOURS.values()], np.uint8)

StaticIndexOf = Callable[[Any], MeshIndex]
ActorMeshOf = Callable[[Any, Sequence[str], Sequence[Mapping[str, str]], np.ndarray], Mesh]


def static_index(world_map: Any) -> MeshIndex:
    """The render index of `world_map`'s static scene, built on the first ask and kept with
    the map (a map without `derived`, a FlatMap, builds it each time: a plane)."""

    def build() -> MeshIndex:
        return MeshIndex.build(static_scene(world_map), "the map's static scene")

    derived = getattr(world_map, "derived", None)
    return build() if derived is None else derived(INDEX_KEY, build)


def _pinhole(
    origin: np.ndarray, axes: np.ndarray, width: int, height: int, fov: float
) -> PinholeCamera:
    """A pinhole camera at `origin` whose forward, right and up are the columns of `axes`."""
    return PinholeCamera(
        tuple(map(float, origin)),
        tuple(map(float, axes[:, 0])),
        tuple(map(float, axes[:, 1])),
        tuple(map(float, axes[:, 2])),
        int(width),
        int(height),
        float(fov),
    )


@dataclass(slots=True)
class FrameScene:
    """One frame's triangles, numbered static first, and what the sensors look up about them
    by triangle number (-1: nothing; its lookups give 0)."""

    view: SceneView
    actor_velocity: np.ndarray  # (n, 3) m/s of every actor row this frame
    lit: np.ndarray  # (K, 3) uint8: the colours of lit lamps, which glow
    work: dict[tuple[int, int], RasterWork] = field(default_factory=dict)  # by (W, H)

    def camera(
        self, origin: np.ndarray, axes: np.ndarray, width: int, height: int, fov: float
    ) -> Visibility:
        """Nearest triangle (-1: sky) and its depth per pixel (world.render's Visibility),
        drawn into the buffers of `work` kept for the image size: the cameras of one size
        share them (the next camera of that size overwrites them), so a tick's cameras
        draw into memory the caches already hold and no frame pays fresh pages."""
        camera = _pinhole(origin, axes, width, height, fov)
        return visibility(self.view, camera, self._work_for(camera))

    def strips(
        self, origin: np.ndarray, axes: np.ndarray, width: int, height: int, fov: float
    ) -> StripDrawing:
        """The camera's view to be drawn a strip at a time by a kernel that uses each strip
        as it is drawn (world.render's StripDrawing), with the work kept for the size."""
        camera = _pinhole(origin, axes, width, height, fov)
        return StripDrawing(self.view, camera, self._work_for(camera))

    def _work_for(self, camera: PinholeCamera) -> RasterWork:
        key = (camera.width, camera.height)
        if key not in self.work:
            self.work[key] = RasterWork(camera.width, camera.height)
        return self.work[key]

    def cast(
        self, origin: np.ndarray, directions: np.ndarray, max_range: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distance (inf: none) and triangle (-1: none) of each unit ray within max_range."""
        hits = cast_rays(self.view, origin, directions, max_range)
        return hits.distance, hits.number

    def tag(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.tag(numbers)

    def instance(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.instance(numbers)

    def colour(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.colour(numbers)

    def normal(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.normal(numbers)

    def columns(self) -> tuple:
        """(static colour, normal, tag, dynamic colour, normal, tag, first dynamic number):
        the per-triangle columns the compiled shading reads."""
        s, d = self.view.static, self.view.dynamic
        return (s.colour, s.normal, s.tag, d.colour, d.normal, d.tag, self.view.dynamic_offset)

    def labels(self) -> tuple:
        """((static tag, instance), (dynamic tag, instance), first dynamic number): the
        per-triangle columns the compiled segmentation encodings read."""
        s, d = self.view.static, self.view.dynamic
        return ((s.tag, s.instance), (d.tag, d.instance), self.view.dynamic_offset)

    def glowing(self, numbers: np.ndarray) -> np.ndarray:
        """Whether each triangle glows: a traffic light's lamp in a lit colour."""
        glow = self.tag(numbers) == int(CityObjectLabel.TrafficLight)
        if not glow.any():
            return glow
        colour = self.colour(numbers)
        lit = np.zeros(glow.shape, bool)
        for lamp in self.lit:
            lit |= (colour == lamp).all(-1)
        return glow & lit

    def actor_rows(self, numbers: np.ndarray) -> np.ndarray:
        """The actor row of each triangle (-1 for the map's static scene and for nothing)."""
        ids = self.instance(numbers).astype(np.int64)
        return np.where((ids > 0) & (ids < STATIC_INSTANCE_BASE), ids - 1, -1)

    def velocities(self, numbers: np.ndarray) -> np.ndarray:
        """(N, 3) velocity (m/s) of what each triangle belongs to; 0 for the static scene."""
        rows = self.actor_rows(numbers)
        out = np.zeros((len(numbers), 3))
        moving = (rows >= 0) & (rows < len(self.actor_velocity))
        out[moving] = self.actor_velocity[rows[moving]]
        return out


class RenderingFrame:
    """Assembles a world's FrameScene at most once per frame (see the module). The static
    index and the actors' shapes may be given (tests give tiny scenes)."""

    def __init__(
        self, index_of: StaticIndexOf | None = None, actor_mesh: ActorMeshOf | None = None
    ) -> None:
        self._index_of = index_of or static_index
        self._actor_mesh = actor_mesh
        self._flat_index: MeshIndex | None = None  # a map without `derived`: built once here
        self._frame: int | None = None
        self._scene: FrameScene | None = None
        self._work: dict[tuple[int, int], RasterWork] = {}  # each frame's cameras share it

    def scene(
        self,
        frame: int,
        world_map: Any,
        tables: Any,
        type_ids: Sequence[str],
        attributes: Sequence[Mapping[str, str]],
        light_state: np.ndarray,
    ) -> FrameScene:
        """The FrameScene of `frame`, made on the frame's first ask."""
        if self._scene is not None and self._frame == frame:
            return self._scene
        if self._actor_mesh is None:
            self._actor_mesh = ActorShapes().mesh
        if getattr(world_map, "derived", None) is None:
            if self._flat_index is None:
                self._flat_index = self._index_of(world_map)
            index = self._flat_index
        else:
            index = self._index_of(world_map)
        dynamic = self._actor_mesh(tables.actors, type_ids, attributes, light_state)
        self._scene = FrameScene(
            view=SceneView(index, dynamic),
            actor_velocity=tables.actors.vel[: tables.actors.n].copy(),
            lit=LIT_LAMPS,
            work=self._work,
        )
        self._frame = frame
        return self._scene
