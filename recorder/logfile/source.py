"""A log's bytes without reading the file into memory: regular files only, memory-mapped.

`map_log(path)` maps the file read-only: nothing is copied, the OS reads pages as they are
touched. A reader that walks the log once calls `PageReleaser.release(upto)` behind itself, which
drops the pages before `upto` from the process (they stay in the OS's file cache), so a
query's memory does not grow with the log. Only regular files are read: a device, a pipe or
a directory is refused with an error naming it (`/dev/zero` would never end).
"""

from __future__ import annotations

import mmap
import os
import stat
from pathlib import Path

from recorder.errors import RecorderError
from world.file_kinds import file_kind

LogBytes = bytes | bytearray | memoryview | mmap.mmap
_PAGE = mmap.PAGESIZE


def regular_file(path: str | Path, what: str = "file") -> os.stat_result:
    """The stat of `path` if it is a regular file, else a RecorderError naming what it is."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise RecorderError(f"{path}: not a regular file ({file_kind(info.st_mode)}); a {what} is")
    return info


def map_log(path: str | Path) -> LogBytes:
    """The file's bytes, memory-mapped read-only (empty bytes for an empty file)."""
    regular_file(path, "CARLA log")
    with open(path, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):  # replaced between the two looks
            raise RecorderError(f"{path}: not a regular file ({file_kind(info.st_mode)})")
        if info.st_size == 0:
            return b""
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def read_bounded(path: str | Path, limit: int, what: str) -> bytes:
    """A whole regular file of at most `limit` bytes (a RecorderError names a bigger one)."""
    size = regular_file(path, what).st_size
    if size > limit:
        raise RecorderError(
            f"{path}: {size} bytes, more than the {limit >> 20} MiB a {what} may hold"
        )
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:  # grew since the stat
        raise RecorderError(f"{path}: more than the {limit >> 20} MiB a {what} may hold")
    return data


class PageReleaser:
    """Drops a mapping's pages behind a reader that walks it once (see the module).

    The pages before byte `upto` leave the process; touched again later, they are read
    again from the file. Nothing to do for bytes in memory."""

    def __init__(self, data: LogBytes):
        self._mapping = data if isinstance(data, mmap.mmap) else None
        self._done = 0

    def release(self, upto: int) -> None:
        stop = (upto // _PAGE) * _PAGE
        if self._mapping is None or stop <= self._done or not hasattr(mmap, "MADV_DONTNEED"):
            return
        self._mapping.madvise(mmap.MADV_DONTNEED, self._done, stop - self._done)
        self._done = stop
