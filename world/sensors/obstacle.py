"""sensor.other.obstacle: the nearest actor in a box swept ahead of the sensor.

CARLA sweeps a sphere of `hit_radius` from the sensor along its forward vector
for `distance` metres and reports the first actor hit and how far along the
sweep it was. Here the sweep is a box: each actor's box is grown by
`hit_radius` on every side and a ray from the sensor along its forward vector
is clipped against it (slab test in the box's frame), for all actors at once.
`only_dynamics` keeps only vehicles and walkers; otherwise props and other
actors with a box count too. The parent and the sensor never count. One event
per measurement when something is in range, none otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from world.actors.vehicle_state import ActorType
from world.geometry import rotation_matrices
from world.sensors.base import SensorBehaviour, SensorContext, attribute_bool, attribute_float
from world.sensors.data import ObstacleDetectionEvent

__all__ = ["ObstacleSensor", "sweep_hits"]


def sweep_hits(
    origin: np.ndarray,
    direction: np.ndarray,
    length: float,
    radius: float,
    centres: np.ndarray,
    axes: np.ndarray,
    extents: np.ndarray,
) -> np.ndarray:
    """Distance along the sweep at which each box (N) is first met, +inf when never.

    `axes[n]` has the box's forward, right and up vectors as columns; a sweep
    that starts inside a grown box meets it at 0.
    """
    rel = np.einsum("nij,ni->nj", axes, origin[None, :] - centres)
    dirl = np.einsum("nij,i->nj", axes, direction)
    half = extents + radius
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (-half - rel) / dirl
        t2 = (half - rel) / dirl
    parallel = np.abs(dirl) < 1e-12
    outside = parallel & (np.abs(rel) > half)
    t_lo = np.where(parallel, -np.inf, np.minimum(t1, t2))
    t_hi = np.where(parallel, np.inf, np.maximum(t1, t2))
    enter = np.max(t_lo, axis=1)
    leave = np.min(t_hi, axis=1)
    hit = (enter <= leave) & (leave >= 0.0) & (enter <= length) & ~outside.any(axis=1)
    return np.where(hit, np.maximum(enter, 0.0), np.inf)


class ObstacleSensor(SensorBehaviour):
    """Detects what stands ahead of its parent."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.distance = attribute_float(attributes, "distance", 5.0)
        self.hit_radius = attribute_float(attributes, "hit_radius", 0.5)
        self.only_dynamics = attribute_bool(attributes, "only_dynamics", False)

    def measure(self, ctx: SensorContext) -> list[ObstacleDetectionEvent]:
        table = ctx.world.state_tables().actors
        n = table.n
        rows = np.arange(n)
        kind = table.kind[:n]
        keep = table.alive[:n] & np.any(table.extent[:n] > 0.0, axis=1)
        if self.only_dynamics:
            keep &= (kind == ActorType.Vehicle) | (kind == ActorType.Walker)
        else:
            keep &= kind != ActorType.Sensor
        parent = self.sensor.parent
        for actor in (self.sensor, parent):
            if actor is not None:
                keep &= rows != actor.id - 1
        rows = rows[keep]
        if rows.size == 0:
            return []
        rot = table.rot[rows]
        axes = rotation_matrices(rot[:, 0], rot[:, 1], rot[:, 2])
        centres = table.pos[rows] + np.einsum("nij,nj->ni", axes, table.box_loc[rows])
        transform = self.sensor.get_transform()
        origin = transform.location.as_array()
        forward = transform.get_forward_vector().as_array()
        dist = sweep_hits(
            origin, forward, self.distance, self.hit_radius, centres, axes, table.extent[rows]
        )
        best = int(np.argmin(dist))
        if not np.isfinite(dist[best]):
            return []
        return [
            ObstacleDetectionEvent(
                ctx.frame,
                ctx.timestamp,
                transform,
                actor=parent,
                other_actor=ctx.world.get_actor(int(rows[best]) + 1),
                distance=float(dist[best]),
            )
        ]
