"""Exception types of the world package, and lockstep's one base exception."""

from __future__ import annotations


class LockstepError(Exception):
    """Base of every error lockstep raises on purpose; the CLI prints its message in one line."""


class WorldError(LockstepError):
    """A world operation that cannot be done (bad settings, unknown blueprint, dead actor...)."""


class MapError(WorldError):
    """An OpenDRIVE file or map query that cannot be read or answered."""


class BlueprintError(WorldError):
    """An unknown blueprint or attribute, or an attribute value that cannot be set or read."""
