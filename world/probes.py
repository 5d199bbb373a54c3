"""Rays and projections against the world (CARLA's cast_ray, project_point,
ground_projection) and the level's boxes (get_level_bbs, get_environment_objects).

lockstep's level is its road surfaces and its actors: a ray meets the ground where it
passes below the map's surface (`Map.ground`, found by marching the ray in RAY_STEP steps
and bisecting the step that crosses) and meets an actor where it enters the actor's
oriented box (slab test). Surfaces are labelled Roads, Sidewalks or Ground by the lane
under the point; actors by their semantic tag. The level's boxes are those of the map's
traffic lights and signs: lockstep has no building, pole or vegetation meshes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from world.actors.vehicle_state import ActorType, CityObjectLabel
from world.geometry import BoundingBox, Location, Rotation, Transform, Vector3D

__all__ = [
    "EnvironmentObject",
    "LabelledPoint",
    "cast_ray",
    "environment_objects",
    "ground_projection",
    "level_boxes",
    "project_point",
]

RAY_STEP = 0.25  # m between the ray's ground samples
_BISECTIONS = 40


@dataclass(slots=True)
class LabelledPoint:
    """A point a ray or projection found, and the semantic label of what it hit."""

    location: Location
    label: CityObjectLabel


@dataclass(slots=True)
class EnvironmentObject:
    """One object of the level: its id (the actor's), name, label, pose and box."""

    id: int
    name: str
    type: CityObjectLabel
    transform: Transform = field(default_factory=Transform)
    bounding_box: BoundingBox = field(default_factory=BoundingBox)


def _surface_label(world_map: Any, point: np.ndarray) -> CityObjectLabel:
    from world.map.lane_enums import LaneType

    if not hasattr(world_map, "get_waypoint"):
        return CityObjectLabel.Ground
    location = Location(float(point[0]), float(point[1]), float(point[2]))
    waypoint = world_map.get_waypoint(location, project_to_road=False, lane_type=LaneType.Any)
    if waypoint is None:
        return CityObjectLabel.Ground
    if waypoint.lane_type == LaneType.Sidewalk:
        return CityObjectLabel.Sidewalks
    return CityObjectLabel.Roads


def _ground_z(world_map: Any, points: np.ndarray, top: float) -> np.ndarray:
    """The highest surface at or below height `top` under each point's (x, y) (-inf where
    there is none)."""
    lowered = points.copy()
    lowered[:, 2] = top - 1.0  # Map.ground looks up to 1 m above a point
    sample = world_map.ground(lowered)
    return np.where(sample.found, sample.z, -np.inf)


def _ground_hits(world_map: Any, start: np.ndarray, end: np.ndarray) -> list[float]:
    """Fractions along start -> end where the ray passes from above the ground to below."""
    length = math.sqrt(
        sum((b - a) * (b - a) for a, b in zip(start.tolist(), end.tolist(), strict=True))
    )
    steps = max(1, math.ceil(length / RAY_STEP))
    t = np.linspace(0.0, 1.0, steps + 1)
    points = start + t[:, None] * (end - start)
    top = max(float(start[2]), float(end[2]))
    above = points[:, 2] - _ground_z(world_map, points, top) > 0.0
    hits = []
    for k in np.flatnonzero(above[:-1] & ~above[1:]).tolist():
        lo, hi = float(t[k]), float(t[k + 1])
        for _ in range(_BISECTIONS):
            mid = 0.5 * (lo + hi)
            p = start + mid * (end - start)
            if p[2] - _ground_z(world_map, p[None], top)[0] > 0.0:
                lo = mid
            else:
                hi = mid
        hits.append(hi)
    return hits


def _box_hits(world: Any, start: np.ndarray, end: np.ndarray) -> list[tuple[float, int]]:
    """(fraction, actor id) where start -> end enters a live vehicle's or walker's box.
    (A loop over actors: a query a script makes, not part of the tick.)"""
    a = world.state_tables().actors
    n = a.n
    rows = np.flatnonzero(a.alive[:n] & a.body[:n])
    hits = []
    for row in rows.tolist():
        rotation = Rotation(*(float(v) for v in a.rot[row]))
        frame = Transform(Location(*(float(v) for v in a.pos[row])), rotation)
        p0 = frame.inverse_transform(Location(*start.tolist()))
        p1 = frame.inverse_transform(Location(*end.tolist()))
        box_centre, extent = a.box_loc[row], a.extent[row]
        lo_t, hi_t = 0.0, 1.0
        for axis, (u, v) in enumerate(((p0.x, p1.x), (p0.y, p1.y), (p0.z, p1.z))):
            lo_b = box_centre[axis] - extent[axis]
            hi_b = box_centre[axis] + extent[axis]
            d = v - u
            if d == 0.0:
                if u < lo_b or u > hi_b:
                    lo_t, hi_t = 1.0, 0.0
                    break
                continue
            t0, t1 = (lo_b - u) / d, (hi_b - u) / d
            lo_t, hi_t = max(lo_t, min(t0, t1)), min(hi_t, max(t0, t1))
        if lo_t <= hi_t:
            hits.append((lo_t, row + 1))
    return hits


def _actor_label(world: Any, actor_id: int) -> CityObjectLabel:
    tags = world.get_actor(actor_id).semantic_tags
    return CityObjectLabel(tags[0]) if tags else CityObjectLabel.Other


def cast_ray(world: Any, initial: Location, final: Location) -> list[LabelledPoint]:
    """Every point where the segment initial -> final meets the ground or an actor's box,
    nearest first."""
    start = np.array([initial.x, initial.y, initial.z], dtype=np.float64)
    end = np.array([final.x, final.y, final.z], dtype=np.float64)
    found: list[tuple[float, int, LabelledPoint]] = []
    world_map = world.get_map()
    for t in _ground_hits(world_map, start, end):
        p = start + t * (end - start)
        found.append((t, 0, LabelledPoint(Location(*p.tolist()), _surface_label(world_map, p))))
    for t, actor_id in _box_hits(world, start, end):
        p = start + t * (end - start)
        label = _actor_label(world, actor_id)
        found.append((t, actor_id, LabelledPoint(Location(*p.tolist()), label)))
    return [point for _t, _id, point in sorted(found, key=lambda f: (f[0], f[1]))]


def project_point(
    world: Any, location: Location, direction: Vector3D, search_distance: float
) -> LabelledPoint | None:
    """The first thing the ray from `location` along `direction` meets within
    `search_distance`, or None."""
    length = direction.length()
    if length == 0.0 or search_distance <= 0.0:
        return None
    scale = search_distance / length
    end = Location(
        location.x + direction.x * scale,
        location.y + direction.y * scale,
        location.z + direction.z * scale,
    )
    hits = cast_ray(world, location, end)
    return hits[0] if hits else None


def ground_projection(
    world: Any, location: Location, search_distance: float
) -> LabelledPoint | None:
    """The first thing straight below `location` within `search_distance`, or None."""
    return project_point(world, location, Vector3D(0.0, 0.0, -1.0), search_distance)


_LEVEL_KINDS = {
    ActorType.TrafficLight: CityObjectLabel.TrafficLight,
    ActorType.TrafficSign: CityObjectLabel.TrafficSigns,
}


def environment_objects(
    world: Any, object_type: CityObjectLabel = CityObjectLabel.Any
) -> list[EnvironmentObject]:
    """The level's objects of `object_type`: the map's traffic lights and signs, in id
    order (their pole boxes in the world frame)."""
    a = world.state_tables().actors
    n = a.n
    out = []
    for row in np.flatnonzero(a.alive[:n]).tolist():
        label = _LEVEL_KINDS.get(int(a.kind[row]))
        if label is None or object_type not in (CityObjectLabel.Any, label):
            continue
        actor = world.get_actor(row + 1)
        transform = actor.get_transform()
        local = actor.bounding_box
        box = BoundingBox(transform.transform(local.location), local.extent)
        box.rotation = transform.rotation
        out.append(EnvironmentObject(row + 1, actor.type_id, label, transform, box))
    return out


def level_boxes(world: Any, actor_type: CityObjectLabel = CityObjectLabel.Any) -> list:
    """get_level_bbs: the boxes of environment_objects(actor_type)."""
    return [obj.bounding_box for obj in environment_objects(world, actor_type)]
