"""Exception types of the recorder package."""

from __future__ import annotations

from world.errors import LockstepError


class RecorderError(LockstepError):
    """Base of the recorder's errors."""


class LogFormatError(RecorderError):
    """A log that is truncated or corrupt: the message names the byte offset and the frame."""

    def __init__(self, message: str, offset: int | None = None, frame: int | None = None):
        where = []
        if offset is not None:
            where.append(f"byte {offset}")
        if frame is not None:
            where.append(f"frame {frame}")
        super().__init__(f"{message} (at {', '.join(where)})" if where else message)
        self.offset = offset
        self.frame = frame


class ReplayError(RecorderError):
    """A replay that cannot go on: a bad time advance, or a record that cannot be played."""
