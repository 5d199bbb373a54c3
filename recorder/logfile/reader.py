"""Reading CARLA recorder logs: header, packets in file order, a frame index, seeks.

A log file is memory-mapped (recorder/logfile/source.py: regular files only), a log in memory
used as it is; packets are found by recorder/logfile/packet_walk.py and records decoded only when
asked (`records`, `array`), so indexing a 100 MB log touches each packet header once and
copies nothing. Every size is checked against the bytes left before it is used.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

import numpy as np

from recorder.errors import LogFormatError, NotARecorderError, RecorderError, quoted
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packet_walk import walk_all
from recorder.logfile.packets import UE4_CODECS, UE5_CODECS, PacketCodec
from recorder.logfile.packets.frame import FRAME_START
from recorder.logfile.packets.position import POSITION
from recorder.logfile.packets.ue5 import UE5_IDS
from recorder.logfile.source import map_log

MAGIC = "CARLA_RECORDER"
VARIANTS = ("ue4", "ue5", "auto")
_PACKET_HEAD = struct.Struct("<BI")
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_I64 = struct.Struct("<q")
# The Position record of CARLA 0.10 (UE5): the id and six doubles.
_UE5_POSITION_SIZE = 4 + 6 * 8


class LogHeader(NamedTuple):
    """The log's header; `end_offset` is the byte where the first packet starts."""

    version: int
    magic: str
    date: int
    map_name: str
    end_offset: int


class RawPacket(NamedTuple):
    """One packet: where it starts, its id byte, where its body starts and the body's size."""

    offset: int
    id: int
    body_offset: int
    size: int


@dataclass(frozen=True)
class FrameIndex:
    """One entry per FrameStart, in file order (numpy arrays of equal length).

    `offset` is the FrameStart packet's byte offset, `end` the byte after the frame's last
    packet (the next frame's start, or the end of the readable log).
    """

    frame_id: np.ndarray
    duration: np.ndarray
    elapsed: np.ndarray
    offset: np.ndarray
    end: np.ndarray
    ascending: bool = True

    def __len__(self) -> int:
        return len(self.frame_id)


@dataclass(frozen=True)
class PacketTable:
    """Every packet of the readable log: byte offset, id byte and body size (numpy arrays).

    A packet's body starts at `offset + 5`.
    """

    offset: np.ndarray
    id: np.ndarray
    size: np.ndarray

    def __len__(self) -> int:
        return len(self.offset)


class LogReader:
    """A CARLA log from a path or bytes. `lenient=True` reads up to the last complete frame.

    `variant` picks the record layouts `records()` and `array()` decode with: "ue4" (CARLA
    0.9.x, the default), "ue5" (CARLA 0.10) or "auto" (the one `detect_variant()` finds).
    """

    def __init__(
        self,
        source: str | Path | bytes | bytearray | memoryview | mmap.mmap,
        *,
        lenient: bool = False,
        variant: str = "ue4",
        name: str | None = None,
    ):
        if variant not in VARIANTS:
            raise RecorderError(f"unknown log variant {variant!r}: expected one of {VARIANTS}")
        if isinstance(source, str | Path):
            self.name = str(source)
            self.data = map_log(source)
        else:
            self.name = "<bytes>"
            self.data = source if isinstance(source, bytes | mmap.mmap) else bytes(source)
        if name is not None:
            self.name = name
        self.lenient = lenient
        self._variant = variant
        self._detected: str | None = None
        self.failed = False
        self._end = len(self.data)
        self.header = self._read_header()
        if lenient:
            self._end = self._complete_end()

    # -- header -----------------------------------------------------------------------------

    def _read_header(self) -> LogHeader:
        data = self.data
        version, magic, offset = read_magic(data, self.name)
        if offset + 8 > len(data):
            raise self.error("header ends before its date", offset)
        (date,) = _I64.unpack_from(data, offset)
        map_name, offset = self._header_string(offset + 8, "map name")
        return LogHeader(version, magic, date, map_name, offset)

    def _header_string(self, offset: int, what: str) -> tuple[str, int]:
        data = self.data
        if offset + 2 > len(data):
            raise self.error(f"header ends before its {what}", offset)
        (length,) = _U16.unpack_from(data, offset)
        stop = offset + 2 + length
        if stop > len(data):
            raise self.error(f"header {what} of {length} bytes runs past the end", offset)
        return data[offset + 2 : stop].decode("utf-8", "surrogateescape"), stop

    # -- packets ----------------------------------------------------------------------------

    def packets(self, start: int | None = None) -> Iterator[RawPacket]:
        """The packets from byte `start` (default: after the header) in file order."""
        data = self.data
        end = self._end
        offset = self.header.end_offset if start is None else start
        unpack = _PACKET_HEAD.unpack_from
        frame = None
        while offset < end:
            if offset + 5 > end:
                raise self.error(f"packet header needs 5 bytes, {end - offset} left", offset, frame)
            pid, size = unpack(data, offset)
            body = offset + 5
            if size > end - body:
                raise self.error(
                    f"packet {packet_name(pid)} of {size} bytes runs past the end "
                    f"({end - body} bytes left)",
                    offset,
                    frame,
                )
            if pid == 0 and size >= 8:
                frame = _U64.unpack_from(data, body)[0]
            yield RawPacket(offset, pid, body, size)
            offset = body + size

    def records(self, packet: RawPacket) -> list:
        """The decoded records of a known packet (LogFormatError if they do not fit its size),
        with the layouts of the reader's variant."""
        codec = self._codec(packet)
        try:
            return codec.unpack_body(self.data, packet.body_offset, packet.size)
        except LogFormatError as exc:
            raise self.error(_bare(exc), exc.offset, self.frame_at(packet.offset)) from None

    def array(self, packet: RawPacket) -> np.ndarray:
        """The records of a fixed-size packet as a numpy structured array (a read-only view)."""
        codec = self._codec(packet)
        try:
            return codec.array(self.data, packet.body_offset, packet.size)
        except LogFormatError as exc:
            raise self.error(_bare(exc), exc.offset, self.frame_at(packet.offset)) from None

    def kind(self, packet_id: int) -> PacketId | None:
        """What an id byte means in this log (UE5 logs number packets 21-23 differently)."""
        if self.variant == "ue5":
            return UE5_IDS.get(packet_id) or (PacketId(packet_id) if packet_id <= 20 else None)
        return PacketId(packet_id) if packet_id <= PacketId.Weather else None

    @cached_property
    def codecs(self) -> dict[int, PacketCodec]:
        """The packet codecs of the reader's variant, by id byte."""
        return UE5_CODECS if self.variant == "ue5" else UE4_CODECS

    def _codec(self, packet: RawPacket) -> PacketCodec:
        codec = self.codecs.get(packet.id)
        if codec is None:
            raise RecorderError(f"packet id {packet.id} is not decoded in a {self.variant} log")
        return codec

    # -- frames -----------------------------------------------------------------------------

    @cached_property
    def packet_table(self) -> PacketTable:
        """Every packet's offset, id and size as numpy arrays (recorder/logfile/packet_walk.py).

        A log whose sizes do not chain up to its end is walked again with the checked
        `packets()`, which raises the LogFormatError naming the bad packet.
        """
        run, problem = walk_all(self.data, self.header.end_offset, self._end, frame_checks=False)
        if problem is not None:
            for _ in self.packets():
                pass
            raise self.error(problem.message, problem.offset)  # pragma: no cover
        return PacketTable(run.offset, run.id, run.size)

    @cached_property
    def frame_index(self) -> FrameIndex:
        """Each FrameStart's id, duration, elapsed time and offset (from `packet_table`)."""
        table = self.packet_table
        rows = np.flatnonzero(table.id == PacketId.FrameStart)
        wrong = rows[table.size[rows] != FRAME_START.size]
        if len(wrong):
            at = int(table.offset[wrong[0]])
            raise self.error(
                f"FrameStart packet of {int(table.size[wrong[0]])} bytes, "
                f"expected {FRAME_START.size}",
                at,
                self._frame_before(table, rows, at),
            )
        offsets = table.offset[rows]
        cells = self.raw[(offsets + 5)[:, None] + np.arange(FRAME_START.size)]
        frames = np.ascontiguousarray(cells).view(FRAME_START.dtype).reshape(-1)
        ends = np.append(offsets[1:], self._end).astype(np.int64)
        ids = frames["id"].copy()
        return FrameIndex(
            ids,
            frames["duration"].copy(),
            frames["elapsed"].copy(),
            offsets,
            ends,
            bool(np.all(ids[1:] > ids[:-1])),
        )

    def _frame_before(self, table: PacketTable, rows: np.ndarray, offset: int) -> int | None:
        before = [int(r) for r in rows if table.offset[r] < offset and table.size[r] >= 8]
        if not before:
            return None
        return _U64.unpack_from(self.data, int(table.offset[before[-1]]) + 5)[0]

    def frame_at(self, offset: int) -> int | None:
        """The id of the frame that holds byte `offset` (None before the first frame, or when
        the log cannot be indexed)."""
        try:
            index = self.frame_index
        except LogFormatError:
            return None
        pos = int(np.searchsorted(index.offset, offset, side="right")) - 1
        return int(index.frame_id[pos]) if pos >= 0 else None

    def seek_frame(self, frame_id: int) -> int:
        """The byte offset of frame `frame_id`'s FrameStart; clears the failed-string flag."""
        index = self.frame_index
        ids = index.frame_id
        if not 0 <= frame_id < 1 << 64:
            pos = len(ids)
        elif index.ascending:
            pos = int(ids.searchsorted(np.uint64(frame_id)))
        else:
            hits = np.flatnonzero(ids == frame_id)
            pos = int(hits[0]) if len(hits) else len(ids)
        if pos >= len(ids) or int(ids[pos]) != frame_id:
            raise RecorderError(f"{self.name}: no frame {frame_id} in the log")
        self.failed = False
        return int(index.offset[pos])

    def seek_time(self, t: float) -> int:
        """The byte offset of the frame that holds time `t` (the last one starting at or before
        it; the first frame for an earlier time); clears the failed-string flag."""
        index = self.frame_index
        if len(index) == 0:
            raise RecorderError(f"{self.name}: the log has no frame")
        pos = max(int(np.searchsorted(index.elapsed, t, side="right")) - 1, 0)
        self.failed = False
        return int(index.offset[pos])

    # -- strings ----------------------------------------------------------------------------

    def read_string(self, offset: int) -> tuple[str, int]:
        """CARLA's string at `offset` as the seed's LogReader.string reads it: (text, next).

        The bytes are checked as UTF-8 before text is made; an incomplete or invalid string
        gives empty text and sets `failed`, and every later read gives empty text until a seek.
        The text stops at an embedded NUL, as an FString built from a C string does.
        """
        if self.failed:
            return "", offset
        end = self._end
        if offset + 2 > end:
            self.failed = True
            return "", end
        (length,) = _U16.unpack_from(self.data, offset)
        stop = offset + 2 + length
        if stop > end:
            self.failed = True
            return "", end
        try:
            text = self.data[offset + 2 : stop].decode("utf-8")
        except UnicodeDecodeError:
            self.failed = True
            return "", stop
        nul = text.find("\0")
        return (text if nul < 0 else text[:nul]), stop

    @property
    def end(self) -> int:
        """The byte reading stops at: the file's size, or when lenient the end of the last
        complete frame (less than the size for a log cut inside a frame)."""
        return self._end

    # -- variants ---------------------------------------------------------------------------

    @property
    def variant(self) -> str:
        """The layouts in use: "ue4" or "ue5" (for "auto", the detected one)."""
        return self.detect_variant() if self._variant == "auto" else self._variant

    def detect_variant(self) -> str:
        """ "ue4" (CARLA 0.9.x, floats in vectors) or "ue5" (CARLA 0.10, doubles in vectors).

        Both write header version 1; they are told apart by the record size of the first
        non-empty Position packet (28 or 52 bytes). A log with no position is taken as UE4.
        """
        if self._detected is None:
            self._detected = self._find_variant()
        return self._detected

    def _find_variant(self) -> str:
        data = self.data
        offset = self.header.end_offset
        end = self._end
        while offset + 5 <= end:  # a tolerant walk: a damaged log is judged by its start
            pid, size = _PACKET_HEAD.unpack_from(data, offset)
            if size > end - offset - 5:
                break
            if pid == PacketId.Position and size > 2:
                (count,) = _U16.unpack_from(data, offset + 5)
                if count and count * _UE5_POSITION_SIZE == size - 2:
                    return "ue5"
                if count and count * POSITION.size == size - 2:
                    return "ue4"
            offset += 5 + size
        return "ue4"

    # -- helpers ----------------------------------------------------------------------------

    def _complete_end(self) -> int:
        """The byte after the last complete frame's FrameEnd (lenient reading stops there)."""
        return complete_end(self.data, self.header.end_offset, len(self.data))

    @cached_property
    def raw(self) -> np.ndarray:
        """The log's bytes as a read-only numpy uint8 array (no copy)."""
        return np.frombuffer(self.data, np.uint8) if len(self.data) else np.zeros(0, np.uint8)

    def error(self, message: str, offset: int | None, frame: int | None = None) -> LogFormatError:
        """A LogFormatError naming the log, the byte offset and the frame."""
        return LogFormatError(f"{self.name}: {message}", offset, frame)


def read_magic(data, name: str) -> tuple[int, str, int]:
    """The header's version and magic and the offset after them; NotARecorderError (naming
    the file, quoting at most a few dozen bytes) when the file does not start as a CARLA log.

    CARLA's query says `File is not a CARLA recorder` for each of these: its header read
    fails or gives another magic, compared case-blind as FString compares."""
    size = len(data)
    if size < 4:
        raise NotARecorderError(
            f"{name}: not a CARLA recorder log: {size} bytes, too few for a header", 0
        )
    (version,) = _U16.unpack_from(data, 0)
    (length,) = _U16.unpack_from(data, 2)
    if 4 + length > size:
        raise NotARecorderError(
            f"{name}: not a CARLA recorder log: its magic of {length} bytes runs past the end "
            f"of its {size} bytes, expected {MAGIC!r}",
            2,
        )
    raw = bytes(data[4 : 4 + length])
    magic = raw.decode("utf-8", "surrogateescape")
    # An FString from a C string stops at its NUL; FString's compare is case-blind.
    if raw.split(b"\0", 1)[0].lower() != MAGIC.lower().encode():
        shown = quoted(magic if magic.isprintable() else raw)
        raise NotARecorderError(
            f"{name}: not a CARLA recorder log: magic {shown}, expected {MAGIC!r}", 2
        )
    return version, magic, 4 + length


def complete_end(data, start: int, end: int) -> int:
    """The byte after the last FrameEnd that every packet before it reaches (a log's last
    complete frame), or `start` when there is none."""
    run, _ = walk_all(data, start, end)
    ends = np.flatnonzero(run.id == PacketId.FrameEnd)
    if not len(ends):
        return start
    last = int(ends[-1])
    return int(run.offset[last]) + 5 + int(run.size[last])


def packet_name(pid: int) -> str:
    """A packet id's name for messages (UE4 numbering), or `id N` for an unknown one."""
    try:
        return PacketId(pid).name
    except ValueError:
        return f"id {pid}"


def _bare(exc: LogFormatError) -> str:
    """An inner error's message without its location suffix (it is added again)."""
    text = str(exc)
    cut = text.rfind(" (at ")
    return text[:cut] if cut >= 0 else text
