"""The event camera's data classes: carla.DVSEvent and carla.DVSEventArray.

Events are packed 13-byte records, as LibCarla's DVSEvent: uint16 x, uint16 y, int64 t
(nanoseconds of simulation time), bool pol (True: brighter), so
`np.frombuffer(events.raw_data, dtype=DVS_EVENT)` reads them as CARLA's examples do.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from world.actors.blueprints import Color
from world.sensors.data import SensorData

__all__ = ["DVS_EVENT", "DVSEvent", "DVSEventArray"]

DVS_EVENT = np.dtype([("x", "<u2"), ("y", "<u2"), ("t", "<i8"), ("pol", "?")])


@dataclass(slots=True)
class DVSEvent:
    """One brightness change: pixel (x, y), time t in nanoseconds, polarity."""

    x: int = 0
    y: int = 0
    t: int = 0
    pol: bool = False

    def __str__(self) -> str:
        return f"Event(x={self.x}, y={self.y}, t={self.t}, pol={int(self.pol)})"


@dataclass(slots=True)
class DVSEventArray(SensorData):
    """carla.DVSEventArray: the events of one measurement, sorted by time."""

    width: int = 0
    height: int = 0
    fov: float = 0.0
    buffer: bytearray = field(default_factory=bytearray, repr=False)

    @property
    def raw_data(self) -> memoryview:
        return memoryview(self.buffer).toreadonly()

    def events(self) -> np.ndarray:
        """The events as a structured array (a view of the buffer)."""
        return np.frombuffer(self.buffer, DVS_EVENT)

    def __len__(self) -> int:
        return len(self.buffer) // DVS_EVENT.itemsize

    def __getitem__(self, pos: int) -> DVSEvent:
        if not 0 <= int(pos) < len(self):
            raise IndexError(f"event index {pos} out of range ({len(self)} events)")
        e = self.events()[int(pos)]
        return DVSEvent(int(e["x"]), int(e["y"]), int(e["t"]), bool(e["pol"]))

    def __setitem__(self, pos: int, event: DVSEvent) -> None:
        if not 0 <= int(pos) < len(self):
            raise IndexError(f"event index {pos} out of range ({len(self)} events)")
        size = DVS_EVENT.itemsize
        record = np.array([(event.x, event.y, event.t, event.pol)], DVS_EVENT)
        self.buffer[size * pos : size * (pos + 1)] = record.tobytes()

    def __iter__(self) -> Iterator[DVSEvent]:
        return (self[i] for i in range(len(self)))

    def to_image(self) -> list:
        """A picture of the events as CARLA's: a list of H·W carla.Color (BGRA), blue where a
        pixel got brighter, red where darker, black elsewhere (alpha 0)."""
        blue = np.zeros(self.width * self.height, bool)
        red = np.zeros(self.width * self.height, bool)
        e = self.events()
        index = self.width * e["y"].astype(np.int64) + e["x"]
        blue[index[e["pol"]]] = True
        red[index[~e["pol"]]] = True
        return [Color(255 * int(r), 0, 255 * int(b), 0) for r, b in zip(red, blue, strict=True)]

    def to_array(self) -> list[list[int]]:
        """[[x, y, t, pol], ...] with pol as +1 or -1."""
        e = self.events()
        pol = 2 * e["pol"].astype(np.int64) - 1
        return np.stack([e["x"], e["y"], e["t"], pol], 1).astype(np.int64).tolist()

    def to_array_x(self) -> list[int]:
        return self.events()["x"].tolist()

    def to_array_y(self) -> list[int]:
        return self.events()["y"].tolist()

    def to_array_t(self) -> list[int]:
        return self.events()["t"].tolist()

    def to_array_pol(self) -> list[int]:
        return (2 * self.events()["pol"].astype(np.int64) - 1).tolist()

    def __str__(self) -> str:
        return (
            f"EventArray(frame={self.frame}, timestamp={self.timestamp:f}, "
            f"dimensions={self.width}x{self.height}, number_of_events={len(self)})"
        )
