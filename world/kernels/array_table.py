"""Arrays handed to a compiled call as one int64 table of their addresses and shapes.

Every array handed from Python to a compiled kernel costs its unboxing on each call (a
MemInfo made and freed, a type check: ~45 ns an array from the ahead-of-time module), and
inside, an atomic reference count each time it is handed on to another compiled function
(a NamedTuple of columns counts each of its arrays). A kernel that takes dozens of arrays
every tick takes instead one ArrayTable's `table` (three int64 an array: its address, rows
and columns) and makes each array again with `column` and `matrix` (numba's carray: the
same memory, no MemInfo, so no reference counts at all).

The table holds the arrays it points into, so no address outlives its array while the table
lives; whoever keeps a table makes it again whenever one of its arrays is replaced (a table
that grew, a fleet whose membership changed). Each array is checked once, when the table is
made, against the dtype and the dimensions the kernel reads it with (`kinds`): a kernel
reads the bytes as it was written to, whatever they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from world.errors import WorldError
from world.kernels.compiled import from_numba, njit

__all__ = ["ArrayTable", "column", "matrix"]

_address, carray = from_numba("world.kernels.intrinsics", "address", "carray")


class ArrayTable:
    """The addresses and shapes of groups of arrays, in one int64 array (`table`)."""

    __slots__ = ("arrays", "table")

    def __init__(self, groups: Sequence[tuple], kinds: Sequence[tuple]) -> None:
        """`groups`: tuples of arrays (NamedTuples or plain), in the order the kernel reads
        them; `kinds`: for each group, a tuple of (dtype, dimensions) pairs in its field
        order, as the kernel makes them again (1 or 2 dimensions, C order)."""
        if len(groups) != len(kinds):
            raise WorldError(f"an array table of {len(groups)} groups, read as {len(kinds)}")
        arrays: list[np.ndarray] = []
        table: list[int] = []
        for g, (group, kind) in enumerate(zip(groups, kinds, strict=True)):
            if len(group) != len(kind):
                raise WorldError(
                    f"group {g} of an array table has {len(group)} arrays, read as {len(kind)}"
                )
            names = getattr(kind, "_fields", range(len(kind)))
            for name, array, (dtype, dimensions) in zip(names, group, kind, strict=True):
                if (
                    not isinstance(array, np.ndarray)
                    or array.dtype != dtype
                    or array.ndim != dimensions
                    or not array.flags.c_contiguous
                ):
                    found = (
                        f"{array.dtype} of {array.ndim} dimensions"
                        if isinstance(array, np.ndarray)
                        else type(array).__name__
                    )
                    raise WorldError(
                        f"array {name} of group {g} of an array table is {found}, the kernel "
                        f"reads {np.dtype(dtype)} of {dimensions}, C-contiguous"
                    )
                arrays.append(array)
                columns = array.shape[1] if dimensions == 2 else 1
                table += [array.ctypes.data, array.shape[0], columns]
        self.arrays = tuple(arrays)  # what the addresses point into, kept alive
        self.table = np.array(table, dtype=np.int64)


@njit(cache=True, inline="always")
def column(table, k, dtype):
    """Array k of an ArrayTable's table, of one dimension, as `dtype` (a numpy scalar type)."""
    return carray(_address(table[3 * k]), table[3 * k + 1], dtype)


@njit(cache=True, inline="always")
def matrix(table, k, dtype):
    """Array k of an ArrayTable's table, of two dimensions, as `dtype`."""
    return carray(_address(table[3 * k]), (table[3 * k + 1], table[3 * k + 2]), dtype)
