"""The leaderboard's pseudo-sensors: a speedometer and the OpenDRIVE map, read on demand.

They are not world actors: an agent lists them in its `sensors()` with types
`sensor.speedometer` and `sensor.opendrive_map` and reads them each step, as
the leaderboard's SpeedometerReader and OpenDriveMapReader give them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OpenDriveMapReader", "SpeedometerReader"]


class SpeedometerReader:
    """`{'speed': m/s}`: the vehicle's velocity along its forward vector (negative reversing)."""

    def __init__(self, vehicle: Any) -> None:
        self.vehicle = vehicle

    def read(self) -> dict[str, float]:
        velocity = self.vehicle.get_velocity()
        forward = self.vehicle.get_transform().get_forward_vector()
        return {"speed": velocity.dot(forward)}


class OpenDriveMapReader:
    """`{'opendrive': text}`: the world's map as OpenDRIVE XML."""

    def __init__(self, world: Any) -> None:
        self.world = world

    def read(self) -> dict[str, str]:
        return {"opendrive": self.world.get_map().to_opendrive()}
