"""Small helpers for the world suites: a flat world with a fixed step, blueprints by id."""

from __future__ import annotations

from world.flat_map import FlatMap
from world.geometry import Location, Rotation, Transform
from world.settings import WorldSettings
from world.world import World


class _Attribute:
    def __init__(self, attribute_id: str, value: str) -> None:
        self.id = attribute_id
        self.value = value


class Blueprint:
    """A blueprint by id with a role_name, shaped as world.blueprints.ActorBlueprint."""

    def __init__(self, blueprint_id: str, role_name: str = "") -> None:
        self.id = blueprint_id
        self._attributes = [_Attribute("role_name", role_name)]

    def __iter__(self):
        return iter(self._attributes)


def flat_world(dt: float = 0.05, **settings) -> World:
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=dt, **settings))
    return world


def at(x: float = 0.0, y: float = 0.0, z: float = 0.0, yaw: float = 0.0) -> Transform:
    return Transform(Location(x, y, z), Rotation(0.0, yaw, 0.0))
