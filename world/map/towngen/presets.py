"""The parameters of the towns committed under configs/maps/ (a test regenerates them)."""

from __future__ import annotations

from world.map.towngen.spec import TownSpec

TOWN_PRESETS: dict[str, TownSpec] = {
    "town_small": TownSpec(seed=7, blocks_x=2, blocks_y=2, block_size=100.0, lanes=1,
                           name="town_small"),
    "town_medium": TownSpec(seed=11, blocks_x=4, blocks_y=4, block_size=100.0, lanes=(1, 2),
                            curves=True, hills=True, name="town_medium"),
    "town_parking": TownSpec(seed=7, blocks_x=2, blocks_y=2, block_size=100.0, lanes=1,
                             parking=0.5, name="town_parking"),
}  # fmt: skip
