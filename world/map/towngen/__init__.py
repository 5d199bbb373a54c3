"""lockstep's town generator: seeded grids of city blocks written as OpenDRIVE.

`generate_town(seed, blocks_x, blocks_y, block_size, lanes, curves, hills, ...)` returns the
OpenDRIVE text; `TownSpec` holds the same parameters; `render_town(spec)` writes one spec;
`build_town(spec)` gives the town as an `OpenDrive` document model.
`TOWN_PRESETS` are the parameters of the towns committed under configs/maps/.
"""

from __future__ import annotations

from world.map.opendrive.writer import write_opendrive
from world.map.towngen.build import build_town
from world.map.towngen.presets import TOWN_PRESETS
from world.map.towngen.spec import TownSpec, TownSpecError


def render_town(spec: TownSpec) -> str:
    """The OpenDRIVE text of the town `spec` describes (same spec, same bytes)."""
    return write_opendrive(build_town(spec))


def generate_town(
    seed: int = 0,
    blocks_x: int = 2,
    blocks_y: int = 2,
    block_size: float = 100.0,
    lanes: int | tuple[int, int] = 1,
    curves: bool = False,
    hills: bool = False,
    **options,
) -> str:
    """A seeded town as OpenDRIVE text; `options` are the other TownSpec fields."""
    spec = TownSpec(
        seed=seed,
        blocks_x=blocks_x,
        blocks_y=blocks_y,
        block_size=block_size,
        lanes=lanes,
        curves=curves,
        hills=hills,
        **options,
    )
    return render_town(spec)


__all__ = [
    "TOWN_PRESETS",
    "TownSpec",
    "TownSpecError",
    "build_town",
    "generate_town",
    "render_town",
]
