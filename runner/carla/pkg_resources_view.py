"""What `import pkg_resources` gives a CARLA script when setuptools no longer ships it.

Code of CARLA's 0.9.10 era checks the client's version with
`pkg_resources.get_distribution("carla").version` (leaderboard 1.0's evaluator does, at
import). setuptools 81 and later have no pkg_resources; runner.carla.binding loads this
file under that name only then. It answers `get_distribution` from the installed
distributions' metadata (importlib.metadata, where lockstep's `carla` distribution is
found) and nothing else: any other name of pkg_resources is an AttributeError saying so
(so `from pkg_resources import resource_stream` fails as an ImportError, and code that
falls back on one keeps doing so).
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

__all__ = ["Distribution", "DistributionNotFound", "get_distribution"]


class DistributionNotFound(Exception):  # noqa: N818 (pkg_resources' name)
    """No installed distribution of that name (pkg_resources' exception)."""


@dataclass(frozen=True)
class Distribution:
    """An installed distribution's name and version, as pkg_resources names them."""

    project_name: str
    version: str

    @property
    def key(self) -> str:
        return self.project_name.lower()

    def __str__(self) -> str:
        return f"{self.project_name} {self.version}"


def get_distribution(dist: str | Distribution) -> Distribution:
    """The installed distribution `dist` (a name, or a Distribution returned as it is)."""
    if isinstance(dist, Distribution):
        return dist
    try:
        metadata = importlib.metadata.metadata(dist)
    except importlib.metadata.PackageNotFoundError:
        raise DistributionNotFound(f"The '{dist}' distribution was not found") from None
    return Distribution(metadata["Name"] or dist, metadata["Version"])


def __getattr__(name: str):
    raise AttributeError(
        f"pkg_resources.{name}: setuptools 81 and later ship no pkg_resources; lockstep "
        "answers only get_distribution (install setuptools<81 for the rest)"
    )
