"""What every non-rendering sensor shares: `listen` / `stop` / `is_listening` and its tick rate.

A sensor's behaviour is stepped by the world inside `tick()`, in sensor id
order, after physics; a listening sensor's callback gets each measurement
there, on the caller's stack (no threads). `sensor_tick` (seconds, 0 = every
tick) spaces the measurements as CARLA's actor tick interval does: a sensor
measures on the first tick at which that much simulated time has gathered
since its last measurement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from world.kernels.cstdlib import c_atof
from world.sensors.data import SensorData

__all__ = ["SensorBehaviour", "SensorContext", "attribute_bool", "attribute_float"]

_TICK_EPSILON = 1e-9


def attribute_float(attributes: Mapping[str, str], key: str, default: float) -> float:
    """A blueprint attribute read as C's atof reads it, or `default` when absent."""
    return c_atof(attributes[key]) if key in attributes else default


def attribute_bool(attributes: Mapping[str, str], key: str, default: bool) -> bool:
    """A boolean attribute ("true"/"false", any case), or `default` when absent."""
    return attributes[key].strip().lower() == "true" if key in attributes else default


@dataclass(slots=True)
class SensorContext:
    """What a sensor sees of the tick being made: the world, the frame and the clock."""

    world: Any
    frame: int
    timestamp: float
    delta_seconds: float


class SensorBehaviour:
    """One sensor actor's listening state; subclasses make the measurements.

    `measures_unheard`: whether a due measurement is made with no callback set (the
    non-rendering sensors: their noise draws then do not depend on when one is set); a
    rendering sensor is not, and `skip` keeps its state moving instead (a LiDAR's sweep).
    """

    measures_unheard = True

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        self.sensor = sensor
        self._callback: Callable[[Any], None] | None = None
        self.sensor_tick = attribute_float(attributes, "sensor_tick", 0.0)
        self._gathered = 0.0
        self.elapsed = 0.0  # s since the last measurement was due (sensor_tick's spacing)

    @classmethod
    def check_available(cls, type_id: str) -> None:
        """Raises WorldError when the sensor needs an optional library that is missing."""

    def listen(self, callback: Callable[[Any], None]) -> None:
        """Every later measurement goes to `callback`."""
        self._callback = callback

    def stop(self) -> None:
        self._callback = None

    def is_listening(self) -> bool:
        return self._callback is not None

    def tick(self, ctx: SensorContext) -> None:
        """Follows the world one tick and, when due, measures and delivers."""
        self.observe(ctx)
        self._gathered += ctx.delta_seconds
        if self._gathered + _TICK_EPSILON < self.sensor_tick:
            return
        self.elapsed, self._gathered = self._gathered, 0.0
        if self._callback is None and not self.measures_unheard:
            self.skip(ctx)
            return
        for data in self.measure(ctx):
            if self._callback is not None:
                self._callback(data)

    def observe(self, ctx: SensorContext) -> None:
        """Keeps what the sensor must remember from every tick (none by default)."""

    def skip(self, ctx: SensorContext) -> None:
        """A due measurement nobody listens to (only when `measures_unheard` is False)."""

    def measure(self, ctx: SensorContext) -> list[SensorData]:
        """This tick's measurements, in delivery order."""
        raise NotImplementedError
