"""Exception types of the runner package."""

from __future__ import annotations

from world.errors import LockstepError


class RunnerError(LockstepError):
    """Base of the runner's errors (bad config, bad agent, failed check...)."""


class UsageError(RunnerError):
    """A command line that cannot be carried out."""
