"""A tick's frozen state: WorldSnapshot, ActorSnapshot and Timestamp (CARLA's names).

The snapshot copies the pose and motion columns of the live actors once per
tick, so reading it later never sees a newer tick. `platform_timestamp` is the
only wall-clock-like field in CARLA; lockstep has no wall clock in a run and
sets it to 0.0, so snapshots (and logs) are identical between runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from world.geometry import Location, Rotation, Transform, Vector3D
from world.kernels.compiled import njit

__all__ = ["ActorSnapshot", "Timestamp", "WorldSnapshot", "settle_and_copy"]


@dataclass(frozen=True, slots=True)
class Timestamp:
    """Frame count, simulated seconds since the episode began, this tick's step, platform time."""

    frame: int = 0
    elapsed_seconds: float = 0.0
    delta_seconds: float = 0.0
    platform_timestamp: float = 0.0

    @property
    def frame_count(self) -> int:
        return self.frame

    def __str__(self) -> str:
        return (
            f"Timestamp(frame={self.frame}, elapsed_seconds={self.elapsed_seconds}, "
            f"delta_seconds={self.delta_seconds}, platform_timestamp={self.platform_timestamp})"
        )


def _vec(row: np.ndarray) -> Vector3D:
    return Vector3D(float(row[0]), float(row[1]), float(row[2]))


class ActorSnapshot:
    """One actor's pose and motion at the snapshot's tick."""

    __slots__ = ("_block", "_i", "id")

    def __init__(self, snap: WorldSnapshot, index: int) -> None:
        self._block = snap._block
        self._i = index
        self.id = int(snap._ids[index])

    def get_transform(self) -> Transform:
        p, r = self._block[0, self._i], self._block[1, self._i]
        return Transform(
            Location(float(p[0]), float(p[1]), float(p[2])),
            Rotation(float(r[0]), float(r[1]), float(r[2])),
        )

    def get_velocity(self) -> Vector3D:
        return _vec(self._block[2, self._i])

    def get_angular_velocity(self) -> Vector3D:
        """Degrees per second, as CARLA reports it."""
        return _vec(self._block[3, self._i])

    def get_acceleration(self) -> Vector3D:
        return _vec(self._block[4, self._i])

    def __repr__(self) -> str:
        return f"ActorSnapshot(id={self.id})"


class WorldSnapshot:
    """Every live actor's state at one tick, iterated in id order."""

    def __init__(
        self,
        world_id: int,
        frame: int,
        elapsed_seconds: float,
        delta_seconds: float,
        ids: np.ndarray,
        columns: np.ndarray,
    ) -> None:
        """`columns`: (5, len(ids), 3), the actors' pos, rot, vel, angvel and acc in the
        actor table's units (settle_and_copy's block). The Timestamp of `frame`,
        `elapsed_seconds` and `delta_seconds` is made when first asked (a tick's snapshot is
        made every tick, its timestamp read on some)."""
        self.id = world_id
        self._frame = frame
        self._elapsed = elapsed_seconds
        self._delta = delta_seconds
        self._timestamp: Timestamp | None = None
        self._ids = ids
        self._block = columns

    @property
    def timestamp(self) -> Timestamp:
        if self._timestamp is None:
            self._timestamp = Timestamp(self._frame, self._elapsed, self._delta, 0.0)
        return self._timestamp

    @property
    def frame(self) -> int:
        return self._frame

    # CARLA's deprecated names, still bound: the timestamp's fields on the snapshot itself
    @property
    def frame_count(self) -> int:
        return self._frame

    @property
    def elapsed_seconds(self) -> float:
        return self._elapsed

    @property
    def delta_seconds(self) -> float:
        return self._delta

    @property
    def platform_timestamp(self) -> float:
        return 0.0

    def _index(self, actor_id: int) -> int:
        i = int(np.searchsorted(self._ids, actor_id))
        return i if i < len(self._ids) and int(self._ids[i]) == actor_id else -1

    def has_actor(self, actor_id: int) -> bool:
        return self._index(int(actor_id)) >= 0

    def find(self, actor_id: int) -> ActorSnapshot | None:
        i = self._index(int(actor_id))
        return ActorSnapshot(self, i) if i >= 0 else None

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[ActorSnapshot]:
        return (ActorSnapshot(self, i) for i in range(len(self._ids)))

    def __repr__(self) -> str:
        return f"WorldSnapshot(frame={self.frame}, actors={len(self)})"


@njit(cache=True)
def settle_and_copy(pos, rot, vel, angvel, acc, n, ids):
    """The end of a tick in one compiled call: the yaws of the actor table's first `n` rows in
    CARLA's range (-180, 180] (world.geometry.wrap_yaw's test and arithmetic: none moves when
    a yaw is NaN, as the test by numpy's reductions has it), then the snapshot's columns, a
    (5, len(ids), 3) block of pos, rot, vel, angvel and acc at the rows of actor `ids`."""
    outside = False
    for r in range(n):
        yaw = rot[r, 1]
        if yaw != yaw:
            outside = False
            break
        if yaw > 180.0 or yaw <= -180.0:
            outside = True
    if outside:
        for r in range(n):
            yaw = rot[r, 1]
            if yaw > 180.0 or yaw <= -180.0:
                rot[r, 1] = yaw - 360.0 * np.ceil((yaw - 180.0) / 360.0)
    block = np.empty((5, len(ids), 3))
    for k in range(len(ids)):
        r = ids[k] - 1
        for i in range(3):
            block[0, k, i] = pos[r, i]
            block[1, k, i] = rot[r, i]
            block[2, k, i] = vel[r, i]
            block[3, k, i] = angvel[r, i]
            block[4, k, i] = acc[r, i]
    return block
