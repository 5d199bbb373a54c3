"""The actors as triangles, posed from the state tables: a whole frame at once.

Each actor row gets a template (world.scene.templates) by its blueprint id, once: a vehicle
by its base type (car, van, truck, bus, motorcycle, bicycle: the blueprint catalogue's,
else the row's `base_type` attribute, else a car) tagged as CARLA tags that base type; a
walker (Pedestrians); a static.prop.* box (Static); a traffic light (pole Poles, head
TrafficLight, the lamp of the light's state lit); a stop, yield or speed-limit sign (pole
Poles, plate TrafficSigns). Sensors, the spectator, controllers and other actors have no
shape. Boxed templates fill the row's box (extent about box_loc, the actor's frame);
lights and signs stand on the actor's origin. The pose is the row's pos and rot (pitch,
yaw, roll, CARLA's rotation); instance ids are actor ids; a vehicle's body takes its
`color` attribute, else BODY_COLOURS of its kind.

Rows are never reused (world.state), so `ActorShapes` learns each row's template when the
row first shows up and poses every template's rows with numpy in one go per template: no
per-actor Python work in a frame. A template whose rows, poses and boxes are those of its
last frame (the lights and signs, a parked fleet) keeps its vertices, and one whose lights
show the same states keeps its colours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from world.actors.vehicle_models import SEMANTIC_TAGS, vehicle_model
from world.actors.vehicle_state import CityObjectLabel as Label
from world.actors.vehicle_state import TrafficLightState
from world.errors import BlueprintError
from world.geometry import rotation_matrices
from world.scene.mesh import Mesh
from world.scene.templates import SELF, TEMPLATES, Template

__all__ = ["BODY_COLOURS", "LAMP_COLOURS", "ActorShapes", "actor_shapes", "shape_key"]

RGB = tuple[int, int, int]

# body colours of the actors that name none
BODY_COLOURS: dict[str, RGB] = {
    "vehicle": (150, 152, 156),
    "walker": (70, 96, 140),
    "prop": (150, 118, 84),
}
# a lamp's colour lit and dark, by the TrafficLightState it shows
LAMP_COLOURS: dict[int, tuple[RGB, RGB]] = {
    int(TrafficLightState.Red): ((255, 36, 24), (70, 20, 18)),
    int(TrafficLightState.Yellow): ((255, 196, 20), (72, 58, 16)),
    int(TrafficLightState.Green): ((40, 255, 90), (16, 64, 28)),
}
_KEYS = list(TEMPLATES)
_NONE = -1


def shape_key(type_id: str, attributes: Mapping[str, str]) -> str | None:
    """The template key of an actor of blueprint `type_id`, None for no shape."""
    if type_id.startswith("vehicle."):
        try:
            base = vehicle_model(type_id).base_type
        except BlueprintError:
            base = attributes.get("base_type", "").strip().lower()
        return base if base in SEMANTIC_TAGS else "car"
    if type_id.startswith("walker.pedestrian"):
        return "walker"
    if type_id.startswith("static.prop."):
        return "prop"
    if type_id == "traffic.traffic_light":
        return "traffic_light"
    if type_id in ("traffic.stop", "traffic.yield"):
        return type_id.removeprefix("traffic.")
    if type_id.startswith("traffic.speed_limit"):
        return "speed_limit"
    return None


def _own_tag(key: str) -> int:
    if key in SEMANTIC_TAGS:
        return int(SEMANTIC_TAGS[key])
    return int({"walker": Label.Pedestrians, "prop": Label.Static}.get(key, Label.Static))


def _body_colour(key: str, attributes: Mapping[str, str]) -> RGB:
    text = attributes.get("color", "")
    if text:
        try:
            r, g, b = (min(255, max(0, int(float(v)))) for v in text.split(","))
            return (r, g, b)
        except ValueError:
            pass
    if key in SEMANTIC_TAGS:
        return BODY_COLOURS["vehicle"]
    return BODY_COLOURS.get(key, BODY_COLOURS["prop"])


class ActorShapes:
    """Poses the actors' shapes frame after frame (see the module)."""

    def __init__(self) -> None:
        self._key = np.zeros(0, dtype=np.int16)  # template index per row, _NONE for none
        self._tag = np.zeros(0, dtype=np.uint8)
        self._colour = np.zeros((0, 3), dtype=np.uint8)
        # per template: the rows last posed and their triangles, tags, ids and colours,
        # which stay the same from frame to frame while the rows do
        self._labels: dict[int, tuple[np.ndarray, ...]] = {}
        # per template: the rows last posed, their pos, rot, box_loc and extent, and the
        # posed vertices (R V, 3)
        self._posed: dict[int, tuple[np.ndarray, ...]] = {}
        # per template with lamps: its labels, the states shown and the colours showing them
        self._shown: dict[int, tuple] = {}

    def _learn(
        self, n: int, type_ids: Sequence[str], attributes: Sequence[Mapping[str, str]]
    ) -> None:
        """Templates, tags and body colours of rows not seen yet (once per row)."""
        seen = len(self._key)
        if n <= seen:
            return
        keys, tags, colours = [], [], []
        for row in range(seen, n):
            key = shape_key(type_ids[row], attributes[row])
            keys.append(_NONE if key is None else _KEYS.index(key))
            tags.append(0 if key is None else _own_tag(key))
            colours.append((0, 0, 0) if key is None else _body_colour(key, attributes[row]))
        self._key = np.concatenate([self._key, np.array(keys, dtype=np.int16)])
        self._tag = np.concatenate([self._tag, np.array(tags, dtype=np.uint8)])
        self._colour = np.concatenate([self._colour, np.array(colours, dtype=np.uint8)])

    def mesh(
        self,
        actors,
        type_ids: Sequence[str],
        attributes: Sequence[Mapping[str, str]],
        light_state: np.ndarray | None = None,
    ) -> Mesh:
        """The shapes of the live actors of `actors` (a world.state.ActorTable): `type_ids`
        and `attributes` give each row's blueprint id and attributes (row r is actor r + 1),
        `light_state` each row's TrafficLightState (read on light rows; None: all Off)."""
        n = actors.n
        self._learn(n, type_ids, attributes)
        key = self._key[:n]
        live = np.flatnonzero(actors.alive[:n] & (key != _NONE))
        groups = [(index, live[key[live] == index]) for index in np.unique(key[live]).tolist()]
        # a template's vertices stand while its rows and their poses do (a light or a sign
        # never moves); the others' rotations come from one call
        moving = [(index, rows) for index, rows in groups if not self._still(index, rows, actors)]
        if moving:
            rot = actors.rot[np.concatenate([rows for _index, rows in moving])]
            matrices = rotation_matrices(rot[:, 0], rot[:, 1], rot[:, 2])  # (r, 3, 3)
            first = 0
            for index, rows in moving:
                self._pose(index, rows, actors, matrices[first : first + len(rows)])
                first += len(rows)
        return Mesh.concatenate([self._labelled(i, rows, light_state) for i, rows in groups])

    def _still(self, index: int, rows: np.ndarray, actors) -> bool:
        """Whether template `index`'s rows and their poses (and boxes) are those it last
        posed, so that its kept vertices stand."""
        posed = self._posed.get(index)
        if posed is None or not np.array_equal(posed[0], rows):
            return False
        same = np.array_equal(posed[1], actors.pos[rows]) and np.array_equal(
            posed[2], actors.rot[rows]
        )
        if same and not TEMPLATES[_KEYS[index]].standing:
            same = np.array_equal(posed[3], actors.box_loc[rows]) and np.array_equal(
                posed[4], actors.extent[rows]
            )
        return same

    def _pose(self, index: int, rows: np.ndarray, actors, m: np.ndarray) -> None:
        """Poses template `index` for `rows`, whose rotation matrices are `m` (r, 3, 3), and
        keeps the vertices with what they were made of."""
        template = TEMPLATES[_KEYS[index]]
        r, v = len(rows), len(template.vertices)
        box_loc, extent = actors.box_loc[rows], actors.extent[rows]
        if template.standing:
            local = np.broadcast_to(template.vertices, (r, v, 3))
        else:
            local = box_loc[:, None, :] + template.vertices[None, :, :] * extent[:, None, :]
        x, y, z = local[..., 0], local[..., 1], local[..., 2]
        world = np.empty((r, v, 3))
        pos = actors.pos[rows]
        for axis in range(3):
            world[..., axis] = (
                m[:, axis, 0, None] * x + m[:, axis, 1, None] * y + m[:, axis, 2, None] * z
            ) + pos[:, axis, None]
        self._posed[index] = (rows, pos, actors.rot[rows], box_loc, extent, world.reshape(-1, 3))

    def _labelled(self, index: int, rows: np.ndarray, light_state: np.ndarray | None) -> Mesh:
        """Template `index`'s kept vertices for `rows` with their triangles and labels."""
        template = TEMPLATES[_KEYS[index]]
        cached = self._labels.get(index)
        if cached is None or not np.array_equal(cached[0], rows):
            cached = (rows, *self._labels_of(template, rows))
            self._labels[index] = cached
        _, triangles, tag, instance, colour = cached
        if (template.bulb >= 0).any():
            state = (
                np.full(len(rows), int(TrafficLightState.Off))
                if light_state is None
                else np.asarray(light_state)[rows].astype(np.int64)
            )
            shown = self._shown.get(index)
            if shown is None or shown[0] is not cached or not np.array_equal(shown[1], state):
                shown = (cached, state, self._lamps(template, len(rows), colour, state))
                self._shown[index] = shown
            colour = shown[2]
        return Mesh(self._posed[index][5], triangles, tag, instance, colour)

    def _labels_of(self, template: Template, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """Triangles (T r, 3), tags, instance ids and colours of the template posed for
        `rows`, in row order."""
        r, v, t = len(rows), len(template.vertices), len(template.triangles)
        offsets = v * np.arange(r, dtype=np.int32)
        triangles = template.triangles[None, :, :] + offsets[:, None, None]
        tag = np.where(template.tag[None, :] == SELF, self._tag[rows][:, None], template.tag)
        colour = np.where(
            template.body[None, :, None], self._colour[rows][:, None, :], template.colour
        )
        return (
            triangles.reshape(-1, 3).astype(np.int32),
            tag.reshape(-1).astype(np.uint8),
            np.repeat((rows + 1).astype(np.uint32), t),
            colour.reshape(-1, 3).astype(np.uint8),
        )

    @staticmethod
    def _lamps(template: Template, r: int, colour: np.ndarray, state: np.ndarray) -> np.ndarray:
        """A copy of `colour` (T r, 3) of `r` rows with each lamp lit where the row's light
        shows its `state` (r,)."""
        out = colour.reshape(r, -1, 3).copy()
        for lamp, (lit, dark) in LAMP_COLOURS.items():
            faces = template.bulb == lamp
            if not faces.any():
                continue
            on = state == lamp
            out[:, faces] = np.where(on[:, None, None], np.array(lit), np.array(dark))
        return out.reshape(-1, 3)


def actor_shapes(
    actors,
    type_ids: Sequence[str],
    attributes: Sequence[Mapping[str, str]],
    light_state: np.ndarray | None = None,
) -> Mesh:
    """The live actors' shapes of one frame (ActorShapes.mesh without keeping what it learns)."""
    return ActorShapes().mesh(actors, type_ids, attributes, light_state)
