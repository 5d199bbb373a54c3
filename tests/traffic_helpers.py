"""Helpers for the traffic and sensor suites: catalogue blueprints, worlds on map files."""

from __future__ import annotations

from world.blueprints import ActorBlueprint, blueprint_library
from world.map import Map
from world.settings import WorldSettings
from world.world import World


def blueprint(blueprint_id: str, **values: str) -> ActorBlueprint:
    """A catalogue blueprint with some attributes set."""
    bp = blueprint_library().find(blueprint_id)
    for key, value in values.items():
        bp.set_attribute(key, value)
    return bp


def world_on(map_: Map, dt: float = 0.05) -> World:
    world = World(map_)
    world.apply_settings(
        WorldSettings(synchronous_mode=True, fixed_delta_seconds=dt, max_substep_delta_time=dt)
    )
    return world
