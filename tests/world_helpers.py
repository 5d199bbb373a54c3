"""Small helpers for the world suites: a flat world with a fixed step, blueprints by id."""

from __future__ import annotations

from world.blueprints import ActorBlueprint, blueprint_library
from world.flat_map import FlatMap
from world.geometry import Location, Rotation, Transform
from world.settings import WorldSettings
from world.world import World

_LIBRARY = blueprint_library()


def blueprint(blueprint_id: str, role_name: str | None = None, **values: str) -> ActorBlueprint:
    """A fresh copy of CARLA's blueprint `blueprint_id`, with `role_name` and other attributes
    set when given."""
    bp = _LIBRARY.find(blueprint_id).copy()
    if role_name is not None:
        bp.set_attribute("role_name", role_name)
    for key, value in values.items():
        bp.set_attribute(key, value)
    return bp


def flat_world(dt: float = 0.05, **settings) -> World:
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=dt, **settings))
    return world


def at(x: float = 0.0, y: float = 0.0, z: float = 0.0, yaw: float = 0.0) -> Transform:
    return Transform(Location(x, y, z), Rotation(0.0, yaw, 0.0))
