"""Makes `import carla` (and `from carla import command`) give lockstep's namespace, and the
leaderboard's agent module path (`leaderboard.autoagents.autonomous_agent`) give lockstep's
AutonomousAgent, so agents written for CARLA's leaderboard import unchanged.

Code that checks CARLA's version through the package metadata
(`importlib.metadata.version("carla")`, as scenario_runner does) finds 0.9.16: a finder of
installed distributions answers for the name `carla` when no real CARLA client is installed.
Code of the 0.9.10 era asks pkg_resources instead (`pkg_resources.get_distribution("carla")`,
as leaderboard 1.0 does): a real pkg_resources gets the same distribution in its working set
when it is imported, and where setuptools ships none (81 and later),
runner/carla/pkg_resources_view.py answers under that name.
"""

from __future__ import annotations

import importlib.abc
import importlib.metadata
import importlib.util
import sys
import types
from pathlib import Path

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
    if not any(isinstance(f, _PkgResourcesFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _PkgResourcesFinder())


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


class _PkgResourcesFinder(importlib.abc.MetaPathFinder):
    """Finds `pkg_resources`: the real one, which learns of the `carla` distribution when it
    is loaded, or, where none is installed, lockstep's answer (pkg_resources_view.py). It sits
    first on sys.meta_path and asks the other finders before answering."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pkg_resources":
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                spec.loader = _WithCarlaDistribution(spec.loader)
                return spec
        view = Path(__file__).with_name("pkg_resources_view.py")
        return importlib.util.spec_from_file_location(fullname, view)


class _WithCarlaDistribution(importlib.abc.Loader):
    """Loads the real pkg_resources, then adds lockstep's `carla` distribution to its working
    set unless an installed CARLA client already answers."""

    def __init__(self, loader: importlib.abc.Loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        from runner.carla.client import CARLA_VERSION

        self._loader.exec_module(module)
        try:
            module.get_distribution("carla")
        except module.DistributionNotFound:
            carla = module.Distribution(project_name="carla", version=CARLA_VERSION)
            module.working_set.add(carla)


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
