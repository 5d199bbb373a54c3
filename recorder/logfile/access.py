"""Python access to a log for analysis: `open_log(path)` -> `RecordedLog`.

Frames are read lazily from the frame index; actors come from the EventAdd/EventDel packets;
poses and trajectories are numpy structured arrays built from all Position packets at once, in
CARLA's units converted to lockstep's: metres and degrees.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import overload

import numpy as np

from recorder.errors import LogFormatError
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import LogHeader, LogReader, RawPacket

POSE_DTYPE = np.dtype(
    [
        ("frame", "<u8"),
        ("elapsed", "<f8"),
        ("id", "<u4"),
        ("x", "<f8"),
        ("y", "<f8"),
        ("z", "<f8"),
        ("roll", "<f8"),
        ("pitch", "<f8"),
        ("yaw", "<f8"),
    ]
)
TRAJECTORY_FIELDS = ["frame", "elapsed", "x", "y", "z", "roll", "pitch", "yaw"]
_CSV_HEADER = ["frame", "elapsed", "id", "type", "blueprint", *TRAJECTORY_FIELDS[2:]]


@dataclass(frozen=True)
class Frame:
    """One frame of a log: its id, duration (-1 for the last), elapsed time and byte range."""

    reader: LogReader = field(repr=False)
    id: int
    duration: float
    elapsed: float
    offset: int
    end: int

    def packets(self) -> Iterator[RawPacket]:
        for packet in self.reader.packets(self.offset):
            if packet.offset >= self.end:
                return
            yield packet

    def records(self, packet_id: PacketId) -> list:
        """The records of every packet of that kind in the frame, in file order."""
        out: list = []
        for packet in self.packets():
            if self.reader.kind(packet.id) == packet_id:
                out.extend(self.reader.records(packet))
        return out


class FrameList(Sequence[Frame]):
    """The frames of a log, made on demand from the frame index."""

    def __init__(self, reader: LogReader):
        self._reader = reader
        self._index = reader.frame_index

    def __len__(self) -> int:
        return len(self._index)

    @overload
    def __getitem__(self, i: int) -> Frame: ...
    @overload
    def __getitem__(self, i: slice) -> list[Frame]: ...
    def __getitem__(self, i: int | slice) -> Frame | list[Frame]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        ix = self._index
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"frame {i} out of {len(self)}")
        return Frame(
            self._reader,
            int(ix.frame_id[i]),
            float(ix.duration[i]),
            float(ix.elapsed[i]),
            int(ix.offset[i]),
            int(ix.end[i]),
        )


@dataclass
class ActorInfo:
    """An actor as the log knows it; `last_frame` is its EventDel frame or the log's last."""

    id: int
    type: int
    blueprint: str
    attributes: dict[str, str]
    first_frame: int
    last_frame: int


class RecordedLog:
    """A CARLA log opened for analysis (see `open_log`)."""

    def __init__(self, source: str | Path | bytes | LogReader, *, lenient: bool = False):
        if isinstance(source, LogReader):
            self.reader = source
        else:
            self.reader = LogReader(source, lenient=lenient, variant="auto")

    @property
    def header(self) -> LogHeader:
        return self.reader.header

    @cached_property
    def frames(self) -> FrameList:
        return FrameList(self.reader)

    @cached_property
    def actors(self) -> list[ActorInfo]:
        """Every actor added, in the order of its EventAdd (an id reused later is a new entry)."""
        reader = self.reader
        index = reader.frame_index
        table = reader.packet_table
        last = int(index.frame_id[-1]) if len(index) else 0
        actors: list[ActorInfo] = []
        alive: dict[int, ActorInfo] = {}
        rows = holding_rows(reader, [PacketId.EventAdd, PacketId.EventDel])
        offsets = table.offset[rows]
        which = np.searchsorted(index.offset, offsets, side="right") - 1
        frames = np.where(which >= 0, index.frame_id[np.maximum(which, 0)] if len(index) else 0, 0)
        for row, offset, frame in zip(
            rows.tolist(), offsets.tolist(), frames.tolist(), strict=True
        ):
            pid, size = int(table.id[row]), int(table.size[row])
            packet = RawPacket(offset, pid, offset + 5, size)
            if pid == PacketId.EventAdd:
                for r in reader.records(packet):
                    attrs = {a.id: a.value for a in r.attributes}
                    info = ActorInfo(r.id, r.type, r.blueprint, attrs, frame, last)
                    actors.append(info)
                    alive[r.id] = info
            else:
                for r in reader.records(packet):
                    if r.id in alive:
                        alive.pop(r.id).last_frame = frame
        return actors

    def poses(self) -> np.ndarray:
        """Every Position record: frame, elapsed, id, x, y, z (metres), roll, pitch, yaw."""
        reader = self.reader
        table = reader.packet_table
        index = reader.frame_index
        rows = np.flatnonzero(table.id == PacketId.Position)
        records, counts = packed_records(reader, PacketId.Position, rows)
        out = np.empty(len(records), POSE_DTYPE)
        which = np.repeat(
            np.searchsorted(index.offset, table.offset[rows], side="right") - 1, counts
        )
        inside = which >= 0  # a Position before the first FrameStart has frame 0, elapsed 0
        safe = np.where(inside, which, 0)
        out["frame"] = np.where(inside, index.frame_id[safe] if len(index) else 0, 0)
        out["elapsed"] = np.where(inside, index.elapsed[safe] if len(index) else 0.0, 0.0)
        out["id"] = records["id"]
        location = records["location"]
        rotation = records["rotation"]
        for axis, name in enumerate(("x", "y", "z")):
            out[name] = location[:, axis].astype(np.float64) / 100.0
        for axis, name in enumerate(("roll", "pitch", "yaw")):
            out[name] = rotation[:, axis]
        return out

    def trajectory(self, actor_id: int) -> np.ndarray:
        """One actor's poses: frame, elapsed, x, y, z (metres), roll, pitch, yaw (degrees)."""
        poses = self._poses
        return np.ascontiguousarray(poses[poses["id"] == actor_id][TRAJECTORY_FIELDS])

    def trajectories(self) -> dict[int, np.ndarray]:
        """Every actor's trajectory, by actor id (ids in first-appearance order)."""
        poses = self._poses
        order = np.argsort(poses["id"], kind="stable")  # each actor's rows keep frame order
        ids, first, counts = np.unique(poses["id"], return_index=True, return_counts=True)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        fields = poses[TRAJECTORY_FIELDS]
        out = {}
        for k in np.argsort(first).tolist():
            rows = order[starts[k] : starts[k] + counts[k]]
            out[int(ids[k])] = np.ascontiguousarray(fields[rows])
        return out

    @cached_property
    def _poses(self) -> np.ndarray:
        return self.poses()

    def export_csv(self, path: str | Path) -> int:
        """Writes one row per actor per frame (its pose); returns the number of rows."""
        poses = self._poses
        kinds = {a.id: (a.type, a.blueprint) for a in self.actors}
        with open(path, "w", newline="", encoding="utf-8") as f:
            out = csv.writer(f)
            out.writerow(_CSV_HEADER)
            for row in poses.tolist():
                kind, blueprint = kinds.get(row[2], ("", ""))
                out.writerow([row[0], repr(row[1]), row[2], kind, blueprint, *map(repr, row[3:])])
        return len(poses)


def holding_rows(reader: LogReader, packet_ids: list[int]) -> np.ndarray:
    """The packet-table rows of the packets of these kinds, less those whose body is just a
    record count of 0 (a log has an EventAdd packet in every frame, mostly empty: decoding
    each in Python was most of a long log's actor list)."""
    table = reader.packet_table
    rows = np.flatnonzero(np.isin(table.id, packet_ids))
    raw = reader.raw
    body = table.offset[rows] + 5
    empty = (
        (table.size[rows] == 2) & (raw[body] == 0) & (raw[np.minimum(body + 1, len(raw) - 1)] == 0)
    )
    return rows[~empty]


def packed_records(
    reader: LogReader, packet_id: int, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The records of the fixed-size packets at packet-table `rows` (all of kind
    `packet_id`), concatenated into one structured array in row order, and each packet's
    record count; a LogFormatError when a packet's size does not hold its count."""
    dtype = reader.codecs[packet_id].dtype
    table = reader.packet_table
    rows = np.asarray(rows, np.int64)
    bodies = table.offset[rows] + 5
    sizes = table.size[rows]
    raw = reader.raw
    counts = np.zeros(len(rows), np.int64)
    has_count = sizes >= 2
    b = bodies[has_count]
    counts[has_count] = raw[b].astype(np.int64) | (raw[b + 1].astype(np.int64) << 8)
    bad = np.flatnonzero(counts * dtype.itemsize + 2 != sizes)
    if len(bad):
        at = int(table.offset[rows[bad[0]]])
        raise LogFormatError(
            f"{reader.name}: {PacketId(packet_id).name} packet of {int(sizes[bad[0]])} bytes "
            f"does not hold its {int(counts[bad[0]])} records of {dtype.itemsize} bytes",
            at,
            reader.frame_at(at),
        )
    data = reader.data
    cell = np.dtype((np.void, dtype.itemsize))  # raw cells concatenate without field work
    views = [
        np.frombuffer(data, cell, count, start)
        for start, count in zip((bodies + 2).tolist(), counts.tolist(), strict=True)
    ]
    records = (np.concatenate(views) if views else np.zeros(0, cell)).view(dtype)
    return records, counts


def open_log(path: str | Path | bytes, *, lenient: bool = False) -> RecordedLog:
    """A CARLA log for analysis: `header`, `frames`, `actors`, `poses()`, `trajectory(id)`.

    CARLA 0.10 (UE5) logs are detected and decoded with their own layouts."""
    return RecordedLog(path, lenient=lenient)
