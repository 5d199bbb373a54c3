"""sensor.other.collision: one CollisionEvent per other actor the parent touched in a tick.

The world's collision events of the tick (world.collision_events(), one per
touching pair) are read for the parent; a pair gives one event per tick, in the
world's event order, with the impulse the parent received (N·s).
"""

from __future__ import annotations

from world.geometry import Vector3D
from world.sensors.base import SensorBehaviour, SensorContext
from world.sensors.data import CollisionEvent

__all__ = ["CollisionSensor"]


class CollisionSensor(SensorBehaviour):
    """Reports the parent's collisions."""

    def measure(self, ctx: SensorContext) -> list[CollisionEvent]:
        events = ctx.world.collision_events()
        if not events:
            return []  # most ticks: no parent's handle or pose to read
        parent = self.sensor.parent
        if parent is None:
            return []
        transform = self.sensor.get_transform()
        out: list[CollisionEvent] = []
        seen: set[int] = set()
        for event in events:
            if event.actor_id == parent.id:
                other, impulse = event.other_id, event.normal_impulse
            elif event.other_id == parent.id:
                other, impulse = event.actor_id, -event.normal_impulse
            else:
                continue
            if other in seen:
                continue
            seen.add(other)
            out.append(
                CollisionEvent(
                    ctx.frame,
                    ctx.timestamp,
                    transform,
                    actor=parent,
                    other_actor=ctx.world.get_actor(other),
                    normal_impulse=Vector3D(impulse.x, impulse.y, impulse.z),
                )
            )
        return out
