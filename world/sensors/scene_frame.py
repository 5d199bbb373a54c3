"""The rendering sensors' view of one frame: the map's static scene plus the actors posed now.

A World keeps one RenderingFrame. On a tick where a rendering sensor measures, the first
one asks for the frame's scene: the map's static Mesh (built once per map and kept with it,
`Map.derived`, so the map store keeps it on disk), the actors' Mesh posed from the state
tables, and the renderer's index over them; every other sensor of that tick gets the same
FrameScene. The FrameScene answers what the sensors ask: camera visibility buffers, ray
casts, and per-triangle tag, instance, colour, normal, glow and the actor row it belongs
to (with that actor's velocity).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from world.actors.vehicle_state import CityObjectLabel
from world.scene.mesh import STATIC_INSTANCE_BASE, Mesh
from world.sensors.standin_render import StandinScene

__all__ = ["FrameScene", "RenderingFrame", "lit_lamp_colours"]

StaticMeshOf = Callable[[Any], Mesh]
ActorMeshOf = Callable[[Any, Sequence[str], Sequence[Mapping[str, str]], np.ndarray], Mesh]


def lit_lamp_colours() -> np.ndarray:
    """(K, 3) the colours of lit traffic-light lamps (world.scene.actor_shapes)."""
    try:
        from world.scene.actor_shapes import LAMP_COLOURS
    except ImportError:  # the scene's actors are not there yet
        return np.zeros((0, 3), np.uint8)
    return np.array([lit for lit, _dark in LAMP_COLOURS.values()], np.uint8)


def _default_static(world_map: Any) -> Mesh:
    from world.scene.static_scene import static_scene

    return static_scene(world_map)


class _DefaultActors:
    """The scene's ActorShapes of one world (it learns each row's template once)."""

    def __init__(self) -> None:
        from world.scene.actor_shapes import ActorShapes

        self._shapes = ActorShapes()

    def __call__(self, actors, type_ids, attributes, light_state) -> Mesh:
        return self._shapes.mesh(actors, type_ids, attributes, light_state)


@dataclass(slots=True)
class FrameScene:
    """One frame's triangles, numbered static first, and what the sensors look up about them
    by triangle number (-1: nothing; its lookups give 0)."""

    view: Any  # the renderer's view of the frame (tag, instance, colour, normal lookups)
    actor_velocity: np.ndarray  # (n, 3) m/s of every actor row this frame
    lit: np.ndarray  # (K, 3) uint8: the colours of lit lamps, which glow

    def camera(
        self, origin: np.ndarray, axes: np.ndarray, width: int, height: int, fov: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Nearest triangle (-1: sky) and planar depth per pixel, (H, W) each."""
        return self.view.camera(origin, axes, width, height, fov)

    def cast(
        self, origin: np.ndarray, directions: np.ndarray, max_range: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distance (inf: none) and triangle (-1: none) of each unit ray within max_range."""
        return self.view.cast(origin, directions, max_range)

    def tag(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.tag(numbers)

    def columns(self) -> tuple:
        """(static colour, normal, tag, dynamic colour, normal, tag, first dynamic number):
        the per-triangle columns the compiled shading reads."""
        return self.view.columns()

    def instance(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.instance(numbers)

    def colour(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.colour(numbers)

    def normal(self, numbers: np.ndarray) -> np.ndarray:
        return self.view.normal(numbers)

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
    """Assembles a world's FrameScene at most once per frame (see the module)."""

    def __init__(
        self, static_mesh: StaticMeshOf | None = None, actor_mesh: ActorMeshOf | None = None
    ) -> None:
        self._static_mesh = static_mesh or _default_static
        self._actor_mesh = actor_mesh
        self._frame: int | None = None
        self._scene: FrameScene | None = None
        self._lit: np.ndarray | None = None

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
            self._actor_mesh = _DefaultActors()
        static = self._static_mesh(world_map)
        dynamic = self._actor_mesh(tables.actors, type_ids, attributes, light_state)
        if self._lit is None:
            self._lit = lit_lamp_colours()
        self._scene = FrameScene(
            view=StandinScene(Mesh.concatenate([static, dynamic])),
            actor_velocity=tables.actors.vel[: tables.actors.n].copy(),
            lit=self._lit,
        )
        self._frame = frame
        return self._scene
