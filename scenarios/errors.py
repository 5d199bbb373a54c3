"""Exception types of the scenarios package."""

from __future__ import annotations

from world.errors import LockstepError


class ScenarioError(LockstepError):
    """A scenario or task used wrongly (tick() outside a task, a bad trigger...)."""


class UnknownScenarioTypeError(ScenarioError):
    """A scenario type the library does not have; the message lists the ones it has."""

    def __init__(self, type_name: str, known: list[str]) -> None:
        self.type_name = type_name
        super().__init__(
            f"unknown scenario type {type_name!r} (lockstep's scenario library has: "
            f"{', '.join(known) or 'none yet'})"
        )


class ScenarioParameterError(ScenarioError):
    """A scenario parameter that is unknown, missing or of the wrong shape."""

    def __init__(self, type_name: str, parameter: str, problem: str) -> None:
        self.type_name, self.parameter = type_name, parameter
        super().__init__(f"scenario {type_name}: parameter {parameter!r}: {problem}")


class ScenarioNotImplementedError(ScenarioError):
    """A registered type (its parameters are checked) whose behaviour is not written yet."""

    def __init__(self, type_name: str) -> None:
        super().__init__(f"scenario type {type_name} is not implemented yet")
