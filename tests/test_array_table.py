"""world.kernels.array_table: the arrays a kernel called every tick reads, handed over as one
int64 table of their addresses and shapes, and made again inside the kernel over the same
memory; the autopilot's tick reads its groups this way (tick_fleet)."""

from __future__ import annotations

import numpy as np
import pytest

from world.errors import WorldError
from world.kernels.array_table import ArrayTable
from world.kernels.compiled import numba_dispatcher
from world.physics.tick import PHYSICS_TABLE_KINDS
from world.traffic.autopilot.kernels import FLEET_TABLE_KINDS


def test_the_table_holds_each_array_s_address_rows_and_columns() -> None:
    points = np.zeros((7, 3))
    flags = np.ones(5, dtype=np.bool_)
    table = ArrayTable([(points,), (flags,)], [((np.float64, 2),), ((np.bool_, 1),)])
    assert table.table.dtype == np.int64
    expected = [points.__array_interface__["data"][0], 7, 3]
    expected += [flags.__array_interface__["data"][0], 5, 1]
    assert table.table.tolist() == expected
    assert table.arrays[0] is points and table.arrays[1] is flags  # kept alive


@pytest.mark.parametrize(
    ("array", "found"),
    [
        (np.zeros(4, dtype=np.float32), "float32 of 1 dimensions"),
        (np.zeros((4, 2)), "float64 of 2 dimensions"),
        (np.zeros(8)[::2], "C-contiguous"),
    ],
)
def test_an_array_the_kernel_would_misread_is_refused_by_name(array, found) -> None:
    with pytest.raises(WorldError) as caught:
        ArrayTable([(array,)], [((np.float64, 1),)])
    message = str(caught.value)
    assert "array 0 of group 0" in message and "reads float64 of 1" in message
    if found != "C-contiguous":
        assert found in message


@pytest.mark.parametrize(
    ("table_kinds", "rebuild"),
    [
        (FLEET_TABLE_KINDS, "world.traffic.autopilot.kernels._fleet_groups"),
        (PHYSICS_TABLE_KINDS, "world.physics.tick._physics_groups"),
    ],
)
def test_the_groups_come_back_over_the_same_memory(table_kinds, rebuild) -> None:
    """Each array of a table of the autopilot's or the physics' kinds, made again by the
    kernels' own rebuild (numba compiles it here), has the dtype, shape, values and address
    of the array given."""
    rng = np.random.default_rng(3)
    groups = []
    for kinds in table_kinds:
        group = []
        for dtype, dimensions in kinds:
            shape = (4, 3) if dimensions == 2 else (5,)
            group.append((rng.random(shape) * 100).astype(dtype))
        groups.append(tuple(group))
    table = ArrayTable(groups, table_kinds)
    rebuilt = numba_dispatcher(rebuild)(table.table)
    assert len(rebuilt) == len(groups)
    # a group of one array (the lights' states, the last yaws) comes back as the array
    rebuilt = [(back,) if isinstance(back, np.ndarray) else back for back in rebuilt]
    for given, back in zip(groups, rebuilt, strict=True):
        assert len(back) == len(given)
        for a, b in zip(given, back, strict=True):
            assert b.dtype == a.dtype and b.shape == a.shape
            assert b.__array_interface__["data"][0] == a.__array_interface__["data"][0]
            assert np.array_equal(a, b)
