"""The bounds an OpenDRIVE file's numbers and size must keep, and the one way a map file is read.

No real map comes near them (the CARLA towns, esmini's maps and lockstep's own towns stay
below 1 500 m per road, 1 500 m from the origin and 0.5 1/m of curvature); they exist so
that a mistyped or hostile number is refused with its element and line instead of giving
NaN geometry, an endless loop or a terabyte allocation. docs/opendrive.md lists them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from world.file_kinds import file_kind
from world.map.opendrive.errors import OpenDriveError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_INTEGER",
    "MAX_LENGTH",
    "MAX_MAGNITUDE",
    "MAX_SPIRAL_TURN",
    "MIN_LENGTH",
    "S_SLACK",
    "read_map_bytes",
]

# Every number: finite and at most this in magnitude (m, rad, 1/m, polynomial coefficients).
# Projected coordinates (UTM northings reach 1e7 m) stay well inside it.
MAX_MAGNITUDE = 1e8
# A road's length and each planView geometry's length, m: at least MIN_LENGTH and at most
# MAX_LENGTH. Sampling a road at 1 m steps is then bounded by MAX_LENGTH samples.
MIN_LENGTH = 1e-6
MAX_LENGTH = 1e6
# Every s and sOffset lies in [-S_SLACK, length + S_SLACK] of its road or lane section.
S_SLACK = 0.01
# Heading change (rad) a spiral may make over the stretch of road it serves: about 16
# full turns. The spiral's quadrature takes one panel per radian.
MAX_SPIRAL_TURN = 100.0
# Integers (lane ids, lane links, validities, sequences) fit a signed 32-bit int, as CARLA's.
MAX_INTEGER = 2**31 - 1
# A map file is read whole: at most this many bytes (512 MiB; Town04, the largest CARLA
# town here, is 3.4 MB).
MAX_FILE_BYTES = 512 * 1024 * 1024


def read_map_bytes(path: str | Path) -> bytes:
    """The bytes of a map file: a regular file of at most MAX_FILE_BYTES, else OpenDriveError
    (a directory, a device such as /dev/zero, a pipe, or a huge file is never read).

    OSError (a missing or unreadable file) propagates.
    """
    source = str(path)
    _check_regular(os.stat(path), source)  # before opening: opening a pipe would block
    with open(path, "rb") as handle:
        _check_regular(os.fstat(handle.fileno()), source)
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise OpenDriveError(
            f"expected at most {MAX_FILE_BYTES} bytes (512 MiB), found more", source=source
        )
    return data


def _check_regular(info: os.stat_result, source: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise OpenDriveError(
            f"expected a regular OpenDRIVE file, found {file_kind(info.st_mode)}", source=source
        )
    if info.st_size > MAX_FILE_BYTES:
        raise OpenDriveError(
            f"expected at most {MAX_FILE_BYTES} bytes (512 MiB), found {info.st_size}",
            source=source,
        )
