"""Arrays made over a bytearray, so a measurement hands its records over without copying them.

A sensor's data class holds its bytes in a bytearray (CARLA's raw_data); a sensor that
writes its records into `records_array`'s array and hands `records_bytes` of it to the
data class copies nothing (an 800x600 picture is 1.9 MB: `bytearray(a.tobytes())` copied it
twice, about a millisecond a frame).
"""

from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["records_array", "records_bytes"]


def records_array(shape: int | tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    """An uninitialised C-ordered array of `shape` and `dtype` over a bytearray of its own:
    its caller writes every record (a kernel's pass over the pixels)."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return np.frombuffer(_unfilled_bytearray(size), dtype).reshape(shape)


# CPython's PyByteArray_FromStringAndSize with no source: a bytearray whose bytes are left as
# the allocator gives them (bytearray(n) writes n zeros first, 1 ms for a 1920x1080 picture)
_FROM_STRING_AND_SIZE = ctypes.pythonapi.PyByteArray_FromStringAndSize
_FROM_STRING_AND_SIZE.restype = ctypes.py_object
_FROM_STRING_AND_SIZE.argtypes = (ctypes.c_char_p, ctypes.c_ssize_t)


def _unfilled_bytearray(size: int) -> bytearray:
    """A bytearray of `size` bytes, not filled."""
    return _FROM_STRING_AND_SIZE(None, size)


def records_bytes(records: np.ndarray) -> bytearray:
    """The records' bytes: the bytearray a records_array's whole array is made over, as it is;
    any other array's bytes copied once."""
    owner = records.base
    while isinstance(owner, np.ndarray):
        owner = owner.base
    buffer = owner.obj if isinstance(owner, memoryview) else None
    if (
        isinstance(buffer, bytearray)
        and len(buffer) == records.nbytes
        and records.flags.c_contiguous
    ):
        return buffer
    return bytearray(np.ascontiguousarray(records))
