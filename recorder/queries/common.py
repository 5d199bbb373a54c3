"""What CARLA's three log queries share: opening the log, the header text, packets in chunks.

Each query (CarlaRecorderQuery.cpp) opens the file, prints the header (or `File is not a
CARLA recorder` when the header is not CARLA's) and reads packets until the stream fails.
The stream fails only on a read past the end, so the last packet header is read twice: the
second read fails and leaves the last packet's id in place (a FrameEnd in every complete
log). In a log with no packet at all, the zero-initialised header id is FrameStart and the
frame is the zero frame. These are kept.

The log is read a chunk of whole frames at a time (`QueryLog.chunks`): a file is mapped,
not read into memory, and the pages behind the query are dropped as it goes, so a query's
memory does not grow with the log. A log that ends inside a frame (cut short, or a packet
whose size runs past the end) is answered up to its last complete frame, as CARLA's query
answers with what it could read, with a `TruncatedLogWarning` naming the byte and frame
where it stops; `lenient=False` makes that a `LogFormatError` instead.

A CARLA 0.10 (UE5) log is read with its own layouts (the reader's "auto" variant); a
chunk speaks UE4's packet ids, so UE5's 21-23 are renumbered and its byte 24 (no Weather
packet in UE5) is an unknown packet, skipped as CARLA's UE5 query skips it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recorder.errors import (
    NOT_A_RECORDER,
    LogFormatError,
    NotARecorderError,
    RecorderError,
    TruncatedLogWarning,
)
from recorder.logfile.cformat import c_date, c_general
from recorder.logfile.hash_order import LIBRARIES
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packet_walk import PacketRun, PacketWalk
from recorder.logfile.packets.frame import FRAME_START
from recorder.logfile.packets.ue5 import UE5_IDS
from recorder.logfile.reader import LogReader, RawPacket, packet_name, read_magic
from recorder.logfile.source import PageReleaser, map_log

Source = str | Path | bytes | bytearray | memoryview
CHUNK_BYTES = 8 << 20  # whole frames of about this many bytes are worked at a time
_START = int(PacketId.FrameStart)
_END = int(PacketId.FrameEnd)
_UNKNOWN = 255  # an id byte no query prints
# UE5 id byte -> the UE4 packet id the queries dispatch on.
_UE5_KINDS = np.full(256, _UNKNOWN, np.uint8)
_UE5_KINDS[: int(PacketId.VisualTime) + 1] = np.arange(int(PacketId.VisualTime) + 1)
for _byte, _kind in UE5_IDS.items():
    _UE5_KINDS[_byte] = int(_kind)
_SIZE_BYTES = np.arange(1, 5)
_FRAME_BYTES = np.arange(5, 5 + FRAME_START.size)

__all__ = ["NOT_A_RECORDER", "Chunk", "QueryLog", "Source", "open_query"]


@dataclass
class Chunk:
    """Consecutive packets of a log in file order: id, body offset, body size, frame.

    `ids` are UE4 packet ids (a UE5 log's id bytes renumbered), `id_bytes` the bytes in the
    file (what the reader's codecs are keyed by). `frame` is the log-wide number (0-based)
    of the FrameStart at or before each packet, -1 before the first one; `frame_id`,
    `duration` and `elapsed` hold the numbers of frames `first_frame`, `first_frame + 1`,
    ... (the frame open when the chunk starts, then the chunk's FrameStarts; frame -1 is
    the zero frame).
    """

    reader: LogReader
    ids: np.ndarray
    id_bytes: np.ndarray
    body: np.ndarray
    size: np.ndarray
    frame: np.ndarray
    first_frame: int
    frame_id: np.ndarray
    duration: np.ndarray
    elapsed: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    def local(self, frames: np.ndarray) -> np.ndarray:
        """Indexes into `frame_id`, `duration`, `elapsed` for these frame numbers."""
        return frames - self.first_frame

    def frame_at(self, packet: int) -> int | None:
        """The frame id holding packet number `packet`, for error messages."""
        if self.frame[packet] < 0:
            return None
        return int(self.frame_id[int(self.frame[packet]) - self.first_frame])

    def raw(self, packet: int) -> RawPacket:
        """Packet number `packet` as the reader's RawPacket."""
        body = int(self.body[packet])
        return RawPacket(body - 5, int(self.id_bytes[packet]), body, int(self.size[packet]))

    def counts(self, packets: np.ndarray) -> np.ndarray:
        """The uint16 record count at the start of each of these packets' bodies (-1 when
        the body is shorter than 2 bytes, for the record parser to report)."""
        raw = self.reader.raw
        body = self.body[packets]
        ok = self.size[packets] >= 2
        safe = np.where(ok, body, 0)
        return np.where(ok, raw[safe].astype(np.int64) | (raw[safe + 1].astype(np.int64) << 8), -1)


class QueryLog:
    """A log opened for one query: the reader (header, codecs) and its packets in chunks."""

    def __init__(self, reader: LogReader, lenient: bool):
        self.reader = reader
        self.lenient = lenient
        self.frames = 0  # FrameStarts handed out so far
        self.last_frame = (0, 0.0, 0.0)  # (id, duration, elapsed); the zero frame at first
        self.packets = 0  # packets handed out so far

    def chunks(self, chunk_bytes: int = CHUNK_BYTES) -> Iterator[Chunk]:
        """The log's packets, whole frames at a time, up to the last complete frame of a log
        that ends inside one (see the module); pages behind each chunk are dropped."""
        reader = self.reader
        data = reader.data
        walk = PacketWalk(data, reader.header.end_offset, len(data))
        pages = PageReleaser(data)
        while not walk.done:
            run = walk.next_run(chunk_bytes)
            if walk.done:
                run = self._ending(run, walk)
            if len(run):
                chunk = self._chunk(run)
                yield chunk
                pages.release(run.end)

    def _ending(self, run: PacketRun, walk: PacketWalk) -> PacketRun:
        """The last run, cut after its last FrameEnd when the log ends inside a frame."""
        if walk.problem is None and (not len(run) or run.id[-1] == _END):
            return run
        if walk.problem is not None:
            problem, offset = walk.problem.message, walk.problem.offset
        else:
            kind = int(_UE5_KINDS[run.id[-1]] if self.reader.variant == "ue5" else run.id[-1])
            problem = (
                f"the log ends inside a frame: its last packet is {packet_name(kind)}, not FrameEnd"
            )
            offset = int(run.offset[-1])
        ends = np.flatnonzero(run.id == _END)
        keep = int(ends[-1]) + 1 if len(ends) else 0
        starts = np.flatnonzero(run.id[: np.searchsorted(run.offset, offset)] == _START)
        frame = self._frame_id(run, int(starts[-1])) if len(starts) else None
        if frame is None and self.frames:
            frame = self.last_frame[0]
        if not self.lenient:
            raise self.reader.error(
                f"{problem} (read it leniently to stop at the last complete frame)",
                offset,
                frame,
            )
        if keep:
            kept = int(run.offset[keep - 1]) + 5 + int(run.size[keep - 1])
            answered = f"answered up to the last complete frame, which ends at byte {kept}"
        elif self.frames:
            answered = "answered up to the last complete frame"
        else:
            answered = "no frame is complete: answered with none"
        where = f"at byte {offset}" + (f", frame {frame}" if frame is not None else "")
        warnings.warn(
            TruncatedLogWarning(f"{self.reader.name}: {problem} ({where}); {answered}"),
            stacklevel=2,
        )
        return PacketRun(run.offset[:keep], run.id[:keep], run.size[:keep])

    def _frame_id(self, run: PacketRun, row: int) -> int:
        body = int(run.offset[row]) + 5
        return int.from_bytes(self.reader.data[body : body + 8], "little")

    def _chunk(self, run: PacketRun) -> Chunk:
        reader = self.reader
        raw = reader.raw
        ids = run.id
        kinds = _UE5_KINDS[ids] if reader.variant == "ue5" else ids
        is_start = ids == _START
        starts = run.offset[is_start]
        cells = raw[starts[:, None] + _FRAME_BYTES]
        frames = np.ascontiguousarray(cells).view(FRAME_START.dtype).reshape(-1)
        last_id, last_duration, last_elapsed = self.last_frame
        chunk = Chunk(
            reader,
            kinds,
            ids,
            run.offset + 5,
            run.size,
            np.cumsum(is_start) + (self.frames - 1),
            self.frames - 1,
            np.concatenate([[last_id], frames["id"]]).astype(np.uint64),
            np.concatenate([[last_duration], frames["duration"]]),
            np.concatenate([[last_elapsed], frames["elapsed"]]),
        )
        if len(frames):
            self.last_frame = (
                int(frames["id"][-1]),
                float(frames["duration"][-1]),
                float(frames["elapsed"][-1]),
            )
        self.frames += len(frames)
        self.packets += len(ids)
        return chunk

    def closing_text(self) -> str:
        """The lines every query ends with, for the frame its loop ended in."""
        frame_id, _, elapsed = self.last_frame
        return closing_text(frame_id, elapsed)


def check_library(library: str) -> str:
    """The library name for a hash-container order, checked."""
    if library not in LIBRARIES:
        raise RecorderError(f"order must be one of {LIBRARIES}, not {library!r}")
    return library


def c_text(text: str) -> str:
    """An FString as TCHAR_TO_UTF8 gives it back: the text up to an embedded NUL."""
    nul = text.find("\0")
    return text if nul < 0 else text[:nul]


def log_bytes(source: Source):
    """The log's bytes (a file mapped, not read) and the name errors use."""
    if isinstance(source, str | Path):
        return map_log(source), str(source)
    return (source if isinstance(source, bytes) else bytes(source)), "<bytes>"


def open_query(
    source: Source, local_time: bool = False, lenient: bool = True
) -> tuple[str, QueryLog]:
    """CARLA's header lines and the log for the query's loop.

    NotARecorderError when the header is not CARLA's (the queries answer CARLA's text for
    it); a header cut short after the magic is a LogFormatError naming the file.
    """
    data, name = log_bytes(source)
    read_magic(data, name)
    reader = LogReader(data, variant="auto", name=name)
    header = reader.header
    try:
        date = c_date(header.date, local_time)
    except ValueError as exc:
        raise LogFormatError(f"{name}: {exc}", header.end_offset) from None
    text = f"Version: {header.version}\nMap: {c_text(header.map_name)}\nDate: {date}\n\n"
    return text, QueryLog(reader, lenient)


def answer(pieces: Iterator[str]) -> str:
    """A query's whole text from its pieces; CARLA's text for a file that is not a log."""
    try:
        return "".join(pieces)
    except NotARecorderError:
        return NOT_A_RECORDER


def closing_text(frame_id: int, elapsed: float) -> str:
    """The lines every query ends with."""
    return f"\nFrames: {frame_id}\nDuration: {c_general(elapsed)} seconds\n"
