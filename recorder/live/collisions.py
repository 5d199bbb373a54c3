"""Collisions as CARLA's collision sensors report them to the recorder.

In CARLA each `sensor.other.collision` hears its parent's hits and calls the recorder's
AddCollision(parent, other) once per (frame, parent, other): the sensor keeps a private
registry of the pairs it reported in the current frame. Every call takes the next
collision number; the frame keeps one record per (id1, id2) pair, the first.

`CollisionRecorder` does the same from the world's collision events of the tick
(`World.collision_events()`, one per touching pair): for each collision sensor that was in
the world during the tick (spawned before it, destroyed after it or not at all), in
sensor id order, each event of its parent in the world's order. The frame's records go
through CARLA's `std::unordered_set` (recorder.logfile.hash_order.CollisionSet, kept
across frames with its bucket count, as CARLA's recorder keeps it): a repeated pair keeps
its first record, and the log holds them in the set's iteration order, libc++'s (CARLA's
Linux server) unless another library is asked for.

When a recorded collision sensor is destroyed, the record call that sees it gone first
gathers what it reported during its last tick, then releases its registry; the sensor's
EventDel is the frame's ordinary deletion, written once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recorder.logfile.hash_order import LIBCXX, CollisionSet
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import DTYPES

__all__ = ["COLLISION_SENSOR", "NOT_AN_ACTOR", "CollisionRecorder"]

COLLISION_SENSOR = "sensor.other.collision"
NOT_AN_ACTOR = 0xFFFFFFFF  # CARLA's id for a hit on something that is not a CARLA actor
_NO_COLLISIONS = np.zeros(0, DTYPES[PacketId.Collision])
_NO_COLLISIONS.flags.writeable = False


class CollisionRecorder:
    """Per-sensor registries and the collision number, from the recorder's start."""

    def __init__(self, library: str = LIBCXX) -> None:
        self.next_id = 0
        self._registries: dict[int, set[tuple[int, int, int]]] = {}
        self._frame = CollisionSet(library)  # CARLA's per-frame set, cleared by each frame
        # whether some collision sensor is recorded (then every frame collects)
        self.watching = False

    @property
    def sensors(self) -> list[int]:
        """The ids of the collision sensors whose registries are held, in id order."""
        return sorted(self._registries)

    def watch(self, sensor_id: int) -> None:
        """Starts the registry of a newly recorded collision sensor."""
        self._registries.setdefault(sensor_id, set())
        self.watching = True

    def collect(self, world: Any, hero: dict[int, bool]) -> np.ndarray:
        """The Collision records of the tick just made, and each sensor's registry updated."""
        if not self._registries:
            return _NO_COLLISIONS
        actors = world.state_tables().actors
        frame = int(world.get_snapshot().timestamp.frame)
        events = world.collision_events()
        kept = self._frame
        for sensor in sorted(self._registries):
            registry = self._registries[sensor]
            stale = [entry for entry in registry if entry[0] < frame]
            registry.difference_update(stale)
            row = sensor - 1
            parent = int(actors.spawn_parent[row]) + 1
            died = int(actors.destroy_frame[row])
            was_there = int(actors.spawn_frame[row]) < frame and (died < 0 or died >= frame)
            if parent == 0 or not was_there:
                continue
            for event in events:
                if event.actor_id == parent:
                    other = event.other_id
                elif event.other_id == parent:
                    other = event.actor_id
                else:
                    continue
                entry = (frame, parent, other)
                if entry in registry:
                    continue
                registry.add(entry)
                number = self.next_id
                self.next_id += 1
                row = (number, parent, other, hero.get(parent, False), hero.get(other, False))
                kept.add(parent, other, row)
        rows = kept.records()
        kept.clear()
        return np.array(rows, DTYPES[PacketId.Collision])

    def release(self, gone_ids: np.ndarray) -> None:
        """Drops the registries of destroyed sensors (the ids of the frame's deletions)."""
        for actor_id in gone_ids.tolist():
            self._registries.pop(int(actor_id), None)
        self.watching = bool(self._registries)
