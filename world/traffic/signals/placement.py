"""Where a map's traffic lights and signs stand, and how its lights group: from the OpenDRIVE model.

Lights: every traffic-light signal (CARLA's traffic-light types, 1000001 in CARLA's
towns) that a controller holds, and every one outside a junction that none holds.
Signs: signals of type 206 (stop, except the painted "Stencil_STOP"), 205
(yield) and 274 with subtype 30..120 in steps of 10 (speed limit), and, as CARLA's
towns place them, road objects named `Speed_NN`; objects of the same name at the
same point make one sign.

Poses, measured against a real CARLA log of Town01 (every light within 0.28 m
and 0.07 deg, every sign within 0.19 m): the signal or object point is the
reference line at s moved t across (no lane offset, as CARLA's
ComputeSignalTransform), standing on the road surface there; the facing yaw is
-(heading + hOffset) (objects: + hdg); the actor's yaw is that plus 90 deg, as
CARLA spawns its light and sign blueprints. A light actor stands `LIGHT_FORWARD`
(0.32 m) along the facing direction from its signal point: CARLA's light model
has its origin there.

Groups: one per junction with controllers, its controllers in `sequence` order
(then document order), each with its lights in `<control>` order; a controller
no junction names gets its own group; a light no controller holds gets its own
group and controller with a 10 s red stage.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.geometry import Location, Rotation, Transform
from world.map.opendrive import OpenDrive, Road
from world.map.opendrive.evaluation import RoadEvaluator
from world.traffic.signals.lights import LONE_LIGHT_RED_TIME

__all__ = [
    "LIGHT_FORWARD",
    "SPEED_LIMITS",
    "TRAFFIC_LIGHT_TYPES",
    "LightGroupPlan",
    "LightPlacement",
    "SignPlacement",
    "TrafficPlacement",
    "place_traffic",
]

TRAFFIC_LIGHT_TYPES = frozenset(
    {"1000001", "1000002", "1000009", "1000010", "1000011", "1000012", "F", "W", "A"}
)
STOP_TYPE, YIELD_TYPE, SPEED_TYPE = "206", "205", "274"
SPEED_LIMITS = tuple(range(30, 121, 10))
LIGHT_FORWARD = 0.32  # m from the signal point along its facing direction
_SPEED_OBJECT = re.compile(r"speed_(\d+)", re.IGNORECASE)
_SAME_POINT = 1e-6  # m


@dataclass(frozen=True, slots=True)
class LightPlacement:
    """A traffic light to place: its OpenDRIVE signal, road, actor pose and controller."""

    signal_id: str
    road_id: str
    s: float
    transform: Transform


@dataclass(frozen=True, slots=True)
class SignPlacement:
    """A sign to place: blueprint id, its OpenDRIVE signal or object id, road and actor pose."""

    blueprint_id: str
    opendrive_id: str
    road_id: str
    s: float
    t: float
    transform: Transform
    speed_limit: float | None  # km/h for speed-limit signs
    from_object: bool


@dataclass(frozen=True, slots=True)
class LightGroupPlan:
    """A group: its junction id (None for a lone light or junction-less controller) and its
    controllers in turn order, each as (controller id or None, light indices, red time or None)."""

    junction_id: str | None
    controllers: tuple[tuple[str | None, tuple[int, ...], float | None], ...]


@dataclass(frozen=True, slots=True)
class TrafficPlacement:
    lights: list[LightPlacement]
    signs: list[SignPlacement]
    groups: list[LightGroupPlan]


def _pose(ev: RoadEvaluator, s: float, t: float, heading_offset: float) -> tuple[Location, float]:
    """CARLA-frame point on the road surface at (s, t) and the facing yaw in degrees."""
    point = ev.surface_point(np.array([s]), np.array([t]))[0]
    hdg = float(ev.heading(np.array([s]))[0])
    return Location(float(point[0]), -float(point[1]), float(point[2])), -math.degrees(
        hdg + heading_offset
    )


def _yaw(degrees: float) -> float:
    """An angle in degrees in (-180, 180]."""
    out = math.fmod(degrees, 360.0)
    if out > 180.0:
        out -= 360.0
    elif out <= -180.0:
        out += 360.0
    return out


def _actor_transform(location: Location, facing: float, forward: float) -> Transform:
    rad = math.radians(facing)
    moved = Location(
        location.x + forward * el.cos(rad), location.y + forward * el.sin(rad), location.z
    )
    return Transform(moved, Rotation(0.0, _yaw(facing + 90.0), 0.0))


def _sign_blueprint(
    signal_type: str, subtype: str, name: str, value: float | None
) -> tuple[str, float | None] | None:
    if signal_type == STOP_TYPE and name != "Stencil_STOP":
        return "traffic.stop", None
    if signal_type == YIELD_TYPE:
        return "traffic.yield", None
    if signal_type == SPEED_TYPE and subtype.isdigit() and int(subtype) in SPEED_LIMITS:
        # The model comes from the subtype, the limit from the value (CARLA's SpawnSignals).
        limit = value if value is not None and value > 0.0 else float(int(subtype))
        return f"traffic.speed_limit.{int(subtype)}", limit
    return None


def place_traffic(
    odr: OpenDrive, road_evaluators: dict[str, RoadEvaluator] | None = None
) -> TrafficPlacement:
    """The lights, signs and light groups of a map, in a fixed order. `road_evaluators` are
    the roads' evaluators by road id when the caller has them (a Map's), else each road's
    is built here when first needed."""
    evaluators = dict(road_evaluators or {})

    def evaluator(road: Road) -> RoadEvaluator:
        if road.id not in evaluators:
            evaluators[road.id] = RoadEvaluator(road)
        return evaluators[road.id]

    light_signals = {
        sig.id: (road, sig)
        for road in odr.roads.values()
        for sig in road.signals
        if sig.type in TRAFFIC_LIGHT_TYPES
    }
    lights: list[LightPlacement] = []
    index_of: dict[str, int] = {}

    def add_light(signal_id: str) -> int:
        if signal_id not in index_of:
            road, sig = light_signals[signal_id]
            loc, facing = _pose(evaluator(road), sig.s, sig.t, sig.h_offset)
            index_of[signal_id] = len(lights)
            lights.append(
                LightPlacement(sig.id, road.id, sig.s, _actor_transform(loc, facing, LIGHT_FORWARD))
            )
        return index_of[signal_id]

    def controller_lights(controller_id: str) -> tuple[int, ...]:
        out: list[int] = []
        for control in odr.controllers[controller_id].controls:
            if control.signal_id in light_signals:
                index = add_light(control.signal_id)
                if index not in out:
                    out.append(index)
        return tuple(out)

    groups: list[LightGroupPlan] = []
    grouped: set[str] = set()
    for junction in odr.junctions.values():
        ids = [c.id for c in junction.controllers if c.id in odr.controllers]
        order = sorted(range(len(ids)), key=lambda k: (junction.controllers[k].sequence or 0, k))
        controllers = []
        for k in order:
            if ids[k] in grouped:
                continue
            grouped.add(ids[k])
            members = controller_lights(ids[k])
            if members:
                controllers.append((ids[k], members, None))
        if controllers:
            groups.append(LightGroupPlan(junction.id, tuple(controllers)))
    for controller_id in odr.controllers:
        if controller_id not in grouped:
            members = controller_lights(controller_id)
            if members:
                groups.append(LightGroupPlan(None, ((controller_id, members, None),)))
    for signal_id, (road, _sig) in light_signals.items():
        if signal_id not in index_of and road.junction == "-1":
            groups.append(
                LightGroupPlan(None, ((None, (add_light(signal_id),), LONE_LIGHT_RED_TIME),))
            )

    signs: list[SignPlacement] = []
    for road in odr.roads.values():
        ev = evaluator(road)
        for sig in road.signals:
            kind = _sign_blueprint(sig.type, sig.subtype, sig.name, sig.value)
            if kind is None:
                continue
            loc, facing = _pose(ev, sig.s, sig.t, sig.h_offset)
            signs.append(
                SignPlacement(
                    kind[0],
                    sig.id,
                    road.id,
                    sig.s,
                    sig.t,
                    _actor_transform(loc, facing, 0.0),
                    kind[1],
                    False,
                )
            )
        for obj in road.objects:
            match = _SPEED_OBJECT.fullmatch(obj.name)
            if match is None or int(match.group(1)) not in SPEED_LIMITS:
                continue
            limit = int(match.group(1))
            blueprint = f"traffic.speed_limit.{limit}"
            if any(
                p.from_object
                and p.road_id == road.id
                and p.blueprint_id == blueprint
                and abs(p.s - obj.s) < _SAME_POINT
                and abs(p.t - obj.t) < _SAME_POINT
                for p in signs
            ):
                continue
            loc, facing = _pose(ev, obj.s, obj.t, obj.hdg)
            signs.append(
                SignPlacement(
                    blueprint,
                    obj.id,
                    road.id,
                    obj.s,
                    obj.t,
                    _actor_transform(loc, facing, 0.0),
                    float(limit),
                    True,
                )
            )
    return TrafficPlacement(lights, signs, groups)
