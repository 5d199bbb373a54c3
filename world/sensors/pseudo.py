"""The leaderboard's pseudo-sensors: a speedometer and the OpenDRIVE map, read on demand.

They are not world actors: an agent lists them in its `sensors()` with types
`sensor.speedometer` and `sensor.opendrive_map` and reads them each step, as
the leaderboard's SpeedometerReader and OpenDriveMapReader give them.
"""

from __future__ import annotations

import math
from typing import Any

from world import elementary as el

__all__ = ["OpenDriveMapReader", "SpeedometerReader"]


class SpeedometerReader:
    """`{'speed': m/s}`: the vehicle's velocity along its forward vector (negative reversing)."""

    def __init__(self, vehicle: Any) -> None:
        self.vehicle = vehicle

    def read(self) -> dict[str, float]:
        """`get_velocity().dot(get_transform().get_forward_vector())`, its operations in their
        order on the actor table's numbers, without the five objects of the readings (an
        agent reads it every step)."""
        row = self.vehicle.id - 1
        actors = self.vehicle.get_world().state_tables().actors
        vx, vy, vz = actors.vel[row].tolist()
        pitch, yaw, roll = actors.rot[row].tolist()
        cp, sp, cy, sy, _cr, _sr = el.cos_sin3(
            math.radians(pitch), math.radians(yaw), math.radians(roll)
        )
        return {"speed": vx * (cy * cp) + vy * (sy * cp) + vz * sp}


class OpenDriveMapReader:
    """`{'opendrive': text}`: the world's map as OpenDRIVE XML."""

    def __init__(self, world: Any) -> None:
        self.world = world

    def read(self) -> dict[str, str]:
        return {"opendrive": self.world.get_map().to_opendrive()}
