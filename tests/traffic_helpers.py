"""Helpers for the traffic and sensor suites: worlds on map files, blueprints as attribute text."""

from __future__ import annotations

from world.blueprints import blueprint_library
from world.map import Map
from world.settings import WorldSettings
from world.world import World


class _Text:
    def __init__(self, attribute_id: str, value: str) -> None:
        self.id = attribute_id
        self._value = value

    def as_str(self) -> str:
        return self._value


class TextBlueprint:
    """A catalogue blueprint whose attributes all read as their text (what the world stores)."""

    def __init__(self, blueprint_id: str, **values: str) -> None:
        bp = blueprint_library().find(blueprint_id)
        for key, value in values.items():
            bp.set_attribute(key, value)
        self.id = bp.id
        self._attributes = [_Text(a.id, a.value) for a in bp]

    def __iter__(self):
        return iter(self._attributes)


def world_on(map_: Map, dt: float = 0.05) -> World:
    world = World(map_)
    world.apply_settings(
        WorldSettings(synchronous_mode=True, fixed_delta_seconds=dt, max_substep_delta_time=dt)
    )
    return world
