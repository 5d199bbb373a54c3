"""A world's settings (CARLA's carla.WorldSettings; the seed names it EpisodeSettings).

lockstep runs synchronously with a fixed step only, so `synchronous_mode` must be
True and `fixed_delta_seconds` a finite number > 0. With `substepping`, CARLA's
rule `fixed_delta_seconds <= max_substep_delta_time * max_substeps` holds, and
the tick is cut into the fewest substeps no longer than `max_substep_delta_time`.
The other fields are kept as data, as CARLA's server keeps them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from world.errors import WorldError

__all__ = ["EpisodeSettings", "WorldSettings", "substep_count"]


@dataclass(slots=True)
class WorldSettings:
    """CARLA's WorldSettings fields and defaults, with lockstep's synchronous default."""

    synchronous_mode: bool = True
    no_rendering_mode: bool = False
    fixed_delta_seconds: float | None = None
    substepping: bool = True
    max_substep_delta_time: float = 0.01
    max_substeps: int = 10
    max_culling_distance: float = 0.0
    deterministic_ragdolls: bool = False
    tile_stream_distance: float = 3000.0
    actor_active_distance: float = 2000.0
    spectator_as_ego: bool = True

    def copy(self) -> WorldSettings:
        """A copy (get_settings hands one out each call, so it is built plainly, not through
        dataclasses.replace's field walk)."""
        return WorldSettings(*[getattr(self, name) for name in _SETTING_NAMES])

    def validate(self) -> None:
        """Raises WorldError naming the first field that CARLA or lockstep refuses."""
        if not self.synchronous_mode:
            raise WorldError(
                "WorldSettings.synchronous_mode: lockstep runs synchronously only "
                "(expected True, found False)"
            )
        dt = self.fixed_delta_seconds
        if dt is None:
            raise WorldError("WorldSettings.fixed_delta_seconds is required (found None)")
        if isinstance(dt, bool) or not isinstance(dt, int | float):
            raise WorldError(f"WorldSettings.fixed_delta_seconds: expected a number, found {dt!r}")
        if not math.isfinite(dt) or dt <= 0.0:
            raise WorldError(
                f"WorldSettings.fixed_delta_seconds: expected a finite number > 0, found {dt!r}"
            )
        for name in (
            "max_substep_delta_time",
            "max_culling_distance",
            "tile_stream_distance",
            "actor_active_distance",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise WorldError(f"WorldSettings.{name}: expected a number, found {value!r}")
            if not math.isfinite(value) or value < 0.0:
                raise WorldError(
                    f"WorldSettings.{name}: expected a finite number >= 0, found {value!r}"
                )
        if not self.substepping:
            return
        sub, count = self.max_substep_delta_time, self.max_substeps
        if sub <= 0.0:
            raise WorldError(f"WorldSettings.max_substep_delta_time: expected > 0, found {sub!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise WorldError(
                f"WorldSettings.max_substeps: expected an integer >= 1, found {count!r}"
            )
        if dt > sub * count:
            raise WorldError(
                "WorldSettings: with substepping, fixed_delta_seconds must be <= "
                f"max_substep_delta_time * max_substeps (found {dt!r} > {sub!r} * {count})"
            )

    def __str__(self) -> str:
        text = ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))
        return f"WorldSettings({text})"


EpisodeSettings = WorldSettings
_SETTING_NAMES = tuple(f.name for f in fields(WorldSettings))


def substep_count(settings: WorldSettings) -> int:
    """The fewest substeps no longer than max_substep_delta_time (1 without substepping)."""
    if not settings.substepping:
        return 1
    ratio = float(settings.fixed_delta_seconds) / settings.max_substep_delta_time
    # A ratio a rounding error above an integer (0.05 / 0.01 = 5.000000000000001) is that integer.
    n = math.ceil(ratio - 1e-9)
    return max(1, min(n, settings.max_substeps))
