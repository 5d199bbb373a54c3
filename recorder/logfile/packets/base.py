"""Building blocks of the packet modules: CARLA's string, fixed-size records, packet codecs.

Every number is little-endian. A fixed-size record is a packed C struct, described once by a
`FixedLayout` (field name, type code, count) that gives its `struct` format and its numpy dtype.
A `PacketCodec` turns a packet body into records and back; counted packets start with a uint16
record count, as CARLA's `Write` methods do.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from recorder.errors import LogFormatError, RecorderError
from recorder.logfile.packet_ids import PacketId

U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
MAX_STRING_BYTES = 0xFFFF

# Type codes of a FixedLayout: struct code and numpy type. "?" is a C++ bool (one byte).
_TYPES = {
    "B": ("B", "u1"),
    "b": ("b", "i1"),
    "?": ("B", "u1"),
    "H": ("H", "<u2"),
    "I": ("I", "<u4"),
    "i": ("i", "<i4"),
    "Q": ("Q", "<u8"),
    "f": ("f", "<f4"),
    "d": ("d", "<f8"),
}

Vec3 = tuple[float, float, float]


def as_bool(value: int) -> bool | int:
    """A C++ bool byte: True/False for 1/0, the raw byte otherwise (kept so bytes round-trip)."""
    return bool(value) if value in (0, 1) else value


def pack_string(text: str) -> bytes:
    """CARLA's FString on disk: uint16 byte length, then the UTF-8 bytes (no NUL)."""
    raw = text.encode("utf-8", "surrogateescape")
    if len(raw) > MAX_STRING_BYTES:
        raise RecorderError(f"string of {len(raw)} bytes does not fit a uint16 length")
    return U16.pack(len(raw)) + raw


def unpack_string(data: bytes, offset: int, end: int) -> tuple[str, int]:
    """The string at `offset`, decoded losslessly (invalid UTF-8 kept as surrogate escapes)."""
    if offset + 2 > end:
        raise LogFormatError("string length runs past the packet end", offset)
    (length,) = U16.unpack_from(data, offset)
    stop = offset + 2 + length
    if stop > end:
        raise LogFormatError(f"string of {length} bytes runs past the packet end", offset)
    return data[offset + 2 : stop].decode("utf-8", "surrogateescape"), stop


class FixedLayout:
    """A packed C struct: its fields in write order, as `struct` and numpy see them."""

    def __init__(self, record: type, spec: Sequence[tuple[str, str, int]]):
        self.record = record
        self.names = [name for name, _, _ in spec]
        self.vectors = [count for _, _, count in spec]
        self.bools = [code == "?" for _, code, _ in spec]
        fmt = "".join(f"{count}{_TYPES[code][0]}" for _, code, count in spec)
        self.struct = struct.Struct("<" + fmt)
        self.size = self.struct.size
        self.dtype = np.dtype(
            [
                (name, _TYPES[code][1]) if count == 1 else (name, _TYPES[code][1], (count,))
                for name, code, count in spec
            ]
        )
        assert self.dtype.itemsize == self.size
        # where each field starts in the record, bytes (the compiled packing writes there)
        self.offsets = {name: self.dtype.fields[name][1] for name in self.names}
        self._plain = all(count == 1 for count in self.vectors) and not any(self.bools)

    def values(self, record: Any) -> list:
        """The flat struct values of a record, vectors spread out."""
        out: list = []
        for name, count in zip(self.names, self.vectors, strict=True):
            value = getattr(record, name)
            if count == 1:
                out.append(int(value) if isinstance(value, bool) else value)
            else:
                if len(value) != count:
                    raise RecorderError(f"{name} needs {count} numbers, got {len(value)}")
                out.extend(value)
        return out

    def pack(self, record: Any) -> bytes:
        return self.struct.pack(*self.values(record))

    def unpack_from(self, data: bytes, offset: int) -> Any:
        flat = self.struct.unpack_from(data, offset)
        if self._plain:
            return self.record(*flat)
        args: list = []
        i = 0
        for count, is_bool in zip(self.vectors, self.bools, strict=True):
            if count == 1:
                args.append(as_bool(flat[i]) if is_bool else flat[i])
            else:
                args.append(tuple(flat[i : i + count]))
            i += count
        return self.record(*args)


def _fixed_reader(layout: FixedLayout) -> Callable[[bytes, int, int], tuple[Any, int]]:
    def read(data: bytes, offset: int, end: int) -> tuple[Any, int]:
        if offset + layout.size > end:
            raise LogFormatError(f"record of {layout.size} bytes runs past the packet end", offset)
        return layout.unpack_from(data, offset), offset + layout.size

    return read


@dataclass(frozen=True)
class PacketCodec:
    """How one packet's body maps to records: a uint16 count and records, or one record."""

    packet_id: PacketId
    key: str
    record: type
    pack_record: Callable[[Any], bytes]
    unpack_record: Callable[[bytes, int, int], tuple[Any, int]]
    layout: FixedLayout | None = None
    counted: bool = True
    # A whole-packet reader, for records whose layout depends on the packet size.
    unpack_packet: Callable[[bytes, int, int], list] | None = None

    @classmethod
    def fixed(
        cls, packet_id: PacketId, key: str, layout: FixedLayout, counted: bool = True
    ) -> PacketCodec:
        return cls(
            packet_id, key, layout.record, layout.pack, _fixed_reader(layout), layout, counted
        )

    @property
    def dtype(self) -> np.dtype | None:
        return self.layout.dtype if self.layout is not None else None

    def pack_body(self, records: Sequence[Any] | np.ndarray) -> bytes:
        """The packet body for these records (records or, for fixed records, a numpy array)."""
        if not self.counted:
            (only,) = records
            return self.pack_record(only)
        count = len(records)
        if count > 0xFFFF:
            raise RecorderError(f"{count} {self.packet_id.name} records exceed a uint16 count")
        if isinstance(records, np.ndarray):
            if self.layout is None:
                raise RecorderError(f"{self.packet_id.name} records are not fixed-size")
            return U16.pack(count) + np.ascontiguousarray(records, self.layout.dtype).tobytes()
        return U16.pack(count) + b"".join(self.pack_record(r) for r in records)

    def unpack_body(self, data: bytes, body_offset: int, size: int) -> list:
        """The records of a packet body; a count or length overrunning it raises LogFormatError."""
        if self.unpack_packet is not None:
            return self.unpack_packet(data, body_offset, size)
        end = body_offset + size
        if not self.counted:
            record, stop = self.unpack_record(data, body_offset, end)
            self._check_end(stop, end, body_offset)
            return [record]
        count, offset = self._count(data, body_offset, size)
        if self.layout is not None:
            self._check_end(offset + count * self.layout.size, end, body_offset)
            layout = self.layout
            return [layout.unpack_from(data, offset + i * layout.size) for i in range(count)]
        out = []
        for _ in range(count):
            record, offset = self.unpack_record(data, offset, end)
            out.append(record)
        self._check_end(offset, end, body_offset)
        return out

    def array(self, data: bytes, body_offset: int, size: int) -> np.ndarray:
        """The records of a fixed-size packet as a numpy structured array (a view, no copy)."""
        if self.layout is None:
            raise RecorderError(f"{self.packet_id.name} records are not fixed-size")
        if not self.counted:
            self._check_end(body_offset + self.layout.size, body_offset + size, body_offset)
            return np.frombuffer(data, self.layout.dtype, 1, body_offset)
        count, offset = self._count(data, body_offset, size)
        self._check_end(offset + count * self.layout.size, body_offset + size, body_offset)
        return np.frombuffer(data, self.layout.dtype, count, offset)

    def _count(self, data: bytes, body_offset: int, size: int) -> tuple[int, int]:
        if size < 2:
            raise LogFormatError(
                f"{self.packet_id.name} packet of {size} bytes has no record count", body_offset
            )
        return U16.unpack_from(data, body_offset)[0], body_offset + 2

    def _check_end(self, stop: int, end: int, body_offset: int) -> None:
        if stop != end:
            raise LogFormatError(
                f"{self.packet_id.name} packet: its records need {stop - body_offset} bytes, "
                f"its size says {end - body_offset}",
                body_offset,
            )
