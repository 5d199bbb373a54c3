"""The per-tick records of a frame, packed straight from the world's struct-of-arrays tables.

Rows come in actor id order, as `ACarlaRecorder::Ticking` visits the registry: Position for
every plain actor, vehicle and walker; AnimVehicle and VehicleLight for vehicles;
AnimWalker for walkers; Kinematics (additional data) for vehicles and walkers together;
State for the traffic lights. `FramePacker` packs them with compiled passes
(recorder.tick_packing) and lays the whole frame out, with the event packets the recorder
packed, in one reused byte buffer that the log writer writes at once: no Python loop runs
over the actors, and a frame with no event costs no Python work per packet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recorder.errors import RecorderError
from recorder.writer import FRAME_END_SIZE, FRAME_START_SIZE

__all__ = [
    "KIND_OTHER",
    "KIND_SENSOR",
    "KIND_TRAFFIC_LIGHT",
    "KIND_TRAFFIC_SIGN",
    "KIND_VEHICLE",
    "KIND_WALKER",
    "FramePacker",
]

# CARLA's FCarlaActor::ActorType, the kind the log's EventAdd carries (the world's `kind`).
KIND_OTHER, KIND_VEHICLE, KIND_WALKER = 0, 1, 2
KIND_TRAFFIC_LIGHT, KIND_TRAFFIC_SIGN, KIND_SENSOR = 3, 4, 5

# FrameStart, FrameEnd, and the heads, counts and times of the packets pack_frame writes
_FIXED_SIZE = FRAME_START_SIZE + FRAME_END_SIZE + 128


class FramePacker:
    """A frame's bytes from the world's tables in a reused buffer (`frame`, one of two in
    turn): its first `FRAME_START_SIZE` bytes left for FrameStart, the packets, room for
    FrameEnd."""

    def __init__(self) -> None:
        from recorder import tick_packing  # numba: compiled when a recorder starts

        self._kernels = tick_packing
        self._buffers = tick_packing.TickBuffers()
        # two frame buffers, used in turn: the log writer reads the last frame again when it
        # writes the next (LogWriter.write_frame_in)
        self._frames = [np.zeros(1 << 16, np.uint8), np.zeros(1 << 16, np.uint8)]
        self.frame = self._frames[0]
        self._vehicle_size = self._buffers.anim.itemsize + 8  # AnimVehicle and VehicleLight
        self._light_size = self._buffers.states.itemsize
        self._no_lights = (
            np.zeros(0, np.int64),
            np.zeros(0, np.int8),
            np.zeros(0, np.int64),
            np.zeros(0, np.float32),
            False,
        )

    def pack(
        self,
        tables: Any,
        lights: Any,
        additional: bool,
        times: tuple[float, float],
        blocks: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    ) -> tuple[int, int, bool]:
        """Lays out the frame's packets from VisualTime on: `times` are the visual and
        platform times, `blocks` the laid-out packets EventAdd..VehicleDoor,
        SceneLight..Weather, BoundingBox..TriggerVolume and PhysicsControl..TrafficLightTime
        (uint8 arrays). Returns the body's end, where WalkerBones starts and whether a walker
        has bones posed (then the caller puts WalkerBones there with `put`)."""
        actors, vehicles, walkers = tables
        b = self._buffers
        if lights is None:
            ids, state, controller, elapsed, frozen = self._no_lights
        else:
            ids, state, controller = lights.ids, lights.state, lights.controller
            elapsed, frozen = lights.controller_elapsed, lights.frozen
        n, n_lights = actors.n, len(ids)
        b.fit(max(n, vehicles.n, walkers.n, n_lights))
        need = (
            _FIXED_SIZE
            + len(blocks[0])
            + len(blocks[1])
            + len(blocks[2])
            + len(blocks[3])
            + 56 * n  # Position and Kinematics rows
            + vehicles.n * self._vehicle_size
            + walkers.n * 14  # AnimWalker and bare WalkerBones rows
            + n_lights * self._light_size
        )
        self._frames.reverse()
        if need > len(self._frames[0]):
            self._frames[0] = np.zeros(2 * need, np.uint8)
        self.frame = self._frames[0]
        end, bones_at, posed, largest = self._kernels.pack_frame(
            self.frame,
            times[0],
            times[1],
            *blocks,
            additional,
            actors.alive,
            actors.kind,
            actors.pos,
            actors.rot,
            actors.vel,
            actors.angvel,
            actors.n,
            walkers.actor,
            walkers.speed,
            walkers.bones,
            walkers.n,
            vehicles.actor,
            vehicles.steer,
            vehicles.throttle,
            vehicles.brake,
            vehicles.hand_brake,
            vehicles.gear,
            vehicles.lights,
            vehicles.n,
            ids,
            frozen,
            controller,
            elapsed,
            state,
            *b.staging,
        )
        if largest > 0xFFFF:
            raise RecorderError(f"{largest} records of one packet exceed a uint16 count")
        return end, bones_at, posed

    def put(self, at: int, raw: bytes) -> int:
        """Writes `raw` into the frame at `at` (growing the buffer, keeping what is before
        `at`, and room for FrameEnd); returns its end."""
        end = at + len(raw)
        if end + FRAME_END_SIZE > len(self.frame):
            grown = np.zeros(2 * (end + FRAME_END_SIZE), np.uint8)
            grown[:at] = self.frame[:at]
            self.frame = self._frames[0] = grown
        self.frame[at:end] = np.frombuffer(raw, np.uint8)
        return end
