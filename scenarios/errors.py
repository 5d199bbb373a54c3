"""Exception types of the scenarios package."""

from __future__ import annotations

from world.errors import LockstepError


class ScenarioError(LockstepError):
    """A scenario or task used wrongly (tick() outside a task, a bad trigger...)."""
