"""The moving part of a picture: actors, lights, collisions, debug drawings, time and frame.

Actors are oriented boxes (their logged box, or their blueprint's) with a light line from
the box centre to the middle of its front, the heading; the hero is filled in the hero
colour, which nothing else uses. All box corners of a frame are computed at once with
numpy. A traffic light is a disc in its state's colour at its logged place. A collision
is a ring between the two actors (or on the one actor when the other is not an actor),
shown for COLLISION_SHOW seconds after the frame that logged it.
"""

from __future__ import annotations

import numpy as np

from recorder.picture.log_scenes import KIND_VEHICLE, KIND_WALKER, NOT_AN_ACTOR, LogScenes, Scene
from recorder.picture.palette import INDEX, LIGHT_COLOURS, nearest_index
from recorder.picture.view import View
from world.elementary import cos_v, sin_v

COLLISION_SHOW = 1.0  # seconds a collision stays marked
COLLISION_RADIUS = 2.5  # m
LIGHT_RADIUS = 1.0  # m
MIN_BOX_PIXELS = 1.5  # half size, pixels
# Corner signs of a box, in drawing order: front-right, front-left, rear-left, rear-right.
_CORNERS = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [-1.0, 1.0]])


def box_corners(
    xy: np.ndarray, yaw_deg: np.ndarray, extent: np.ndarray, centre: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World corners (N, 4, 2), centres (N, 2) and front middles (N, 2) of N boxes: an actor
    at `xy` turned by `yaw_deg`, its box of half `extent` (N, 2) at `centre` (N, 2) in the
    actor's frame."""
    yaw = np.radians(np.asarray(yaw_deg, dtype=np.float64))
    c, s = cos_v(yaw)[:, None], sin_v(yaw)[:, None]

    def world(local: np.ndarray) -> np.ndarray:  # (N, K, 2) local -> world
        lx, ly = local[..., 0], local[..., 1]
        return np.stack([xy[:, None, 0] + c * lx - s * ly, xy[:, None, 1] + s * lx + c * ly], -1)

    corners = world(centre[:, None, :] + _CORNERS[None] * extent[:, None, :])
    mid = world(np.stack([centre, centre + extent * np.array([1.0, 0.0])], axis=1))
    return corners, mid[:, 0], mid[:, 1]


class FrameDrawer:
    """Draws scenes of one log onto copies of the base picture."""

    def __init__(self, scenes: LogScenes, drawings: list | None = None, font=None) -> None:
        self.scenes = scenes
        self.font = font  # Pillow's font for the time and the debug strings (None: its default)
        self.drawings = drawings or []
        self.collision_time = (
            scenes.index.elapsed[scenes.collision_frame]
            if len(scenes.collision_frame)
            else np.zeros(0)
        )
        self._text_boxes: dict[int, tuple[float, float, float, float]] = {}
        # SidecarDrawing.shown for every drawing at once: an agent drawing each step leaves
        # tens of thousands, too many to ask one by one for each picture
        drawn = self.drawings
        self._first = np.array([d.frame for d in drawn], dtype=float)
        self._last = np.array([np.inf if d.last_frame is None else d.last_frame for d in drawn])
        self._until = np.array([np.inf if d.until is None else d.until for d in drawn])

    def draw(self, draw, view: View, scene: Scene, clock: float) -> None:
        """Everything that moves, for the scene shown at picture time `clock` (s)."""
        if self.font is not None:
            draw.font = self.font
        self._lights(draw, view, scene)
        self._actors(draw, view, scene)
        self._collisions(draw, view, scene)
        self._drawings(draw, view, scene)
        text = f"t {clock:8.2f} s   frame {scene.frame}"
        if len(text) not in self._text_boxes:  # measuring text costs as much as a frame's boxes
            self._text_boxes[len(text)] = draw.textbbox((6, 4), "0" * len(text))
        _, _, right, bottom = self._text_boxes[len(text)]
        draw.rectangle((2, 1, right + 4, bottom + 3), fill=INDEX["text_box"])
        draw.text((6, 4), text, fill=INDEX["text"])

    def _lights(self, draw, view: View, scene: Scene) -> None:
        radius = max(3.0, LIGHT_RADIUS * view.scale)
        states = dict(zip(scene.light_ids.tolist(), scene.light_states.tolist(), strict=True))
        for light_id, place in self.scenes.lights.items():
            colour = LIGHT_COLOURS.get(states.get(light_id, 3), "light_off")
            u, v = view.pixels(np.array(place)).tolist()
            draw.ellipse((u - radius, v - radius, u + radius, v + radius),
                         fill=INDEX[colour], outline=INDEX["outline"])  # fmt: skip

    def _actors(self, draw, view: View, scene: Scene) -> None:
        looks = [self.scenes.looks.get(i) for i in scene.ids.tolist()]
        shown = [k for k, look in enumerate(looks) if look is not None]
        if not shown:
            return
        # props first, then walkers, vehicles, and the hero on top
        order = sorted(shown, key=lambda k: (looks[k].hero, _layer(looks[k].kind), k))
        rows = np.array(order)
        # at least MIN_BOX_PIXELS across, so a walker of a big map's view stays visible
        extent = np.maximum(np.array([looks[k].extent for k in order]), MIN_BOX_PIXELS / view.scale)
        centre = np.array([looks[k].centre for k in order])
        corners, middle, front = box_corners(scene.xy[rows], scene.yaw[rows], extent, centre)
        corners, middle, front = view.pixels(corners), view.pixels(middle), view.pixels(front)
        line = max(1, round(0.2 * view.scale))
        for j, k in enumerate(order):
            look = looks[k]
            fill = "hero" if look.hero else _fill(look.kind)
            draw.polygon([tuple(p) for p in corners[j].tolist()], fill=INDEX[fill],
                         outline=INDEX["outline"])  # fmt: skip
            if look.kind in (KIND_VEHICLE, KIND_WALKER):
                draw.line([tuple(middle[j]), tuple(front[j])], fill=INDEX["heading"], width=line)

    def _collisions(self, draw, view: View, scene: Scene) -> None:
        if not len(self.collision_time):
            return
        recent = np.flatnonzero(
            (self.collision_time <= scene.elapsed)
            & (self.collision_time > scene.elapsed - COLLISION_SHOW)
        )
        if not len(recent):
            return
        where = {i: xy for i, xy in zip(scene.ids.tolist(), scene.xy.tolist(), strict=True)}
        radius = max(4.0, COLLISION_RADIUS * view.scale)
        width = max(2, round(0.3 * view.scale))
        for id1, id2 in self.scenes.collision_ids[recent].tolist():
            places = [where[i] for i in (id1, id2) if i != NOT_AN_ACTOR and i in where]
            if not places:
                continue
            u, v = view.pixels(np.mean(np.array(places), axis=0)).tolist()
            draw.ellipse((u - radius, v - radius, u + radius, v + radius),
                         outline=INDEX["collision"], width=width)  # fmt: skip

    def _drawings(self, draw, view: View, scene: Scene) -> None:
        if not self.drawings:
            return
        shown = (
            (self._first <= scene.frame)
            & (scene.frame <= self._last)
            & (scene.elapsed <= self._until + 1e-9)
        )
        for k in np.flatnonzero(shown).tolist():
            draw_debug_shape(draw, view, self.drawings[k])


def draw_debug_shape(draw, view: View, d) -> None:
    """One world.debug drawing (recorder/logfile/debug_sidecar.SidecarDrawing), seen from above."""
    colour = nearest_index(d.color)
    pts = view.pixels(np.array([p[:2] for p in d.points]))
    width = max(1, round(d.thickness * view.scale))
    if d.kind == "point":
        r = max(1.5, 0.5 * d.thickness * view.scale)
        u, v = pts[0].tolist()
        draw.ellipse((u - r, v - r, u + r, v + r), fill=colour)
    elif d.kind in ("line", "arrow"):
        draw.line([tuple(pts[0]), tuple(pts[1])], fill=colour, width=width)
        if d.kind == "arrow":
            _arrow_head(draw, pts[0], pts[1], max(4.0, d.arrow_size * view.scale), colour, width)
    elif d.kind == "box" and d.extent is not None:
        extent = np.array([d.extent[:2]])
        corners, _, _ = box_corners(np.array([d.points[0][:2]]), np.array([d.yaw]), extent,
                                    np.zeros((1, 2)))  # fmt: skip
        ring = [tuple(p) for p in view.pixels(corners[0]).tolist()]
        draw.line([*ring, ring[0]], fill=colour, width=width)
    elif d.kind == "string":
        draw.text(tuple(pts[0]), d.text, fill=colour)


def _arrow_head(draw, begin: np.ndarray, end: np.ndarray, size: float, colour: int, width: int):
    d = end - begin
    length = float(np.sqrt(d @ d))
    if length == 0.0:
        return
    d = d / length
    n = np.array([-d[1], d[0]])
    for side in (1.0, -1.0):
        tip = end - size * d + side * 0.5 * size * n
        draw.line([tuple(end), tuple(tip)], fill=colour, width=width)


def _layer(kind: int) -> int:
    return {KIND_WALKER: 1, KIND_VEHICLE: 2}.get(kind, 0)


def _fill(kind: int) -> str:
    return {KIND_VEHICLE: "vehicle", KIND_WALKER: "walker"}.get(kind, "prop")
