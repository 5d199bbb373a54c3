"""msgpack-rpc as CARLA's client speaks it: requests in, replies out, every size bounded.

Messages are msgpack values back to back on the TCP stream (no length prefix). A request
is `[0, msgid, method, [metadata, args...]]` where `metadata` is CARLA's `[asynchronous]`;
a reply is `[1, msgid, error, result]`. CARLA wraps a result in its Response: a value as
`[[1, value]]`, an error as `[[0, [message]]]`; a void call answers `[[False]]` or
`[[True, [message]]]` (docs/serve.md, "The wire").

The reader never trusts a size from the wire: msgpack's own limits bound every string,
binary, array and map, and the buffer of one connection, so a hostile length costs an error,
not memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runner.serve.errors import MalformedStreamError

try:
    import msgpack
except ImportError as exc:  # pragma: no cover - the serve extra installs it
    raise ImportError(
        "lockstep serve needs the msgpack package: pip install 'lockstep[serve]'"
    ) from exc

__all__ = [
    "MAX_ARRAY",
    "MAX_MESSAGE",
    "VOID",
    "BadRequest",
    "Request",
    "RpcReader",
    "error",
    "ok",
    "pack",
    "reply",
    "void_error",
]

MAX_MESSAGE = 64 << 20  # bytes of one message (an OpenDRIVE text, a texture) and of a buffer
MAX_ARRAY = 1 << 20  # elements of one array (a batch of a million commands)
MAX_MAP = 1 << 10  # CARLA's calls send no maps; a few are tolerated
REQUEST, RESPONSE, NOTIFICATION = 0, 1, 2

VOID = [[False]]  # Response<void> without an error


def ok(value: Any) -> list:
    """CARLA's Response<T> holding `value`."""
    return [[1, value]]


def error(message: str) -> list:
    """CARLA's Response<T> holding an error: the client raises RuntimeError(message)."""
    return [[0, [str(message)]]]


def void_error(message: str) -> list:
    """CARLA's Response<void> holding an error."""
    return [[True, [str(message)]]]


@dataclass(frozen=True, slots=True)
class Request:
    """One call: its id (None for a notification), CARLA's asynchronous flag and arguments."""

    msgid: int | None
    method: str
    asynchronous: bool
    args: list


@dataclass(frozen=True, slots=True)
class BadRequest:
    """A well-framed message that is not a call lockstep can read; `msgid` when it had one."""

    msgid: int | None
    reason: str


_PACKER = msgpack.Packer(use_bin_type=True, autoreset=True)


def pack(value: Any) -> bytes:
    """msgpack bytes of `value` (bytes go out as bin, str as str, floats as float64)."""
    return _PACKER.pack(value)


def reply(msgid: int, result: Any, rpc_error: str | None = None) -> bytes:
    """The reply message to `msgid`; `rpc_error` fails the call at msgpack-rpc's level (the
    client raises "rpc::rpc_error during call in function ...")."""
    return _PACKER.pack([RESPONSE, msgid, rpc_error, result])


class RpcReader:
    """Cuts one connection's bytes into requests, within MAX_MESSAGE bytes buffered.

    `metadata`: the first parameter of every request is CARLA's `[asynchronous]` (the
    simulator's port); without it (the traffic manager's port speaks plain rpclib) every
    parameter is an argument."""

    def __init__(self, metadata: bool = True, max_message: int = MAX_MESSAGE) -> None:
        self._metadata = metadata
        self._limit = max_message
        self._unpacker = msgpack.Unpacker(
            raw=False,
            strict_map_key=False,
            max_buffer_size=max_message,
            max_str_len=max_message,
            max_bin_len=max_message,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_ext_len=0,
        )

    def feed(self, data: bytes) -> list[Request | BadRequest]:
        """The complete messages that `data` finishes, in order; MalformedStreamError when the
        bytes are not msgpack or a message would pass the bounds (the connection is lost)."""
        try:
            self._unpacker.feed(data)
            return [_request(message, self._metadata) for message in self._unpacker]
        except msgpack.exceptions.BufferFull as exc:
            raise MalformedStreamError(f"a message longer than {self._limit} bytes") from exc
        except (ValueError, msgpack.exceptions.UnpackException) as exc:
            # ValueError covers msgpack's FormatError, StackError, ExtraData and a limit passed
            raise MalformedStreamError(f"not msgpack-rpc ({exc})") from exc


def _request(message: Any, metadata: bool) -> Request | BadRequest:
    if not isinstance(message, list) or not message:
        return BadRequest(None, f"a message must be an array, found {_kind(message)}")
    kind = message[0]
    if kind == REQUEST and len(message) == 4:
        msgid, method, params = message[1], message[2], message[3]
        if not isinstance(msgid, int) or isinstance(msgid, bool) or not 0 <= msgid < 1 << 32:
            return BadRequest(None, f"a request id must be a 32-bit unsigned int, found {msgid!r}")
    elif kind == NOTIFICATION and len(message) == 3:
        msgid, method, params = None, message[1], message[2]
    else:
        return BadRequest(
            None, f"expected a request [0, id, method, params], found {message!r:.80}"
        )
    if not isinstance(method, str):
        return BadRequest(msgid, f"a method name must be a string, found {_kind(method)}")
    if not isinstance(params, list):
        return BadRequest(msgid, f"{method}: the parameters must be an array")
    if not metadata:
        return Request(msgid, method, False, params)
    if not params or not isinstance(params[0], list) or len(params[0]) != 1:
        return BadRequest(msgid, f"{method}: the first parameter must be CARLA's [asynchronous]")
    return Request(msgid, method, bool(params[0][0]), params[1:])


def _kind(value: Any) -> str:
    return type(value).__name__
