"""Helpers for the traffic and sensor suites: worlds on map files (blueprints: world_helpers)."""

from __future__ import annotations

from tests.world_helpers import blueprint
from world.map.map import Map
from world.settings import WorldSettings
from world.world import World

__all__ = ["blueprint", "world_on"]


def world_on(map_: Map, dt: float = 0.05) -> World:
    world = World(map_)
    world.apply_settings(
        WorldSettings(synchronous_mode=True, fixed_delta_seconds=dt, max_substep_delta_time=dt)
    )
    return world
