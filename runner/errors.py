"""Exception types of the runner package."""

from __future__ import annotations

from world.errors import LockstepError


class RunnerError(LockstepError):
    """Base of the runner's errors (bad config, bad agent, failed check...)."""


class UsageError(RunnerError):
    """A command line that cannot be carried out."""


class ConfigError(RunnerError):
    """A YAML config or route file that cannot be used: names the file, line and key path."""


class AgentError(RunnerError):
    """An agent that cannot be loaded or set up, or whose sensors are invalid."""


class CheckError(RunnerError):
    """A run directory that `lockstep check` cannot re-simulate."""


class ViewError(RunnerError):
    """A run directory or log that `lockstep view` or `lockstep export` cannot show."""
