"""Where `carla.Client` finds maps by name: OpenDRIVE files in folders, and lockstep's towns.

A name is looked up as CARLA's client gives it (`Town01`, `/Game/Carla/Maps/Town01`,
`Town10HD_Opt`): the last path part, then without CARLA's `_Opt` suffix. Folders are
searched in the order given (`lockstep exec --maps DIR`, then $LOCKSTEP_MAPS, a list
separated like PATH) for `<name>.xodr`; lockstep's own towns (world.map.towngen's presets:
town_small, town_medium) are generated when no folder has the name.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from runner.errors import RunnerError

__all__ = ["MapCatalog", "map_key"]

GAME_PREFIX = "/Game/Carla/Maps/"


def map_key(name: str) -> str:
    """The bare map name of a CARLA map path or name."""
    return str(name).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


@dataclass(slots=True)
class MapCatalog:
    """The maps a client can load, by name."""

    folders: list[Path] = field(default_factory=list)

    @classmethod
    def from_environment(cls, folders: list[str] | None = None) -> MapCatalog:
        paths = [Path(f) for f in folders or []]
        paths += [Path(p) for p in os.environ.get("LOCKSTEP_MAPS", "").split(os.pathsep) if p]
        return cls(paths)

    def names(self) -> list[str]:
        """Every loadable name: the folders' maps in folder order, then lockstep's towns."""
        from world.map.towngen import TOWN_PRESETS

        found: list[str] = []
        for folder in self.folders:
            if folder.is_dir():
                found += [p.stem for p in sorted(folder.glob("*.xodr")) if p.stem not in found]
        found += [name for name in TOWN_PRESETS if name not in found]
        return found

    def opendrive(self, name: str) -> tuple[str, str]:
        """(map name, OpenDRIVE text) for `name`; RunnerError with CARLA's text if unknown."""
        key = map_key(name)
        candidates = [key] + ([key[: -len("_Opt")]] if key.endswith("_Opt") else [])
        for candidate in candidates:
            for folder in self.folders:
                path = folder / f"{candidate}.xodr"
                if path.is_file():
                    return candidate, path.read_text(encoding="utf-8")
        from world.map.towngen import TOWN_PRESETS, render_town

        for candidate in candidates:
            if candidate in TOWN_PRESETS:
                return candidate, render_town(TOWN_PRESETS[candidate])
        raise RunnerError(f"Map '{key}' not found")
