"""What CARLA's three log queries share: opening the log, the header text, the packet table.

Each query (CarlaRecorderQuery.cpp) opens the file, prints the header (or `File is not a
CARLA recorder` when the magic differs) and reads packets until the stream fails. The
stream fails only on a read past the end, so the last packet header is read twice: the
second read fails and leaves the last packet's id in place (a FrameEnd in every complete
log). In a log with no packet at all, the zero-initialised header id is FrameStart and
the frame is the zero frame. These are kept; a truncated or corrupt log instead raises
`LogFormatError` naming the byte offset and the frame.

A CARLA 0.10 (UE5) log is read with its own layouts (the reader's "auto" variant); the
packet table speaks UE4's packet ids, so UE5's 21-23 are renumbered and its byte 24 (no
Weather packet in UE5) is an unknown packet, skipped as CARLA's UE5 query skips it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recorder.cformat import c_date, c_general
from recorder.errors import LogFormatError, RecorderError
from recorder.hash_order import LIBRARIES
from recorder.packet_ids import PacketId
from recorder.packets.base import unpack_string
from recorder.packets.ue5 import UE5_IDS
from recorder.reader import MAGIC, LogReader, RawPacket, packet_name

Source = str | Path | bytes | bytearray | memoryview
NOT_A_RECORDER = "File is not a CARLA recorder\n"
_START = int(PacketId.FrameStart)
_END = int(PacketId.FrameEnd)
_UNKNOWN = 255  # an id byte no query prints
# UE5 id byte -> the UE4 packet id the queries dispatch on.
_UE5_KINDS = np.full(256, _UNKNOWN, np.uint8)
_UE5_KINDS[: int(PacketId.VisualTime) + 1] = np.arange(int(PacketId.VisualTime) + 1)
for _byte, _kind in UE5_IDS.items():
    _UE5_KINDS[_byte] = int(_kind)


@dataclass
class QueryTable:
    """Every packet of a log in file order: id, body offset, body size, frame number.

    `ids` are UE4 packet ids (a UE5 log's id bytes renumbered), `id_bytes` the bytes in the
    file (what the reader's codecs are keyed by). `frame` is the index (0-based) of the
    FrameStart at or before the packet, -1 before the first one; `frame_id`, `duration` and
    `elapsed` hold each FrameStart's numbers.
    """

    reader: LogReader
    ids: np.ndarray
    id_bytes: np.ndarray
    body: np.ndarray
    size: np.ndarray
    frame: np.ndarray
    frame_id: np.ndarray
    duration: np.ndarray
    elapsed: np.ndarray

    def frame_at(self, packet: int) -> int | None:
        """The frame id holding packet number `packet`, for error messages."""
        index = int(self.frame[packet])
        return int(self.frame_id[index]) if 0 <= index < len(self.frame_id) else None

    def raw(self, packet: int) -> RawPacket:
        """Packet number `packet` as the reader's RawPacket."""
        body = int(self.body[packet])
        return RawPacket(body - 5, int(self.id_bytes[packet]), body, int(self.size[packet]))

    def error(self, message: str, packet: int) -> LogFormatError:
        offset = int(self.body[packet]) - 5
        return LogFormatError(f"{self.reader.name}: {message}", offset, self.frame_at(packet))


def check_library(library: str) -> str:
    """The library name for a hash-container order, checked."""
    if library not in LIBRARIES:
        raise RecorderError(f"order must be one of {LIBRARIES}, not {library!r}")
    return library


def c_text(text: str) -> str:
    """An FString as TCHAR_TO_UTF8 gives it back: the text up to an embedded NUL."""
    nul = text.find("\0")
    return text if nul < 0 else text[:nul]


def read_source(source: Source) -> tuple[bytes, str]:
    """The log's bytes and the name errors use."""
    if isinstance(source, str | Path):
        return Path(source).read_bytes(), str(source)
    return bytes(source), "<bytes>"


def header_text(
    source: Source, local_time: bool = False, lenient: bool = False
) -> tuple[str, LogReader | None]:
    """CARLA's header lines and a reader over the packets (None when the magic differs).

    `lenient` reads up to the last complete frame of a truncated log.
    """
    data, name = read_source(source)
    if len(data) < 2:
        raise LogFormatError(f"{name}: log of {len(data)} bytes has no header", 0)
    try:
        magic, _ = unpack_string(data, 2, len(data))
    except LogFormatError as exc:
        raise LogFormatError(f"{name}: header ends inside its magic", 2) from exc
    if c_text(magic).encode("utf-8", "surrogateescape").lower() != MAGIC.lower().encode():
        return NOT_A_RECORDER, None
    reader = LogReader(data, lenient=lenient, variant="auto")
    reader.name = name
    header = reader.header
    try:
        date = c_date(header.date, local_time)
    except ValueError as exc:
        raise LogFormatError(f"{name}: {exc}", header.end_offset) from None
    text = f"Version: {header.version}\nMap: {c_text(header.map_name)}\nDate: {date}\n\n"
    return text, reader


def query_table(reader: LogReader) -> QueryTable:
    """The reader's packet table and frame index (which check every size and each
    FrameStart), each packet's frame, and a check that the log ends with a FrameEnd."""
    packets = reader.packet_table
    index = reader.frame_index
    ids = packets.id
    kinds = _UE5_KINDS[ids] if reader.variant == "ue5" else ids
    table = QueryTable(
        reader,
        kinds,
        ids,
        packets.offset + 5,
        packets.size,
        np.cumsum(ids == _START) - 1,
        index.frame_id,
        index.duration,
        index.elapsed,
    )
    if len(ids) and ids[-1] != _END:
        raise table.error(
            f"the log ends inside a frame: its last packet is {packet_name(int(kinds[-1]))}, "
            "not FrameEnd (read it leniently to stop at the last complete frame)",
            len(ids) - 1,
        )
    return table


def counts(table: QueryTable, packets: np.ndarray) -> np.ndarray:
    """The uint16 record count at the start of each of these packets' bodies (-1 when the
    body is shorter than 2 bytes, for the record parser to report)."""
    raw = np.frombuffer(table.reader.data, np.uint8)
    body = table.body[packets]
    ok = table.size[packets] >= 2
    safe = np.where(ok, body, 0)
    return np.where(ok, raw[safe].astype(np.int64) | (raw[safe + 1].astype(np.int64) << 8), -1)


def closing_text(frame_id: int, elapsed: float) -> str:
    """The lines every query ends with."""
    return f"\nFrames: {frame_id}\nDuration: {c_general(elapsed)} seconds\n"


def last_frame(table: QueryTable) -> tuple[int, float]:
    """The frame the query's loop ends with (the zero frame in a log without frames)."""
    if len(table.frame_id) == 0:
        return 0, 0.0
    return int(table.frame_id[-1]), float(table.elapsed[-1])
