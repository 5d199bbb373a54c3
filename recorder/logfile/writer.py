"""Writing CARLA recorder logs as a stream: the header, then each frame as it comes.

`LogWriter.write_frame` lays a frame out as `ACarlaRecorder::Write` does: the packets in CARLA's
order, the always-written ones even when empty, the others only when they hold records. Each
FrameStart is written with duration -1; when the next frame starts, the previous frame's
duration is patched in place, so the last frame keeps -1 and a crash leaves a readable log up to
the last complete frame. Lower-level `begin_frame`, `write_packet`, `write_raw_packet` and
`end_frame` write any packet sequence (JSON build uses them to reproduce any log exactly);
`write_frame_in` writes a frame the live recorder laid out in the writer's frame buffer, in one
write; the recorder's compiled pass (recorder.live.tick_packing) makes that same write itself
when it can, reading and advancing the writer's state in `stream`.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from recorder.errors import RecorderError
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import CODECS
from recorder.logfile.packets.base import pack_string
from recorder.logfile.packets.frame import FRAME_START
from recorder.logfile.reader import MAGIC

_PACKET_HEAD = struct.Struct("<BI")  # a packet's id byte and uint32 size
PACKET_HEAD_SIZE = _PACKET_HEAD.size
_FRAME_START = FRAME_START.struct
_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_FRAME_START_PACKET = struct.Struct(_PACKET_HEAD.format + _FRAME_START.format.lstrip("<"))
FRAME_START_SIZE = _FRAME_START_PACKET.size
FRAME_END_SIZE = PACKET_HEAD_SIZE
DURATION_AT = PACKET_HEAD_SIZE + FRAME_START.offsets["duration"]  # a FrameStart's duration
_PENDING_LIMIT = 1 << 16  # bytes a file of our own buffers before writing them

# ACarlaRecorder::Write's order: main packets, then those written only with additional data.
MAIN_ORDER = (
    PacketId.EventAdd,
    PacketId.EventDel,
    PacketId.EventParent,
    PacketId.Collision,
    PacketId.VehicleDoor,
    PacketId.Position,
    PacketId.State,
    PacketId.AnimVehicle,
    PacketId.AnimWalker,
    PacketId.VehicleLight,
    PacketId.SceneLight,
    PacketId.AnimVehicleWheels,
    PacketId.AnimBiker,
    PacketId.Weather,
)
ADDITIONAL_ORDER = (
    PacketId.Kinematics,
    PacketId.BoundingBox,
    PacketId.TriggerVolume,
    PacketId.PlatformTime,
    PacketId.PhysicsControl,
    PacketId.TrafficLightTime,
    PacketId.WalkerBones,
)
# Packets CARLA leaves out of a frame when they hold no record.
OMITTED_WHEN_EMPTY = frozenset(
    {
        PacketId.SceneLight,
        PacketId.Weather,
        PacketId.Kinematics,
        PacketId.TriggerVolume,
        PacketId.PhysicsControl,
        PacketId.TrafficLightTime,
    }
)

Records = Sequence[Any] | np.ndarray

# The writer's frame-by-frame state, in one int64 array (`LogWriter.stream`) that the live
# recorder's compiled pass reads and advances when it writes a frame itself
# (recorder.live.tick_packing): the file descriptor (-1: not a file of our own, or bytes wait to
# be handed to the OS before the next frame), the last frame's id, the frames written, the
# log's length, where the last frame's duration lies in the log, where the last frame lies in
# the frame buffer (-1: not the last thing written), where the next frame goes there, and
# the elapsed time (float64 bits).
STREAM_SLOTS = (
    "fd",
    "frame_id",
    "frames_written",
    "position",
    "previous_duration_at",
    "last_at",
    "frame_at",
    "elapsed",
)
(
    _FD,
    _FRAME_ID,
    _FRAMES_WRITTEN,
    _POSITION,
    _PREVIOUS_DURATION_AT,
    _LAST_AT,
    _FRAME_AT,
    _ELAPSED,
) = range(len(STREAM_SLOTS))


def _slot(index: int, doc: str) -> property:
    """An int attribute kept in the stream array."""

    def get(self: LogWriter) -> int:
        return int(self.stream[index])

    def set(self: LogWriter, value: int) -> None:
        self.stream[index] = value

    return property(get, set, doc=doc)


def frame_layout(
    packets: Mapping[PacketId, Records], additional_data: bool, frame_counter: bool = False
) -> list[PacketId]:
    """The packet ids CARLA writes between FrameStart and FrameEnd for these records."""
    order = [PacketId.VisualTime]
    if frame_counter:
        order.append(PacketId.FrameCounter)
    chosen = list(MAIN_ORDER) + (list(ADDITIONAL_ORDER) if additional_data else [])
    for pid in chosen:
        if pid not in OMITTED_WHEN_EMPTY or len(packets.get(pid, ())) > 0:
            order.append(pid)
    return order


class LogWriter:
    """A log written frame by frame to a path, an open binary file, or memory (`target=None`).

    Physics-control records carry their wheel layout (`wheel_size`: 48 by default, 36 or 208 on
    request). Use as a context manager or call `close()`; `getvalue()` gives the bytes of an
    in-memory log.
    """

    def __init__(
        self,
        target: str | Path | BinaryIO | None = None,
        *,
        map_name: str,
        date: int,
        version: int = 1,
        magic: str = MAGIC,
        additional_data: bool = False,
        frame_buffer_size: int = 1 << 18,
    ):
        if target is None:
            self._file: BinaryIO = io.BytesIO()
            self._owned = False
        elif isinstance(target, str | Path):
            # unbuffered: the writer buffers (`_pending`) and writes at offsets it keeps
            self._file = open(target, "wb", buffering=0)  # noqa: SIM115 - closed by close()
            self._owned = True
        else:
            self._file = target
            self._owned = False
        self.additional_data = additional_data
        self.stream = np.zeros(len(STREAM_SLOTS), np.int64)
        self._stream_f64 = self.stream.view(np.float64)
        self.visual_time = 0.0
        self.platform_time = 0.0
        self._in_frame = False
        self._position = 0 if self._owned or target is None else self._file.tell()
        # a file of our own: bytes not yet handed to the OS, the log's last ones
        self._fd = self._file.fileno() if self._owned else -1
        self.stream[_FD] = self._fd
        self._pending = bytearray()
        # write_frame_in's frames, laid out back to back in `frame_buffer` from `frame_at`
        # on; the last one stays before the next (whose write starts inside it), from
        # `_last_at` (-1 once anything else was written after it)
        self.frame_buffer = np.zeros(frame_buffer_size, np.uint8)
        self._frame_view = memoryview(self.frame_buffer)  # its bytes, cheaper to hand over
        self._last_at = -1
        self._write(struct.pack("<H", version) + pack_string(magic) + struct.pack("<q", date))
        self._write(pack_string(map_name))

    frame_id = _slot(_FRAME_ID, "The last frame's id.")
    frames_written = _slot(_FRAMES_WRITTEN, "Frames begun so far.")
    frame_at = _slot(_FRAME_AT, "Where write_frame_in's next frame goes in frame_buffer.")
    _position = _slot(_POSITION, "The log's length so far.")
    _previous_duration_at = _slot(_PREVIOUS_DURATION_AT, "The last frame's duration in the log.")
    _last_at = _slot(_LAST_AT, "The last frame in frame_buffer (-1: not the last written).")

    @property
    def elapsed(self) -> float:
        """The last frame's elapsed time."""
        return float(self._stream_f64[_ELAPSED])

    @elapsed.setter
    def elapsed(self, value: float) -> None:
        self._stream_f64[_ELAPSED] = value

    # -- whole frames -------------------------------------------------------------------------

    def write_frame(
        self,
        delta: float,
        packets: Mapping[PacketId | int, Records] | None = None,
        *,
        visual_time: float | None = None,
        platform_time: float | None = None,
        frame_counter: int | None = None,
        bare: bool = False,
        frame_id: int | None = None,
        elapsed: float | None = None,
    ) -> int:
        """One frame as CARLA lays it out; returns its frame id.

        `packets` maps packet ids to records (or, for fixed-size records, numpy arrays of the
        packet's dtype). `visual_time` / `platform_time` keep their last value when None.
        `bare` writes only FrameStart and FrameEnd. `frame_id` and `elapsed` are as in
        `begin_frame`.
        """
        given = {PacketId(k): v for k, v in (packets or {}).items()}
        if visual_time is not None:
            self.visual_time = visual_time
        if platform_time is not None:
            self.platform_time = platform_time
        layout = frame_layout(given, self.additional_data, frame_counter is not None)
        unused = set(given) - set(layout)
        if unused and not bare:
            names = ", ".join(sorted(p.name for p in unused))
            raise RecorderError(f"{names}: not part of a CARLA frame in this mode")
        frame = self.begin_frame(delta, frame_id=frame_id, elapsed=elapsed)
        if not bare:
            for pid in layout:
                self.write_frame_packet(pid, given.get(pid, ()), frame_counter)
        self.end_frame()
        return frame

    # -- packet by packet ---------------------------------------------------------------------

    def begin_frame(
        self, delta: float, *, frame_id: int | None = None, elapsed: float | None = None
    ) -> int:
        """FrameStart (CarlaRecorderFrames::SetFrame + WriteStart); patches the last duration.

        The first frame has elapsed 0; each later one adds `delta` to the elapsed time and
        writes `delta` as the previous frame's duration. `frame_id` and `elapsed` override
        the computed values (to reproduce logs that do not follow CARLA's arithmetic).
        """
        if self._in_frame:
            raise RecorderError(f"frame {self.frame_id} is not ended")
        if self.frames_written == 0:
            self.elapsed = 0.0
        else:
            self.elapsed += delta
        self.frame_id = self.frame_id + 1 if frame_id is None else frame_id
        if elapsed is not None:
            self.elapsed = elapsed
        start = self._position
        self._write(_PACKET_HEAD.pack(PacketId.FrameStart, _FRAME_START.size))
        self._write(_FRAME_START.pack(self.frame_id, -1.0, self.elapsed))
        if self._previous_duration_at > 0:
            self._patch(self._previous_duration_at, _F64.pack(delta))
        self._previous_duration_at = start + DURATION_AT
        self._in_frame = True
        self.frames_written += 1
        return self.frame_id

    def write_frame_packet(
        self, packet_id: PacketId, records: Records, frame_counter: int | None = None
    ) -> None:
        """One packet of a frame: the times and counter from the writer's state, others from
        their records."""
        if packet_id == PacketId.VisualTime:
            self.write_raw_packet(packet_id, _F64.pack(self.visual_time))
        elif packet_id == PacketId.PlatformTime:
            self.write_raw_packet(packet_id, _F64.pack(self.platform_time))
        elif packet_id == PacketId.FrameCounter:
            if frame_counter is None:
                raise RecorderError(f"frame {self.frame_id}: FrameCounter packet without a value")
            self.write_raw_packet(packet_id, _U64.pack(frame_counter))
        else:
            self.write_packet(packet_id, records)

    def write_packet(self, packet_id: PacketId | int, records: Records) -> None:
        """One packet of records (an empty sequence writes a count of 0)."""
        codec = CODECS[PacketId(packet_id)]
        self.write_raw_packet(packet_id, codec.pack_body(records))

    def write_raw_packet(self, packet_id: int, body: bytes) -> None:
        """A packet from its id byte and body, as given (any id, even one CARLA lacks)."""
        if not 0 <= packet_id <= 0xFF:
            raise RecorderError(f"packet id {packet_id} does not fit a byte")
        self._write(_PACKET_HEAD.pack(packet_id, len(body)))
        self._write(body)

    def make_frame_room(self, size: int) -> None:
        """Room for a frame of up to `size` bytes at `frame_at` in `frame_buffer`, the last
        frame kept right before it: moved to the front, or the buffer grown, when the
        room after it is short."""
        if self.frame_at + size <= len(self.frame_buffer):
            return
        last = self._last_at if self._last_at >= 0 else self.frame_at
        kept = self.frame_buffer[last : self.frame_at]
        if len(kept) + size > len(self.frame_buffer):
            grown = np.zeros(2 * (len(kept) + size), np.uint8)
            grown[: len(kept)] = kept
            self.frame_buffer, self._frame_view = grown, memoryview(grown)
        else:
            self.frame_buffer[: len(kept)] = kept.copy()
        self._last_at = 0 if self._last_at >= 0 else -1
        self.frame_at = len(kept)

    def grow_frame(self, end: int) -> None:
        """Room in `frame_buffer` up to `end` and FrameEnd after it, keeping what it holds
        where it is (for a frame that turned out longer than the room made for it)."""
        if end + FRAME_END_SIZE > len(self.frame_buffer):
            grown = np.zeros(2 * (end + FRAME_END_SIZE), np.uint8)
            grown[:end] = self.frame_buffer[:end]
            self.frame_buffer, self._frame_view = grown, memoryview(grown)

    def write_frame_in(self, delta: float, body_end: int) -> int:
        """A whole frame laid out by the caller in `frame_buffer`, in one write: FrameStart (as
        `begin_frame`) goes into the `FRAME_START_SIZE` bytes at `frame_at`, the packets are
        `frame_buffer[frame_at + FRAME_START_SIZE : body_end]`, FrameEnd goes into the
        `FRAME_END_SIZE` bytes after them. Returns the frame id.

        To a file of our own the write starts at the last frame's duration when that frame
        was the last thing written: that frame again, its -1 now `delta`, then this frame
        (a log cut anywhere in it still reads to a whole frame); the frame is handed to the
        OS before this returns. The next frame goes right after this one (`frame_at`; see
        `make_frame_room`)."""
        if self._in_frame:
            raise RecorderError(f"frame {self.frame_id} is not ended")
        view, at = self._frame_view, self.frame_at
        self.elapsed = 0.0 if self.frames_written == 0 else self.elapsed + delta
        self.frame_id += 1
        _FRAME_START_PACKET.pack_into(
            view, at, PacketId.FrameStart, _FRAME_START.size, self.frame_id, -1.0, self.elapsed
        )
        _PACKET_HEAD.pack_into(view, body_end, PacketId.FrameEnd, 0)
        end = body_end + _PACKET_HEAD.size
        start, previous, last = self._position, self._previous_duration_at, self._last_at
        self._previous_duration_at = start + DURATION_AT
        if self._fd >= 0 and last >= 0:
            _F64.pack_into(view, last + DURATION_AT, delta)
            if self._pending:
                self._drain()
            self._write_at(previous, view[last + DURATION_AT : end])
            self._position = start + end - at
        else:
            if previous > 0:
                self._patch(previous, _F64.pack(delta))
            self._write(view[at:end])
            if self._fd >= 0:
                self._drain()
        self._last_at, self.frame_at = at, end
        self.frames_written += 1
        return self.frame_id

    def end_frame(self) -> None:
        """FrameEnd."""
        self._write(_PACKET_HEAD.pack(PacketId.FrameEnd, 0))
        self._in_frame = False

    def abandon_frame(self) -> None:
        """Leaves the current frame without a FrameEnd (as a crash would)."""
        self._in_frame = False

    def patch_last_duration(self, duration: float) -> None:
        """Overwrites the last frame's -1 (CARLA never does; for logs that hold another value)."""
        if self._previous_duration_at > 0:
            self._patch(self._previous_duration_at, _F64.pack(duration))

    def _write(self, raw: bytes | np.ndarray) -> None:
        """Appends to the log; the writer keeps the position (no tell per frame)."""
        stream = self.stream
        stream[_LAST_AT] = -1
        stream[_POSITION] += len(raw)
        if self._fd >= 0:
            if not self._pending:
                stream[_FD] = -1  # no compiled write while bytes before it wait
            self._pending += memoryview(raw)
            if len(self._pending) >= _PENDING_LIMIT:
                self._drain()
        else:
            self._file.write(raw)

    def _drain(self) -> None:
        """Hands the pending bytes of a file of our own to the OS."""
        if self._pending:
            self._write_at(self._position - len(self._pending), self._pending)
            self._pending.clear()
            self.stream[_FD] = self._fd

    def _write_at(self, offset: int, raw: bytes | bytearray | memoryview) -> None:
        """`raw` from `offset` in a file of our own, in one call when the OS takes it all (it
        does for files, short of a full disk)."""
        done = os.pwrite(self._fd, raw, offset)
        if done < len(raw):
            rest = memoryview(raw)[done:]
            while rest:
                done = os.pwrite(self._fd, rest, offset + len(raw) - len(rest))
                rest = rest[done:]

    def _patch(self, offset: int, raw: bytes) -> None:
        if self._fd >= 0:  # a file of our own: write in place
            self._drain()
            os.pwrite(self._fd, raw, offset)
            return
        self._file.seek(offset)
        self._file.write(raw)
        self._file.seek(self._position)

    # -- the end ------------------------------------------------------------------------------

    def getvalue(self) -> bytes:
        """The bytes written so far (in-memory logs only)."""
        if not isinstance(self._file, io.BytesIO):
            raise RecorderError("getvalue() needs an in-memory log (target=None)")
        return self._file.getvalue()

    def flush(self) -> None:
        if self._fd >= 0:
            self._drain()
        else:
            self._file.flush()

    def close(self) -> None:
        if self._owned:
            self._drain()
            self._file.close()
        else:
            self._file.flush()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
