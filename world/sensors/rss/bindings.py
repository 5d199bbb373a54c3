"""Intel's RSS libraries (ad-rss, ad-map-access), imported on first need and only here.

lockstep's core install does not need them: they come with the `rss` extra
(`pip install 'lockstep[rss]'`). `ad()` returns the `ad_rss_map_integration` module,
which holds the whole `ad` namespace (`ad.rss`, `ad.map`, `ad.physics`), as CARLA's
`carla.ad` does.

Two facts of the wheels shape the import:

* each wheel bundles its own copy of the libraries below it (ad_map_access,
  ad_rss), so the map that `ad.map.access` loads would be a different singleton from
  the one the world-model creation of `ad.rss.map` reads. Importing the package with
  RTLD_GLOBAL makes the first copy of every symbol the only one;
* ad-rss 5's physics and map-point types have no `__float__` (CARLA's bundled 4.x
  bindings had it, and CARLA's RSS examples call `float(...)` on them), so it is added:
  the value's `toBaseType`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
import warnings
from types import ModuleType

from world.errors import WorldError

__all__ = ["EXTRA_HINT", "ad", "available", "require"]

_PACKAGE = "ad_rss_map_integration"
EXTRA_HINT = "install lockstep's rss extra: pip install 'lockstep[rss]'"


def available() -> bool:
    """Whether the RSS libraries are installed (found, not imported)."""
    return importlib.util.find_spec(_PACKAGE) is not None


def require(what: str) -> None:
    """Raises WorldError naming `what` and the extra when the libraries are missing."""
    if not available():
        raise WorldError(
            f"{what} needs Intel's RSS libraries (the ad-rss and ad-map-access wheels): "
            f"{EXTRA_HINT}"
        )


@functools.cache
def ad() -> ModuleType:
    """The `ad` namespace (ad_rss_map_integration), imported once per process."""
    require("the RSS sensor")
    if "ad_map_access" in sys.modules and _PACKAGE not in sys.modules:
        warnings.warn(
            "ad_map_access was imported before lockstep loaded the RSS libraries: its map "
            "may not be the one the RSS checks read (import carla.ad, or spawn the sensor, "
            "first)",
            RuntimeWarning,
            stacklevel=2,
        )
    flags = sys.getdlopenflags()
    sys.setdlopenflags(flags | os.RTLD_GLOBAL)
    try:
        with warnings.catch_warnings():
            # the bundled bindings register some converters twice; Boost.Python says so
            warnings.simplefilter("ignore", RuntimeWarning)
            module = importlib.import_module(_PACKAGE)
    finally:
        sys.setdlopenflags(flags)
    _add_float(module)
    _quiet(module)
    return module


def _add_float(module: ModuleType) -> None:
    """Gives the scalar types of ad.physics and ad.map.point a `__float__`."""
    for namespace in (module.physics, module.map.point):
        for name in dir(namespace):
            kind = getattr(namespace, name)
            if isinstance(kind, type) and hasattr(kind, "toBaseType"):
                kind.__float__ = _to_float


def _to_float(value) -> float:
    return float(value.toBaseType)


def _quiet(module: ModuleType) -> None:
    """CARLA's starting log levels: warnings and worse, for the RSS and map loggers."""
    warn = module.map.access.level_enum.warn
    for namespace in (module.map.access, module.rss.map, module.rss.core):
        namespace.setLogLevel(warn)
