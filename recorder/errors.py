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


class NotARecorderError(LogFormatError):
    """A file whose header does not start CARLA's way (version, then the magic
    `CARLA_RECORDER`); the queries answer it with CARLA's text `NOT_A_RECORDER`."""


class TruncatedLogWarning(UserWarning):
    """A log that ends inside a frame (or holds a corrupt packet): the queries answered up to
    its last complete frame, as CARLA's query answers with what it could read."""


# CARLA's query text for a file that is not a recorder log (CarlaRecorderQuery::CheckFileInfo).
NOT_A_RECORDER = "File is not a CARLA recorder\n"
# Error messages quote at most this many bytes of a file.
QUOTE_BYTES = 32


def quoted(value: object, limit: int = QUOTE_BYTES) -> str:
    """A piece of a file for an error message: its repr, cut after `limit` bytes with the
    whole length said (a 48 KB magic is not a 48 KB message)."""
    if isinstance(value, bytes):
        raw = value
    elif isinstance(value, str):
        raw = value.encode("utf-8", "surrogateescape")
    else:
        text = repr(value)
        raw = text.encode("utf-8", "replace")
        if len(raw) <= limit:
            return text
        return f"{raw[:limit].decode('utf-8', 'replace')}... ({len(raw)} bytes)"
    if len(raw) <= limit:
        return repr(value)
    cut = raw[:limit]
    shown: str | bytes = cut if isinstance(value, bytes) else cut.decode("utf-8", "replace")
    return f"{shown!r}... ({len(raw)} bytes)"


class PictureError(RecorderError):
    """A picture of a log that cannot be drawn: bad times, an unknown actor, no Pillow."""
