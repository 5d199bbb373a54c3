"""Named numpy arrays in one binary blob, the form the run page (runner/view) reads its data in.

The blob: the magic `LSVS`, a u32 version and a u32 section count; then per section a
directory entry of 16 bytes (an 8-byte ASCII name padded with NULs, a u8 element type, three
zero bytes, a u32 element count); then each section's elements, little-endian, each section
starting at a multiple of 8 bytes from the blob's start. So the page makes a typed-array
view of every section without copying (JavaScript's typed arrays need aligned offsets).
"""

from __future__ import annotations

import struct

import numpy as np

MAGIC = b"LSVS"
VERSION = 1
# element type codes, as the page's reader knows them
TYPE_CODES = {
    np.dtype("u1"): 1,
    np.dtype("i1"): 2,
    np.dtype("<u2"): 3,
    np.dtype("<i2"): 4,
    np.dtype("<u4"): 5,
    np.dtype("<i4"): 6,
    np.dtype("<f4"): 7,
    np.dtype("<f8"): 8,
}
_DTYPES = {code: dtype for dtype, code in TYPE_CODES.items()}
_HEAD = struct.Struct("<4sII")
_ENTRY = struct.Struct("<8sB3xI")


def pack_sections(sections: dict[str, np.ndarray]) -> bytes:
    """The blob of `sections` (name -> 1-D array of one of TYPE_CODES' types), in order."""
    parts = [_HEAD.pack(MAGIC, VERSION, len(sections))]
    arrays = []
    for name, array in sections.items():
        raw = name.encode("ascii")
        if len(raw) > 8:
            raise ValueError(f"section name {name!r} is longer than 8 bytes")
        data = np.ascontiguousarray(array).reshape(-1)
        dtype = data.dtype.newbyteorder("<") if data.dtype.byteorder == ">" else data.dtype
        if dtype not in TYPE_CODES:
            raise ValueError(f"section {name!r}: no element type code for {data.dtype}")
        parts.append(_ENTRY.pack(raw, TYPE_CODES[dtype], len(data)))
        arrays.append(data.astype(dtype, copy=False))
    size = sum(len(p) for p in parts)
    for data in arrays:
        pad = -size % 8
        parts.append(b"\0" * pad)
        parts.append(data.tobytes())
        size += pad + data.nbytes
    return b"".join(parts)


def unpack_sections(blob: bytes) -> dict[str, np.ndarray]:
    """The sections of a blob (the reverse of pack_sections; read-only views)."""
    magic, version, count = _HEAD.unpack_from(blob, 0)
    if magic != MAGIC or version != VERSION:
        raise ValueError(f"not a section blob of version {VERSION}: {magic!r} {version}")
    entries = [_ENTRY.unpack_from(blob, _HEAD.size + k * _ENTRY.size) for k in range(count)]
    offset = _HEAD.size + count * _ENTRY.size
    out = {}
    for raw, code, length in entries:
        dtype = _DTYPES[code]
        offset += -offset % 8
        out[raw.rstrip(b"\0").decode("ascii")] = np.frombuffer(blob, dtype, length, offset)
        offset += length * dtype.itemsize
    return out
