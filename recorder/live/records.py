"""The per-tick records of a frame, packed straight from the world's struct-of-arrays tables.

Rows come in actor id order, as `ACarlaRecorder::Ticking` visits the registry: Position for
every plain actor, vehicle and walker; AnimVehicle and VehicleLight for vehicles;
AnimWalker for walkers; Kinematics (additional data) for vehicles and walkers together;
State for the traffic lights. `FramePacker` hands the tables' columns to one compiled
call (recorder.live.tick_packing.pack_frame), which lays the whole frame out, with the event
packets the recorder packed, in the log writer's frame buffer and, to a file, writes it:
no Python loop runs over the actors, and a frame with no event costs no Python work per
packet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recorder.errors import RecorderError

__all__ = [
    "CHANGED",
    "KIND_OTHER",
    "KIND_SENSOR",
    "KIND_TRAFFIC_LIGHT",
    "KIND_TRAFFIC_SIGN",
    "KIND_VEHICLE",
    "KIND_WALKER",
    "LAID_OUT",
    "POSED",
    "WRITTEN",
    "FramePacker",
]

# CARLA's FCarlaActor::ActorType, the kind the log's EventAdd carries (the world's `kind`).
KIND_OTHER, KIND_VEHICLE, KIND_WALKER = 0, 1, 2
KIND_TRAFFIC_LIGHT, KIND_TRAFFIC_SIGN, KIND_SENSOR = 3, 4, 5

# FramePacker.pack's answers (recorder.live.tick_packing's, which is imported when a recorder
# starts): the frame is written; laid out (the writer writes it); laid out with a walker's
# bones posed (the caller puts WalkerBones first); the world changed since the last frame
WRITTEN, LAID_OUT, POSED, CHANGED = 0, 1, 2, -1


class FramePacker:
    """A frame's bytes from the world's tables, laid out in a LogWriter's frame buffer.

    The compiled pass reads the tables' columns through a table of their addresses
    (recorder.live.tick_packing), made when the packer first sees the tables and made again
    whenever a table has grown (growth is what replaces a table's arrays, world/state.py):
    the packer holds every column it took, so an address never outlives its array. The
    same table holds the packer's copies of the last frame's alive flags and doors."""

    def __init__(self, lights: Any) -> None:
        """`lights`: the world's TrafficLightViews, or None for a world without lights."""
        from recorder.live import tick_packing  # numba: compiled when a recorder starts

        self._kernels = tick_packing
        answers = (tick_packing.WRITTEN, tick_packing.LAID_OUT, tick_packing.POSED)
        assert (*answers, tick_packing.CHANGED) == (WRITTEN, LAID_OUT, POSED, CHANGED)
        self._pack_frame = tick_packing.compiled_pack_frame()
        self._lights = lights
        if lights is None:
            self._light_columns: dict[str, np.ndarray] = {
                "ids": np.zeros(0, np.int64),
                "controller": np.zeros(0, np.int64),
                "controller_elapsed": np.zeros(0, np.float32),
                "state": np.zeros(0, np.int8),
            }
        else:
            self._light_columns = {
                name: getattr(lights, name)
                for name in ("ids", "controller", "controller_elapsed", "state")
            }
        slots = len(tick_packing.COLUMNS) + len(tick_packing.SLOTS)
        self._columns = np.zeros(slots, np.int64)
        self._slot = {
            name: len(tick_packing.COLUMNS) + k for k, name in enumerate(tick_packing.SLOTS)
        }
        self._columns[self._slot["seen"]] = -1  # no frame packed yet: the world has changed
        self._held: tuple[np.ndarray, ...] = ()  # the arrays whose addresses the table holds
        self._tables: Any = None
        self._capacities: tuple[int, int, int] = (-1, -1, -1)
        self._last_alive = np.zeros(0, np.bool_)
        self._last_doors = np.zeros(0, np.uint8)

    def pack(
        self,
        writer: Any,
        tables: Any,
        times: tuple[float, float, float],
        additional: bool,
        check: bool,
        blocks: tuple[np.ndarray, int, int, int],
    ) -> tuple[int, int, int]:
        """Lays the frame out in `writer.frame_buffer` where the writer's stream says the
        next frame goes (made room for as needed) and, when it can, writes it: `times` are
        the last frame's duration and the visual and platform times.

        With `check`, first compares the world with the last frame packed (actor rows,
        alive flags, doors) and answers CHANGED, having written nothing, when they differ.
        `blocks` are the laid-out packets EventAdd..VehicleDoor, SceneLight..Weather,
        BoundingBox..TriggerVolume and PhysicsControl..TrafficLightTime as one uint8 array
        and where the last three start. Answers as tick_packing.pack_frame: WRITTEN, or
        LAID_OUT with the body's end (the caller has the writer write the frame), or POSED
        with the body's end and where WalkerBones starts (the caller puts WalkerBones there
        first), or CHANGED."""
        actors, vehicles, walkers = tables
        if tables != self._tables or self._capacities != (
            actors.capacity,
            vehicles.capacity,
            walkers.capacity,
        ):
            self._take_columns(tables)
        lights = self._lights
        frozen = False if lights is None else lights.frozen
        while True:
            answer, at, bones_at = self._pack_frame(
                writer.frame_buffer,
                writer.stream,
                *times,
                check,
                *blocks,
                additional,
                self._columns,
                actors.n,
                walkers.n,
                vehicles.n,
                frozen,
            )
            if answer >= 0 or answer == CHANGED:
                return answer, at, bones_at
            if answer == self._kernels.TOO_MANY:
                raise RecorderError(f"{at} records of one packet exceed a uint16 count")
            assert answer == self._kernels.NO_ROOM
            writer.make_frame_room(at)

    def _take_columns(self, tables: Any) -> None:
        """The address table of the tables' columns, the lights' arrays and the packer's
        copies of the last frame (grown with the tables, keeping what they hold)."""
        actors, vehicles, walkers = tables
        sources = {"actors": actors, "vehicles": vehicles, "walkers": walkers}
        held = []
        for k, (table, name, dtype, row) in enumerate(self._kernels.COLUMNS):
            if table == "lights":
                column = self._light_columns[name]
            else:
                column = getattr(sources[table], name)
            if column.dtype != dtype or column.shape[1:] != row or not column.flags.c_contiguous:
                raise RecorderError(
                    f"the world's {table}.{name} is {column.dtype} {column.shape[1:]}, "
                    f"the recorder reads {np.dtype(dtype)} {row}, C-contiguous"
                )
            held.append(column)
            self._columns[k] = column.ctypes.data
        self._last_alive = _grown(self._last_alive, actors.capacity)
        self._last_doors = _grown(self._last_doors, vehicles.capacity)
        held += [self._last_alive, self._last_doors]
        slot, columns = self._slot, self._columns
        columns[slot["last_alive"]] = self._last_alive.ctypes.data
        columns[slot["last_alive_length"]] = len(self._last_alive)
        columns[slot["last_doors"]] = self._last_doors.ctypes.data
        columns[slot["last_doors_length"]] = len(self._last_doors)
        columns[slot["lights"]] = len(self._light_columns["ids"])
        columns[slot["controllers"]] = len(self._light_columns["controller_elapsed"])
        if len(self._light_columns["controller"]) != columns[slot["lights"]]:
            raise RecorderError("the lights' controller and id arrays differ in length")
        self._held = tuple(held)
        self._tables = tables
        self._capacities = (actors.capacity, vehicles.capacity, walkers.capacity)


def _grown(copy: np.ndarray, length: int) -> np.ndarray:
    """`copy` at least `length` long, what it holds kept."""
    if len(copy) >= length:
        return copy
    out = np.zeros(length, copy.dtype)
    out[: len(copy)] = copy
    return out
