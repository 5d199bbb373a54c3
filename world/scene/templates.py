"""The shapes of actors, as templates of boxes and prisms posed later by world.scene.actor_shapes.

A template's vertices are in one of two frames. A boxed template (vehicles, walkers, props)
is in box units: -1..1 along each axis of the actor's bounding box, so posing it scales it
to the blueprint's box exactly. A standing template (traffic lights and signs) is in
metres with its foot on the actor's origin, facing the actor's +y: CARLA's towns turn
their light and sign actors so that the drivers they serve look at the actor's +y side.

Each triangle names its tag (SELF: the actor's own tag), its colour, whether it takes the
actor's body colour instead, and, on a light's head, the state whose bulb it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.actors.vehicle_state import TrafficLightState

__all__ = ["SELF", "TEMPLATES", "UNIT_OCTAGON", "Template"]

SELF = 255  # a template's tag for "the actor's own tag"
NO_BULB = -1

RGB = tuple[int, int, int]
GLASS: RGB = (38, 48, 60)
TYRE: RGB = (24, 24, 26)
METAL: RGB = (110, 112, 116)
SKIN: RGB = (196, 150, 120)
HAIR: RGB = (52, 40, 32)
TROUSERS: RGB = (50, 58, 80)
POLE: RGB = (92, 94, 98)
HEAD: RGB = (28, 30, 30)


@dataclass(frozen=True, slots=True)
class Template:
    """Vertices (V, 3) and triangles (T, 3) with their per-triangle labels (see the module)."""

    vertices: np.ndarray
    triangles: np.ndarray
    tag: np.ndarray  # (T,) uint8, SELF for the actor's tag
    colour: np.ndarray  # (T, 3) uint8
    body: np.ndarray  # (T,) bool: takes the actor's body colour
    bulb: np.ndarray  # (T,) int8: the TrafficLightState this bulb shows, NO_BULB elsewhere
    standing: bool = False  # metres, foot on the origin (else box units)


# cos and sin of 22.5 + 45 k degrees: a regular octagon, written out so that building a
# template calls no transcendental function
_C8 = 0.9238795325112867
_S8 = 0.3826834323650898
UNIT_OCTAGON = (
    np.array([_C8, _S8, -_S8, -_C8, -_C8, -_S8, _S8, _C8]),
    np.array([_S8, _C8, _C8, _S8, -_S8, -_C8, -_C8, -_S8]),
)

# the box's 12 triangles over its corners numbered by bits (x, y, z): 0 = low, 1 = high
_BOX_FACES = np.array(
    [
        [0, 1, 3], [0, 3, 2],  # x low
        [4, 6, 7], [4, 7, 5],  # x high
        [0, 4, 5], [0, 5, 1],  # y low
        [2, 3, 7], [2, 7, 6],  # y high
        [0, 2, 6], [0, 6, 4],  # z low
        [1, 5, 7], [1, 7, 3],  # z high
    ],
    dtype=np.int32,
)  # fmt: skip


@dataclass
class _Builder:
    vertices: list[np.ndarray] = field(default_factory=list)
    triangles: list[np.ndarray] = field(default_factory=list)
    tags: list[int] = field(default_factory=list)
    colours: list[RGB] = field(default_factory=list)
    bodies: list[bool] = field(default_factory=list)
    bulbs: list[int] = field(default_factory=list)
    count: int = 0

    def _add(self, vertices, triangles, tag, colour, body, bulb) -> None:
        self.vertices.append(np.asarray(vertices, dtype=np.float64))
        self.triangles.append(np.asarray(triangles, dtype=np.int32) + self.count)
        self.count += len(vertices)
        t = len(triangles)
        self.tags += [int(tag)] * t
        self.colours += [colour] * t
        self.bodies += [body] * t
        self.bulbs += [bulb] * t

    def box(self, lo, hi, tag=SELF, colour: RGB = METAL, body=False, bulb=NO_BULB) -> None:
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        corners = [[(lo, hi)[i][0], (lo, hi)[j][1], (lo, hi)[k][2]]
                   for i in (0, 1) for j in (0, 1) for k in (0, 1)]  # fmt: skip
        self._add(corners, _BOX_FACES, tag, colour, body, bulb)

    def frustum(self, bottom, top, z0, z1, tag=SELF, colour: RGB = GLASS, body=False) -> None:
        """A box whose bottom (x0, x1, y0, y1) at z0 narrows to its top at z1 (a cabin)."""
        corners = [
            [rect[i], rect[2 + j], z]
            for i in (0, 1)
            for j in (0, 1)
            for rect, z in ((bottom, z0), (top, z1))
        ]
        self._add(corners, _BOX_FACES, tag, colour, body, NO_BULB)

    def prism(self, x, y, radius, z0, z1, tag=SELF, colour: RGB = POLE) -> None:
        """An upright octagonal prism round (x, y) from z0 to z1 (a pole, a trunk)."""
        c, s = UNIT_OCTAGON
        low = np.column_stack([x + radius * c, y + radius * s, np.full(8, float(z0))])
        self._extrude(low, np.array([0.0, 0.0, z1 - z0]), tag, colour)

    def plate(self, x, y, polygon, z0, tag, colour, thickness=0.03) -> None:
        """A flat plate facing +y: `polygon` is its (x, z) corners from (x, z0), at y."""
        corners = np.asarray(polygon, dtype=float)
        n = len(corners)
        low = np.column_stack([x + corners[:, 0], np.full(n, float(y)), z0 + corners[:, 1]])
        self._extrude(low, np.array([0.0, thickness, 0.0]), tag, colour)

    def _extrude(self, ring: np.ndarray, offset: np.ndarray, tag, colour) -> None:
        """A convex polygon `ring` (n, 3) swept by `offset`: its sides and both caps."""
        n = len(ring)
        triangles = []
        for i in range(n):
            j = (i + 1) % n
            triangles += [[i, j, n + j], [i, n + j, n + i]]
        triangles += [[0, i, i + 1] for i in range(1, n - 1)]
        triangles += [[n, n + i + 1, n + i] for i in range(1, n - 1)]
        self._add(np.concatenate([ring, ring + offset]), triangles, tag, colour, False, NO_BULB)

    def bulb(self, x, y, z, size, state: TrafficLightState) -> None:
        """A square lamp face of `size` at (x, y, z), facing +y, a little proud of the head."""
        h = 0.5 * size
        self.box([x - h, y, z - h], [x + h, y + 0.02, z + h], Label.TrafficLight, HEAD,
                 bulb=int(state))  # fmt: skip

    def build(self, standing: bool = False) -> Template:
        return Template(
            np.concatenate(self.vertices),
            np.concatenate(self.triangles).astype(np.int32),
            np.array(self.tags, dtype=np.uint8),
            np.array(self.colours, dtype=np.uint8).reshape(-1, 3),
            np.array(self.bodies, dtype=bool),
            np.array(self.bulbs, dtype=np.int8),
            standing,
        )


def _wheels(b: _Builder, front: float, rear: float, half_track: float, radius: float,
            width: float) -> None:  # fmt: skip
    """Four wheel blocks (box units) standing on the box's floor."""
    for x in (front, rear):
        for side in (-1.0, 1.0):
            y_out = side * half_track
            y_in = y_out - side * width
            b.box([x - radius, min(y_in, y_out), -1.0], [x + radius, max(y_in, y_out),
                  -1.0 + 2.0 * radius], colour=TYRE)  # fmt: skip


def _car() -> Template:
    b = _Builder()
    b.box([-1.0, -1.0, -0.62], [1.0, 1.0, 0.12], body=True)
    b.frustum((-0.55, 0.38, -0.88, 0.88), (-0.42, 0.12, -0.74, 0.74), 0.12, 0.92)
    b.box([-0.4, -0.72, 0.92], [0.1, 0.72, 1.0], body=True)
    _wheels(b, 0.6, -0.57, 0.98, 0.2, 0.26)
    return b.build()


def _van() -> Template:
    b = _Builder()
    b.box([-1.0, -1.0, -0.62], [1.0, 1.0, 0.1], body=True)
    b.box([-1.0, -1.0, 0.1], [0.45, 1.0, 1.0], body=True)
    b.frustum((0.45, 0.78, -0.9, 0.9), (0.45, 0.5, -0.9, 0.9), 0.1, 0.9)
    _wheels(b, 0.66, -0.62, 0.98, 0.17, 0.22)
    return b.build()


def _truck() -> Template:
    b = _Builder()
    b.box([0.5, -0.95, -0.55], [1.0, 0.95, 0.55], body=True)  # cab
    b.box([0.62, -0.9, 0.55], [0.98, 0.9, 0.82], colour=GLASS)  # cab windows
    b.box([-1.0, -1.0, -0.55], [0.46, 1.0, 1.0], colour=(190, 190, 186))  # cargo box
    b.box([-1.0, -0.6, -0.75], [1.0, 0.6, -0.55], colour=METAL)  # chassis
    _wheels(b, 0.75, -0.7, 0.97, 0.13, 0.2)
    return b.build()


def _bus() -> Template:
    b = _Builder()
    b.box([-1.0, -1.0, -0.72], [1.0, 1.0, 0.2], body=True)
    b.box([-0.98, -0.98, 0.2], [0.98, 0.98, 0.78], colour=GLASS)
    b.box([-1.0, -1.0, 0.78], [1.0, 1.0, 1.0], body=True)
    _wheels(b, 0.72, -0.62, 0.96, 0.09, 0.14)
    return b.build()


def _two_wheeler(frame: RGB) -> Template:
    b = _Builder()
    for x in (0.72, -0.72):
        b.box([x - 0.27, -0.18, -1.0], [x + 0.27, 0.18, -0.3], colour=TYRE)
    b.box([-0.6, -0.3, -0.55], [0.6, 0.3, -0.1], body=True, colour=frame)
    # the rider: legs, torso, head (tag Rider, as CARLA tags a bicycle's or motorbike's rider)
    b.box([-0.25, -0.75, -0.35], [0.2, 0.75, 0.15], Label.Rider, TROUSERS)
    b.box([-0.3, -0.7, 0.15], [0.15, 0.7, 0.7], Label.Rider, (150, 60, 50))
    b.box([-0.18, -0.38, 0.7], [0.1, 0.38, 1.0], Label.Rider, SKIN)
    return b.build()


def _walker() -> Template:
    b = _Builder()
    b.box([-0.35, -0.55, -1.0], [0.3, -0.05, -0.05], colour=TROUSERS)
    b.box([-0.35, 0.05, -1.0], [0.3, 0.55, -0.05], colour=TROUSERS)
    b.box([-0.5, -0.95, -0.05], [0.5, 0.95, 0.7], body=True)
    b.box([-0.38, -0.42, 0.7], [0.42, 0.42, 1.0], colour=SKIN)
    return b.build()


def _prop() -> Template:
    b = _Builder()
    b.box([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], body=True)
    return b.build()


def _traffic_light() -> Template:
    """A pole with a three-lamp head on top, lamps toward +y (tags Poles and TrafficLight)."""
    b = _Builder()
    b.prism(0.0, 0.0, 0.1, 0.0, 4.0, tag=Label.Poles)
    b.box([-0.22, -0.2, 3.0], [0.22, 0.16, 4.1], Label.TrafficLight, HEAD)
    for z, state in ((3.85, TrafficLightState.Red), (3.55, TrafficLightState.Yellow),
                     (3.25, TrafficLightState.Green)):  # fmt: skip
        b.bulb(0.0, 0.16, z, 0.24, state)
    return b.build(standing=True)


def _sign(polygon: list[tuple[float, float]], colour: RGB) -> Template:
    """A pole 2.0 m high with a plate on top facing +y (tags Poles and TrafficSigns)."""
    b = _Builder()
    b.prism(0.0, 0.0, 0.04, 0.0, 2.0, tag=Label.Poles)
    b.plate(0.0, 0.05, polygon, 2.0, Label.TrafficSigns, colour)
    return b.build(standing=True)


_R = 0.38  # m: a sign plate's half size
_OCTAGON = [(_R * c, _R * s + _R) for c, s in zip(*UNIT_OCTAGON, strict=True)]
_TRIANGLE = [(-_R, 2 * _R), (0.0, 0.0), (_R, 2 * _R)]  # point down: yield

# shape keys -> templates; world.scene.actor_shapes picks a key for each actor
TEMPLATES: dict[str, Template] = {
    "car": _car(),
    "van": _van(),
    "truck": _truck(),
    "bus": _bus(),
    "motorcycle": _two_wheeler((60, 60, 64)),
    "bicycle": _two_wheeler((150, 150, 156)),
    "walker": _walker(),
    "prop": _prop(),
    "traffic_light": _traffic_light(),
    "stop": _sign(_OCTAGON, (196, 30, 30)),
    "yield": _sign(_TRIANGLE, (236, 236, 232)),
    "speed_limit": _sign(_OCTAGON, (236, 236, 232)),
}
