"""lockstep as CARLA's `carla` module: the names of CARLA 0.9.16's Python API it implements.

`lockstep exec SCRIPT` (and the runner's agent loader) bind this package as `carla`, so
scripts written for CARLA run unchanged on an in-process world: `carla.Client` (a
simulation per port, runner.carla.client), `carla.command` (batches), the world's types
(world/) and the few value types only the client side needs (runner.carla.values). A name
of CARLA's API that lockstep lacks raises `NotInLockstepError` (an AttributeError naming it),
at the module and on every class lockstep has; docs/carla-compat.md lists which is which.
It is not a top-level `carla` package, so a real CARLA client installed beside lockstep
keeps its name.
"""

from __future__ import annotations

import sys

import world as _world
from runner.carla import command
from runner.carla.client import Client
from runner.carla.missing import NotInLockstepError as NotInLockstepError
from runner.carla.missing import bind_missing_members, missing_class, rss_namespace
from runner.carla.reference import CARLA_API, COMMAND_API, ENUMS, UNDESCRIBED
from runner.carla.values import FloatColor, MapLayer, OpendriveGenerationParameters
from world.debug import DebugHelper
from world.probes import EnvironmentObject, LabelledPoint
from world.sensors.data import CollisionEvent
from world.snapshot import ActorSnapshot, Timestamp, WorldSnapshot
from world.traffic.autopilot.manager import TrafficManager

_LOCAL = {
    "Client": Client,
    "CollisionEvent": CollisionEvent,  # the collision sensor's data (world's is the physics')
    "DebugHelper": DebugHelper,
    "EnvironmentObject": EnvironmentObject,
    "FloatColor": FloatColor,
    "LabelledPoint": LabelledPoint,
    "MapLayer": MapLayer,
    "OpendriveGenerationParameters": OpendriveGenerationParameters,
    "ActorSnapshot": ActorSnapshot,
    "Timestamp": Timestamp,
    "WorldSnapshot": WorldSnapshot,
    "TrafficManager": TrafficManager,
}
_NAMES = {name: getattr(_world, name) for name in _world.__all__} | _LOCAL
globals().update(_NAMES)

__all__ = sorted([*_NAMES, "NotInLockstepError", "command"])

_MEMBERS = {n: CARLA_API[n] + UNDESCRIBED.get(n, ()) for n in CARLA_API}
bind_missing_members({n: c for n, c in _NAMES.items() if isinstance(c, type)}, _MEMBERS)
bind_missing_members(
    {n: getattr(command, n) for n in COMMAND_API if isinstance(getattr(command, n, None), type)},
    {n: COMMAND_API[n] + UNDESCRIBED.get(n, ()) for n in COMMAND_API},
)


# CARLA's compiled module: scripts name classes through it too (carla.libcarla.Image)
libcarla = sys.modules[__name__]


def __getattr__(name: str):
    """A class of CARLA's that lockstep lacks is a stand-in class (runner.carla.missing):
    `isinstance(x, carla.Image)` is False, making one or reading from it raises
    NotInLockstepError naming it. `carla.ad` is the RSS build's namespace."""
    if name == "ad":  # the RSS build's `ad` namespace (ad.rss, ad.map, ad.physics)
        return rss_namespace()
    if name in CARLA_API or name in ENUMS:
        return missing_class(name)
    raise AttributeError(f"module 'carla' has no attribute {name!r}")
