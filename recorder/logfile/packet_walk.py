"""Finding every packet of a log fast: a frame walked once, its layout checked for many at once.

A log's packets chain: each header's size says where the next one starts, so finding them is
a walk, one packet after the other. Most frames repeat the previous frame's layout (the same
actors recorded the same way: the same packet ids and sizes), so after walking one frame
packet by packet, `PacketWalk` predicts that the next frames have that layout and checks the
prediction for many frames at once with numpy. Every predicted header must hold the
predicted id byte and size; then the chain is exactly the predicted one, since each size
leads to the next predicted header. Where a frame differs, it is walked packet by packet and
becomes the new prediction. A 100 MB log of 20,000 frames is walked in a few milliseconds
instead of 300,000 steps of Python.

The walk hands out runs of whole frames (ending after a FrameEnd), so a reader can work a
run at a time with bounded memory. It stops at the first packet that does not fit in the
data and (with `frame_checks`, the default) at a FrameStart whose size is not 24 bytes or a
frame of more than `MAX_FRAME_PACKETS` packets; `problem` then says why and where.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import as_strided

from recorder.logfile.packet_ids import KNOWN_IDS, PacketId

_U32 = struct.Struct("<I")
_FRAME_START, _FRAME_END = 0, 1
FRAME_START_SIZE = 24
# A CARLA frame holds a few dozen packets; more than this is a corrupt log, not a frame.
MAX_FRAME_PACKETS = 1 << 20
_FIRST_BATCH = 8  # frames checked at once after a new layout, doubled after each success
_MAX_BATCH = 4096
_HEADER = np.arange(5)


@dataclass(frozen=True)
class PacketRun:
    """Consecutive packets: each one's byte offset, id byte and body size (numpy arrays)."""

    offset: np.ndarray
    id: np.ndarray
    size: np.ndarray

    def __len__(self) -> int:
        return len(self.offset)

    @property
    def end(self) -> int:
        """The byte after the run's last packet."""
        if not len(self.offset):
            return 0
        return int(self.offset[-1]) + 5 + int(self.size[-1])


@dataclass(frozen=True)
class WalkProblem:
    """Why the walk stopped before the end: a message and the offset of the packet."""

    message: str
    offset: int


class _Layout:
    """One frame's packets relative to its start: offsets, ids, sizes, header bytes."""

    def __init__(self, raw: np.ndarray, offsets: list[int], length: int):
        start = offsets[0]
        self.rel = np.asarray(offsets, np.int64) - start
        self.length = length
        cells = raw[(self.rel + start)[:, None] + _HEADER]
        self.columns = (self.rel[:, None] + _HEADER).reshape(-1)
        self.header = cells.reshape(-1)
        self.ids = cells[:, 0].copy()
        self.sizes = np.ascontiguousarray(cells[:, 1:]).view("<u4").reshape(-1).astype(np.int64)


class PacketWalk:
    """The packets of `data[start:end]`, walked in runs of whole frames (see the module)."""

    def __init__(self, data, start: int, end: int, *, frame_checks: bool = True):
        self.data = data
        self.frame_checks = frame_checks
        self.raw = np.frombuffer(data, np.uint8) if len(data) else np.zeros(0, np.uint8)
        self.offset = start  # where the next packet starts
        self.end = end
        self.problem: WalkProblem | None = None
        self._layout: _Layout | None = None
        self._batch = _FIRST_BATCH
        self._cooldown = 0  # frames to walk one by one before predicting again

    @property
    def done(self) -> bool:
        """True once every packet is handed out or the walk has stopped at a problem."""
        return self.problem is not None or self.offset >= self.end

    def next_run(self, min_bytes: int = 8 << 20) -> PacketRun:
        """The next whole frames, at least `min_bytes` of them where the data has them (the
        last run holds what is left, which may end inside a frame). Empty when done."""
        offsets: list[np.ndarray] = []
        ids: list[np.ndarray] = []
        sizes: list[np.ndarray] = []
        stop = self.offset + min_bytes
        while not self.done and self.offset < stop:
            layout = self._layout
            if layout is not None and self._cooldown == 0:
                frames = self._predicted(layout, stop)
                if frames:
                    starts = self.offset + layout.length * np.arange(frames, dtype=np.int64)
                    offsets.append((starts[:, None] + layout.rel).reshape(-1))
                    ids.append(np.tile(layout.ids, frames))
                    sizes.append(np.tile(layout.sizes, frames))
                    self.offset += layout.length * frames
                    continue
            walked = self._walk_frame()
            if walked is None:
                continue
            frame_offsets, frame_ids, frame_sizes, whole = walked
            offsets.append(np.asarray(frame_offsets, np.int64))
            ids.append(np.asarray(frame_ids, np.uint8))
            sizes.append(np.asarray(frame_sizes, np.int64))
            if whole:
                self._layout = _Layout(self.raw, frame_offsets, self.offset - frame_offsets[0])
        if not offsets:
            empty = np.zeros(0, np.int64)
            return PacketRun(empty, np.zeros(0, np.uint8), empty)
        return PacketRun(np.concatenate(offsets), np.concatenate(ids), np.concatenate(sizes))

    def _predicted(self, layout: _Layout, stop: int) -> int:
        """How many frames from `offset` have `layout` (checked at most a batch at a time)."""
        length = layout.length
        room = (self.end - self.offset) // length
        wanted = max(1, -(-(stop - self.offset) // length))
        count = min(self._batch, room, wanted)
        if count <= 0:
            return 0
        frames = as_strided(
            self.raw[self.offset :], shape=(count, length), strides=(length, 1), writeable=False
        )
        same = (frames[:, layout.columns] == layout.header).all(axis=1)
        good = count if same.all() else int(np.argmin(same))
        if good == count:
            self._batch = min(self._batch * 2, _MAX_BATCH)
        else:  # walk the differing frame; when frames differ one after the other, a few more
            self._batch = _FIRST_BATCH
            self._cooldown = 1 if good else 4
        return good

    def _walk_frame(self) -> tuple[list[int], list[int], list[int], bool] | None:
        """One frame packet by packet, up to its FrameEnd or a problem: (offsets, ids, sizes,
        ends-with-FrameEnd). None when no packet fits (the problem is set)."""
        if self._cooldown:
            self._cooldown -= 1
        data, end = self.data, self.end
        offset = self.offset
        size_at = _U32.unpack_from
        offsets: list[int] = []
        ids: list[int] = []
        sizes: list[int] = []
        while offset < end:
            if offset + 5 > end:
                self._stop(f"packet header needs 5 bytes, {end - offset} left", offset)
                break
            pid = data[offset]
            (size,) = size_at(data, offset + 1)
            if size > end - offset - 5:
                self._stop(
                    f"packet {_name(pid)} of {size} bytes runs past the end "
                    f"({end - offset - 5} bytes left)",
                    offset,
                )
                break
            if self.frame_checks:
                if pid == _FRAME_START and size != FRAME_START_SIZE:
                    self._stop(
                        f"FrameStart packet of {size} bytes, expected {FRAME_START_SIZE}", offset
                    )
                    break
                if len(offsets) == MAX_FRAME_PACKETS:
                    self._stop(f"a frame of more than {MAX_FRAME_PACKETS} packets", offset)
                    break
            offsets.append(offset)
            ids.append(pid)
            sizes.append(size)
            offset += 5 + size
            if pid == _FRAME_END:
                break
        self.offset = offset
        if not offsets:
            return None
        return offsets, ids, sizes, ids[-1] == _FRAME_END and ids[0] == _FRAME_START

    def _stop(self, message: str, offset: int) -> None:
        self.problem = WalkProblem(message, offset)


def walk_all(
    data, start: int, end: int, *, frame_checks: bool = True
) -> tuple[PacketRun, WalkProblem | None]:
    """Every packet of `data[start:end]` that the walk reaches, and why it stopped early
    (`frame_checks=False`: only packets that do not fit stop it)."""
    walk = PacketWalk(data, start, end, frame_checks=frame_checks)
    runs = []
    while not walk.done:
        runs.append(walk.next_run(1 << 62))
    if len(runs) == 1:
        return runs[0], walk.problem
    if not runs:
        empty = np.zeros(0, np.int64)
        return PacketRun(empty, np.zeros(0, np.uint8), empty), walk.problem
    return (
        PacketRun(
            np.concatenate([r.offset for r in runs]),
            np.concatenate([r.id for r in runs]),
            np.concatenate([r.size for r in runs]),
        ),
        walk.problem,
    )


def _name(pid: int) -> str:
    """A packet id's name for messages (UE4 numbering), or `id N` for an unknown one."""
    return PacketId(pid).name if pid in KNOWN_IDS else f"id {pid}"
