"""Small helpers for the world suites: a flat world with a fixed step, blueprints by id, a
straight road as OpenDRIVE text."""

from __future__ import annotations

from world.actors.blueprints import ActorBlueprint, blueprint_library
from world.geometry import Location, Rotation, Transform
from world.map.flat_map import FlatMap
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


def straight_road(name: str, left: list[int], right: list[int], length: float = 600.0) -> str:
    """OpenDRIVE text of one straight road along +x (no junction) with 3.5 m driving lanes:
    `left` and `right` are their ids, listed from the reference line outward."""

    def lanes(ids: list[int]) -> str:
        return "".join(
            f'<lane id="{i}" type="driving" level="false">'
            '<width sOffset="0.0" a="3.5" b="0.0" c="0.0" d="0.0"/></lane>'
            for i in ids
        )

    left_xml = f"<left>{lanes(left)}</left>" if left else ""
    right_xml = f"<right>{lanes(right)}</right>" if right else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?><OpenDRIVE>'
        f'<header revMajor="1" revMinor="4" name="{name}"/>'
        f'<road id="1" name="{name}" length="{length}" junction="-1"><planView>'
        f'<geometry s="0.0" x="0.0" y="0.0" hdg="0.0" length="{length}"><line/></geometry>'
        f'</planView><lanes><laneSection s="0.0">{left_xml}'
        '<center><lane id="0" type="none" level="false"/></center>'
        f"{right_xml}</laneSection></lanes></road></OpenDRIVE>"
    )
