"""The world's debug drawings (CARLA's carla.DebugHelper), kept as data for pictures of a run.

CARLA draws these shapes in the server's viewport; lockstep has no viewport, so each call
keeps one `DebugShape`: the frame it was drawn on, its points or box, colour and life time.
CARLA's life times: below 0 (the default) the shape shows on the next frame only, 0 keeps
it for good, above 0 for that many seconds. `World.tick` drops the shapes whose life is
over, so `shapes` holds what a viewer would show now, and every shape drawn is handed to
the `listeners` (a recorder writing them beside its log). A drawing costs one small object
and a list append, so agents that draw every step (`run_step(debug=True)`) are not slowed
measurably.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from world.enums import CarlaEnum
from world.geometry import Location, Rotation, Vector3D

__all__ = ["DebugHelper", "DebugShape", "ShapeKind"]

RED = (255, 0, 0, 255)  # CARLA's default colour for every shape


class ShapeKind(CarlaEnum):
    """What a debug shape is."""

    Point = 0
    Line = 1
    Arrow = 2
    Box = 3
    String = 4


@dataclass(frozen=True, slots=True)
class DebugShape:
    """One drawing as the call gave it; `hud` shapes are drawn over the picture."""

    kind: ShapeKind
    frame: int
    elapsed: float
    points: tuple[Location, ...]
    color: tuple[int, int, int, int] = RED
    thickness: float = 0.1
    life_time: float = -1.0
    text: str = ""
    arrow_size: float = 0.0
    box_extent: Vector3D | None = None
    rotation: Rotation | None = None
    persistent: bool = True
    hud: bool = False

    def alive_at(self, frame: int, elapsed: float) -> bool:
        """Whether a viewer still shows the shape on `frame` (at `elapsed` seconds)."""
        if self.life_time < 0.0:
            return frame <= self.frame + 1
        if self.life_time == 0.0:
            return True
        return elapsed <= self.elapsed + self.life_time


def _rgba(color: Any) -> tuple[int, int, int, int]:
    if color is None:
        return RED
    return (int(color.r), int(color.g), int(color.b), int(getattr(color, "a", 255)))


def _point(location: Any) -> Location:
    return Location(float(location.x), float(location.y), float(location.z))


def _rotation(rotation: Any) -> Rotation:
    return Rotation(float(rotation.pitch), float(rotation.yaw), float(rotation.roll))


@dataclass(slots=True)
class DebugHelper:
    """CARLA's DebugHelper calls, with CARLA's parameter names and defaults.

    `clock()` gives the world's (frame, elapsed seconds) at the time of a call."""

    clock: Callable[[], tuple[int, float]]
    shapes: list[DebugShape] = field(default_factory=list)
    listeners: list[Callable[[DebugShape], None]] = field(default_factory=list)

    def _add(self, kind: ShapeKind, points: tuple[Location, ...], color: Any, **rest) -> None:
        frame, elapsed = self.clock()
        shape = DebugShape(kind, frame, elapsed, points, _rgba(color), **rest)
        self.shapes.append(shape)
        for listener in self.listeners:
            listener(shape)

    def _segment(self, kind, begin, end, thickness, arrow_size, color, life_time, **flags):
        self._add(
            kind,
            (_point(begin), _point(end)),
            color,
            thickness=float(thickness),
            arrow_size=float(arrow_size),
            life_time=float(life_time),
            **flags,
        )

    def _box(self, box, rotation, thickness, color, life_time, **flags) -> None:
        self._add(
            ShapeKind.Box,
            (_point(box.location),),
            color,
            thickness=float(thickness),
            box_extent=Vector3D(float(box.extent.x), float(box.extent.y), float(box.extent.z)),
            rotation=_rotation(rotation),
            life_time=float(life_time),
            **flags,
        )

    def draw_point(self, location, size=0.1, color=None, life_time=-1.0, persistent_lines=True):
        self._add(
            ShapeKind.Point,
            (_point(location),),
            color,
            thickness=float(size),
            life_time=float(life_time),
            persistent=bool(persistent_lines),
        )

    def draw_line(
        self, begin, end, thickness=0.1, color=None, life_time=-1.0, persistent_lines=True
    ):
        self._segment(
            ShapeKind.Line, begin, end, thickness, 0.0, color, life_time,
            persistent=bool(persistent_lines),
        )  # fmt: skip

    def draw_arrow(
        self,
        begin,
        end,
        thickness=0.1,
        arrow_size=0.1,
        color=None,
        life_time=-1.0,
        persistent_lines=True,
    ):
        self._segment(
            ShapeKind.Arrow, begin, end, thickness, arrow_size, color, life_time,
            persistent=bool(persistent_lines),
        )  # fmt: skip

    def draw_box(
        self, box, rotation, thickness=0.1, color=None, life_time=-1.0, persistent_lines=True
    ):
        self._box(box, rotation, thickness, color, life_time, persistent=bool(persistent_lines))

    def draw_string(
        self, location, text, draw_shadow=False, color=None, life_time=-1.0, persistent_lines=True
    ):
        self._add(
            ShapeKind.String,
            (_point(location),),
            color,
            text=str(text),
            life_time=float(life_time),
            persistent=bool(persistent_lines),
        )

    def draw_hud_point(self, location, size=0.1, color=None, life_time=-1.0, persistent_lines=True):
        self._add(
            ShapeKind.Point,
            (_point(location),),
            color,
            thickness=float(size),
            life_time=float(life_time),
            hud=True,
        )

    def draw_hud_line(
        self, begin, end, thickness=0.1, color=None, life_time=-1.0, persistent_lines=True
    ):
        self._segment(ShapeKind.Line, begin, end, thickness, 0.0, color, life_time, hud=True)

    def draw_hud_arrow(
        self,
        begin,
        end,
        thickness=0.1,
        arrow_size=0.1,
        color=None,
        life_time=-1.0,
        persistent_lines=True,
    ):
        self._segment(
            ShapeKind.Arrow, begin, end, thickness, arrow_size, color, life_time, hud=True
        )

    def draw_hud_box(
        self, box, rotation, thickness=0.1, color=None, life_time=-1.0, persistent_lines=True
    ):
        self._box(box, rotation, thickness, color, life_time, hud=True)

    def expire(self, frame: int, elapsed: float) -> None:
        """Drops the shapes a viewer no longer shows on `frame`."""
        if self.shapes:
            self.shapes = [s for s in self.shapes if s.alive_at(frame, elapsed)]
