"""What a path that is not a regular file is, in words, for the errors of every reader
that refuses it (logs, OpenDRIVE maps)."""

from __future__ import annotations

import stat

__all__ = ["file_kind"]


def file_kind(mode: int) -> str:
    """'a directory', 'a pipe', ... for an `os.stat` mode that is not a regular file's."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a pipe"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a file that is not regular"
