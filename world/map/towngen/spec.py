"""TownSpec: every parameter of a generated town, checked before anything is built."""

from __future__ import annotations

from dataclasses import dataclass, field

from world.errors import WorldError


class TownSpecError(WorldError):
    """A town specification that cannot be built (names the parameter, expected and found)."""


@dataclass(frozen=True)
class TownSpec:
    """The parameters of one generated town; the same spec always gives the same OpenDRIVE bytes.

    The town is a grid of `blocks_x` by `blocks_y` square blocks of `block_size` metres, with a
    street along every grid line and a junction at every crossing. `lanes` is the number of
    driving lanes each way: one count for every street, or an inclusive (min, max) range drawn
    per street line (all segments of one grid line share it, so straight-through lanes match).
    `curves` rounds the four outer corners with line-spiral-arc-spiral-line roads; `hills` lifts
    each crossing to a seeded height (0..hill_height m) joined by smooth street profiles.
    `parking` is the chance (0..1), drawn per street between two junctions, that the street has
    a parking lane `parking_width` m wide on each side, between its driving lanes and sidewalks.
    """

    seed: int = 0
    blocks_x: int = 2
    blocks_y: int = 2
    block_size: float = 100.0
    lanes: int | tuple[int, int] = 1
    curves: bool = False
    hills: bool = False
    name: str = "town"
    lane_width: float = 3.5
    sidewalk_width: float = 2.0
    sidewalk_height: float = 0.15
    turn_radius: float = 9.0
    corner_radius: float | None = None
    spiral_length: float | None = None
    hill_height: float = 6.0
    speed_limits: tuple[int, ...] = (30, 40, 50, 60)
    junction_weights: tuple[float, float, float] = field(default=(0.5, 0.25, 0.25))
    parking: float = 0.0
    parking_width: float = 2.5

    def __post_init__(self) -> None:
        _check(isinstance(self.seed, int) and self.seed >= 0, "seed", "an integer >= 0", self.seed)
        for key in ("blocks_x", "blocks_y"):
            value = getattr(self, key)
            _check(isinstance(value, int) and 1 <= value <= 20, key, "an integer 1..20", value)
        _check(self.block_size >= 40.0, "block_size", "at least 40 m", self.block_size)
        low, high = self.lane_range
        _check(1 <= low <= high <= 3, "lanes", "a count 1..3 or a range within 1..3", self.lanes)
        _check(self.lane_width > 0.0, "lane_width", "> 0", self.lane_width)
        _check(self.sidewalk_width > 0.0, "sidewalk_width", "> 0", self.sidewalk_width)
        _check(self.sidewalk_height >= 0.0, "sidewalk_height", ">= 0", self.sidewalk_height)
        needed = self.lane_width + self.sidewalk_width
        _check(self.turn_radius > needed, "turn_radius", f"> {needed:g} m", self.turn_radius)
        _check(self.hill_height >= 0.0, "hill_height", ">= 0", self.hill_height)
        _check(
            len(self.speed_limits) > 0 and all(30 <= v <= 120 for v in self.speed_limits),
            "speed_limits",
            "one or more values 30..120 km/h",
            self.speed_limits,
        )
        _check(
            len(self.junction_weights) == 3
            and all(w >= 0.0 for w in self.junction_weights)
            and sum(self.junction_weights) > 0.0,
            "junction_weights",
            "three weights >= 0 (signalised, stop, yield) with a positive sum",
            self.junction_weights,
        )
        _check(0.0 <= self.parking <= 1.0, "parking", "a chance 0..1", self.parking)
        _check(self.parking_width > 0.0, "parking_width", "> 0", self.parking_width)
        radius, spiral = self.corner_geometry
        _check(spiral * (1.0 / radius) <= 1.5, "spiral_length", "<= 1.5 * corner_radius", spiral)

    @property
    def lane_range(self) -> tuple[int, int]:
        """(min, max) driving lanes each way."""
        if isinstance(self.lanes, int):
            return self.lanes, self.lanes
        low, high = self.lanes
        return int(low), int(high)

    @property
    def corner_geometry(self) -> tuple[float, float]:
        """(arc radius, spiral length) of the rounded outer corners."""
        radius = self.corner_radius if self.corner_radius is not None else 0.25 * self.block_size
        spiral = self.spiral_length if self.spiral_length is not None else 0.15 * self.block_size
        _check(radius > 0.0, "corner_radius", "> 0", radius)
        _check(spiral > 0.0, "spiral_length", "> 0", spiral)
        return radius, spiral


def _check(ok: bool, key: str, expected: str, found: object) -> None:
    if not ok:
        raise TownSpecError(f"town spec: {key}: expected {expected}, found {found!r}")
