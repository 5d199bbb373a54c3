"""A world's settings (CARLA's carla.WorldSettings; the seed names it EpisodeSettings).

CARLA's fields and defaults: asynchronous, with a variable step. lockstep always steps a
fixed time: `fixed_delta_seconds` None (CARLA's variable step) means VARIABLE_STEP_STAND_IN
(the World says so once on stderr); otherwise it is a finite number > 0. In asynchronous
mode the world advances when its client waits for it (World.wait_for_tick), never on a clock.
With `substepping`, the tick is cut into the fewest substeps no longer than
`max_substep_delta_time`, at most `max_substeps`: a step longer than their product is
accepted with CARLA's warning (`substep_warnings`), as CARLA's client accepts it. The other
fields are kept as data, as CARLA's server keeps them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from operator import attrgetter

from world.errors import WorldError

__all__ = [
    "VARIABLE_STEP_STAND_IN",
    "EpisodeSettings",
    "WorldSettings",
    "substep_count",
    "substep_warnings",
]

VARIABLE_STEP_STAND_IN = 0.05  # s: the step a world with fixed_delta_seconds None takes


@dataclass(slots=True)
class WorldSettings:
    """CARLA's WorldSettings fields and defaults."""

    synchronous_mode: bool = False
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
        return WorldSettings(*_SETTING_VALUES(self))

    def validate(self) -> None:
        """Raises WorldError naming the first field lockstep refuses (what would be unsafe:
        a step that is NaN or infinite, NaN distances, no substeps). A step <= 0 becomes
        None, as CARLA's setter makes it."""
        dt = self.fixed_delta_seconds
        if isinstance(dt, int | float) and not isinstance(dt, bool) and dt <= 0.0:
            self.fixed_delta_seconds = dt = None  # CARLA's: a step <= 0 is the variable step
        if dt is not None:
            if isinstance(dt, bool) or not isinstance(dt, int | float):
                raise WorldError(
                    f"WorldSettings.fixed_delta_seconds: expected a number or None, found {dt!r}"
                )
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

    @property
    def step(self) -> float:
        """The seconds one tick advances: the fixed step, or the variable step's stand-in."""
        dt = self.fixed_delta_seconds
        return VARIABLE_STEP_STAND_IN if dt is None else float(dt)

    def __str__(self) -> str:
        text = ", ".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))
        return f"WorldSettings({text})"


EpisodeSettings = WorldSettings
_SETTING_VALUES = attrgetter(*(f.name for f in fields(WorldSettings)))  # in field order


def substep_warnings(settings: WorldSettings) -> list[str]:
    """CARLA's client's warnings for these settings (LibCarla's Simulator::SetEpisodeSettings
    gives them in synchronous mode): a variable step, or substeps that cannot fit the step."""
    if not settings.synchronous_mode:
        return []
    if settings.fixed_delta_seconds is None:
        return [
            "synchronous mode enabled with variable delta seconds. It is highly recommended "
            "to set 'fixed_delta_seconds' when running on synchronous mode."
        ]
    if not settings.substepping:
        return []
    out = []
    if not 1 <= settings.max_substeps <= 16:
        out.append(
            "synchronous mode and substepping are enabled but the number of substeps is not "
            "valid. Please be aware that this value needs to be in the range [1-16]."
        )
    if settings.fixed_delta_seconds / settings.max_substep_delta_time > settings.max_substeps:
        out.append(
            "synchronous mode and substepping are enabled but the values for the simulation "
            "are not valid. The values should fulfil fixed_delta_seconds <= "
            "max_substep_delta_time * max_substeps. Be very careful about that, the time "
            "deltas are not guaranteed."
        )
    return out


def substep_count(settings: WorldSettings) -> int:
    """The fewest substeps no longer than max_substep_delta_time, at most max_substeps (a
    longer step takes max_substeps longer substeps, as Unreal's substepping does); 1 without
    substepping."""
    if not settings.substepping:
        return 1
    ratio = settings.step / settings.max_substep_delta_time
    # A ratio a rounding error above an integer (0.05 / 0.01 = 5.000000000000001) is that integer.
    n = math.ceil(ratio - 1e-9)
    return max(1, min(n, settings.max_substeps))
