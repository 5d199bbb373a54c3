"""From a request to its reply: the method table, the argument check, CARLA's answer forms.

Each served name maps to a Method: the function (called with the session and the call's
arguments) and how its result goes back (`VALUE`: CARLA's Response<T>, `VOID`:
Response<void>, `BARE`: the value as is, for `apply_batch`'s list and the traffic
manager's plain rpclib replies). A CallError or any lockstep error becomes CARLA's error
answer with its message; a name CARLA's server has and lockstep does not serve answers
that error too (the client raises RuntimeError saying so); a name CARLA does not know fails
at msgpack-rpc's level, as CARLA's server does. Nothing a call does stops the server: an
unexpected exception is logged in one line and answered as an error.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from runner.serve.wire import VOID, BadRequest, Request, error, ok, reply, void_error
from world.errors import LockstepError

__all__ = ["BARE", "VALUE", "VOID_RESULT", "Dispatcher", "Method"]

VALUE, VOID_RESULT, BARE = "value", "void", "bare"


@dataclass(frozen=True, slots=True)
class Method:
    """A served call: `function(session, *args)` and its result form; `least` and `most`
    are how many arguments it takes (worked out once from its signature)."""

    function: Callable[..., Any]
    result: str = VALUE
    least: int = field(init=False, compare=False)
    most: float = field(init=False, compare=False)

    def __post_init__(self) -> None:
        parameters = list(inspect.signature(self.function).parameters.values())[1:]
        positional = [p for p in parameters if p.kind is not inspect.Parameter.VAR_POSITIONAL]
        required = [p for p in positional if p.default is inspect.Parameter.empty]
        variadic = len(positional) < len(parameters)
        object.__setattr__(self, "least", len(required))
        object.__setattr__(self, "most", math.inf if variadic else len(positional))


class Dispatcher:
    """Answers requests with a session's methods; `unserved` names CARLA's calls lockstep
    does not serve, with their result forms (their error answers must match them)."""

    def __init__(
        self,
        session: Any,
        methods: Mapping[str, Method],
        unserved: Mapping[str, str],
        log: Callable[[str], None],
    ) -> None:
        self.session = session
        self.methods = methods
        self.unserved = unserved
        self.log = log
        self._said: set[str] = set()

    def _say_once(self, name: str, message: str) -> None:
        """A call that is not served is said once (a script may send it every tick)."""
        if name not in self._said:
            self._said.add(name)
            self.log(message)

    def __call__(self, item: Request | BadRequest) -> bytes | None:
        if isinstance(item, BadRequest):
            self.log(f"malformed request: {item.reason}")
            return None if item.msgid is None else reply(item.msgid, None, item.reason)
        result = self.answer(item.method, item.args)
        return None if item.msgid is None else reply(item.msgid, *result)

    def answer(self, name: str, args: list) -> tuple[Any, str | None]:
        """(result, rpc error) of one call."""
        method = self.methods.get(name)
        if method is None:
            if name in self.unserved:
                message = f"lockstep serve does not serve {name!r} (a CARLA call lockstep lacks)"
                self._say_once(name, message)
                return _failure(self.unserved[name], message)
            self._say_once(name, f"unknown method {name!r}")
            return None, f"unknown method {name!r}"
        if not method.least <= len(args) <= method.most:
            if method.least == method.most:
                count = str(method.least)
            elif method.most == math.inf:
                count = f"{method.least} or more"
            else:
                count = f"{method.least} to {method.most}"
            message = f"{name}: expected {count} arguments, found {len(args)}"
            self.log(message)
            return _failure(method.result, message)
        try:
            value = method.function(self.session, *args)
        except LockstepError as exc:
            return _failure(method.result, str(exc))
        except Exception as exc:  # a bug must not take the server down: say it, answer it
            message = f"lockstep serve: internal error in {name}: {type(exc).__name__}: {exc}"
            self.log(message)
            return _failure(method.result, message)
        if method.result == VALUE:
            return ok(value), None
        if method.result == VOID_RESULT:
            return VOID, None
        return value, None


def _failure(result: str, message: str) -> tuple[Any, str | None]:
    """CARLA's error answer in the call's form; a bare result can only fail at msgpack-rpc's
    level."""
    if result == VOID_RESULT:
        return void_error(message), None
    if result == VALUE:
        return error(message), None
    return None, message
