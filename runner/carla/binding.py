"""Makes `import carla` (and `from carla import command`) give lockstep's namespace, and the
leaderboard's agent module path (`leaderboard.autoagents.autonomous_agent`) give lockstep's
AutonomousAgent, so agents written for CARLA's leaderboard import unchanged.

Code that checks CARLA's version through the package metadata
(`importlib.metadata.version("carla")`, as scenario_runner does) finds 0.9.16: a finder of
installed distributions answers for the name `carla` when no real CARLA client is installed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
import types

__all__ = ["bind_carla", "bind_leaderboard"]

_LEADERBOARD_AGENT = "leaderboard.autoagents.autonomous_agent"


def bind_carla() -> None:
    """Binds runner.carla as the module `carla` in this process (and carla.command), and
    answers for a `carla` distribution of CARLA's version when none is installed."""
    import runner.carla as namespace
    from runner.carla import command

    sys.modules["carla"] = namespace
    sys.modules["carla.command"] = command
    if not any(isinstance(f, _CarlaDistributionFinder) for f in sys.meta_path):
        sys.meta_path.append(_CarlaDistributionFinder())


class _CarlaDistribution(importlib.metadata.Distribution):
    """The metadata of a `carla` distribution at the API version lockstep follows."""

    def read_text(self, filename: str) -> str | None:
        from runner.carla.client import CARLA_VERSION

        if filename == "METADATA":
            return f"Metadata-Version: 2.1\nName: carla\nVersion: {CARLA_VERSION}\n"
        return None

    def locate_file(self, path: str) -> str:  # type: ignore[override]
        return str(path)


class _CarlaDistributionFinder(importlib.metadata.DistributionFinder):
    """Finds the `carla` distribution above, only when no installed one answers (it sits at
    the end of sys.meta_path and looks at the path-based finders' answer first)."""

    def find_spec(self, *args: object, **kwargs: object) -> None:
        return None  # finds no modules: metadata only

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):  # noqa: B008
        name = getattr(context, "name", None)
        if name is None or name.lower() != "carla":
            return iter(())
        installed = importlib.metadata.MetadataPathFinder.find_distributions(context)
        if next(iter(installed), None) is not None:
            return iter(())
        return iter((_CarlaDistribution(),))


def bind_leaderboard() -> None:
    """Binds `carla` and, unless CARLA's leaderboard package is imported or importable (then
    its own AutonomousAgent serves, and its neighbours import), the leaderboard's agent
    module to runner.agents.base (AutonomousAgent, Track)."""
    bind_carla()
    if _LEADERBOARD_AGENT in sys.modules:
        return
    if "leaderboard" not in sys.modules and importlib.util.find_spec("leaderboard") is not None:
        return
    from runner.agents import base

    for name in ("leaderboard", "leaderboard.autoagents"):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = []  # a namespace of lockstep's own, nothing on disk
            sys.modules[name] = package
    sys.modules[_LEADERBOARD_AGENT] = base
    sys.modules["leaderboard.autoagents"].autonomous_agent = base
