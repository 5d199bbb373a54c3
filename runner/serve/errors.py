"""Exception types of the CARLA server (runner.serve)."""

from __future__ import annotations

from runner.errors import RunnerError

__all__ = ["CallError", "MalformedStreamError", "ServeError"]


class ServeError(RunnerError):
    """Base of the server's errors."""


class MalformedStreamError(ServeError):
    """Bytes on a connection that are not the protocol: the connection cannot go on."""


class CallError(ServeError):
    """A call that cannot be answered as asked (bad arguments, a missing actor, a name
    lockstep does not serve); its message goes back to the client as CARLA's error."""
