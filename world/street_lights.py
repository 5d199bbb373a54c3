"""The world's street lights (CARLA's carla.LightManager, World.get_lightmanager).

CARLA's street, building and other lights are placed in its levels' meshes; an OpenDRIVE
map carries none, so a lockstep world has no lights. Its LightManager answers every query
as CARLA's does for a level without lights: empty lists, one answer per light given (there
are none to give), and every setter accepted. Code that manages lights around the ego
(scenario_runner's lights behaviour) runs unchanged and finds nothing to switch.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from world.enums import CarlaEnum
from world.errors import WorldError

__all__ = ["LightGroup", "LightManager"]


class LightGroup(CarlaEnum):
    """CARLA's light groups."""

    NONE = 0
    Vehicle = 1
    Street = 2
    Building = 3
    Other = 4


def _none(lights: Iterable[Any]) -> list:
    """The answers for `lights`: one per light, and a lockstep world has none to be given."""
    given = list(lights)
    if given:
        raise WorldError(f"LightManager: {len(given)} lights given, this world has none")
    return []


class LightManager:
    """A world's lights: none (see the module's docstring)."""

    def __init__(self) -> None:
        self.day_night_cycle = True

    def get_all_lights(self, light_group: LightGroup = LightGroup.NONE) -> list:
        return []

    def get_turned_on_lights(self, light_group: LightGroup = LightGroup.NONE) -> list:
        return []

    def get_turned_off_lights(self, light_group: LightGroup = LightGroup.NONE) -> list:
        return []

    def set_day_night_cycle(self, active: bool) -> None:
        """Whether the street lights follow the sun (kept; there are no lights to switch)."""
        self.day_night_cycle = bool(active)

    def turn_on(self, lights: Iterable[Any]) -> None:
        _none(lights)

    def turn_off(self, lights: Iterable[Any]) -> None:
        _none(lights)

    def is_active(self, lights: Iterable[Any]) -> list:
        return _none(lights)

    def get_color(self, lights: Iterable[Any]) -> list:
        return _none(lights)

    def get_intensity(self, lights: Iterable[Any]) -> list:
        return _none(lights)

    def get_light_group(self, lights: Iterable[Any]) -> list:
        return _none(lights)

    def get_light_state(self, lights: Iterable[Any]) -> list:
        return _none(lights)

    def set_active(self, lights: Iterable[Any], active: Any) -> None:
        _none(lights)

    def set_color(self, lights: Iterable[Any], color: Any) -> None:
        _none(lights)

    def set_colors(self, lights: Iterable[Any], colors: Any) -> None:
        _none(lights)

    def set_intensity(self, lights: Iterable[Any], intensity: float) -> None:
        _none(lights)

    def set_intensities(self, lights: Iterable[Any], intensities: Any) -> None:
        _none(lights)

    def set_light_group(self, lights: Iterable[Any], light_group: Any) -> None:
        _none(lights)

    def set_light_groups(self, lights: Iterable[Any], light_groups: Any) -> None:
        _none(lights)

    def set_light_state(self, lights: Iterable[Any], light_state: Any) -> None:
        _none(lights)

    def set_light_states(self, lights: Iterable[Any], light_states: Any) -> None:
        _none(lights)
