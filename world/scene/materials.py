"""What each surface of the scene is: CARLA's semantic tag and an sRGB albedo, by kind.

Lanes take their tag from their OpenDRIVE type as CARLA's levels tag them: every lane a
vehicle may use (driving, parking, shoulder, biking, ramps...) is Roads, a sidewalk (and
a curb lane) Sidewalks, a median Terrain (a grass strip), a border Ground; "none" lanes
are not drawn, rail lanes are RailTrack. A raised lane (sidewalk, curb, median) stands
`CURB_HEIGHT` above the road unless the file gives it <height> records. Colours are plain
albedos chosen to look like their material under the cameras' shading (no textures).
"""

from __future__ import annotations

from dataclasses import dataclass

from world.actors.vehicle_state import CityObjectLabel as Label

__all__ = [
    "CURB_HEIGHT",
    "MARK_COLOURS",
    "Surface",
    "lane_surface",
]

CURB_HEIGHT = 0.15  # m: a sidewalk's top above its road where the file gives no <height>

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Surface:
    """How a lane type is drawn: tag, albedo, and whether it stands on a curb."""

    tag: Label
    colour: RGB
    raised: bool = False


ASPHALT: RGB = (72, 72, 74)
_ROAD = Surface(Label.Roads, ASPHALT)
_SURFACES: dict[str, Surface] = {
    "driving": _ROAD,
    "stop": _ROAD,
    "entry": _ROAD,
    "exit": _ROAD,
    "onramp": _ROAD,
    "offramp": _ROAD,
    "connectingramp": _ROAD,
    "bidirectional": _ROAD,
    "restricted": Surface(Label.Roads, (86, 84, 82)),
    "special1": _ROAD,
    "special2": _ROAD,
    "special3": _ROAD,
    "roadworks": Surface(Label.Roads, (96, 90, 80)),
    "tram": _ROAD,
    "shoulder": Surface(Label.Roads, (84, 84, 84)),
    "parking": Surface(Label.Roads, (80, 80, 84)),
    "biking": Surface(Label.Roads, (120, 70, 62)),
    "sidewalk": Surface(Label.Sidewalks, (168, 164, 156), raised=True),
    "walking": Surface(Label.Sidewalks, (168, 164, 156), raised=True),
    "curb": Surface(Label.Sidewalks, (150, 148, 144), raised=True),
    "median": Surface(Label.Terrain, (84, 112, 58), raised=True),
    "border": Surface(Label.Ground, (118, 110, 98)),
    "rail": Surface(Label.RailTrack, (90, 80, 72)),
}
_OTHER = Surface(Label.Roads, ASPHALT)  # a type OpenDRIVE does not name: a road surface


def lane_surface(lane_type: str) -> Surface | None:
    """How a lane of OpenDRIVE type `lane_type` is drawn; None for "none" (not drawn)."""
    key = lane_type.strip().lower()
    if key in ("none", ""):
        return None
    return _SURFACES.get(key, _OTHER)


# Road-mark paint by the roadMark's colour attribute (OpenDRIVE's names; "standard" is white).
MARK_COLOURS: dict[str, RGB] = {
    "standard": (232, 232, 228),
    "white": (232, 232, 228),
    "yellow": (236, 190, 40),
    "orange": (236, 132, 36),
    "red": (204, 40, 36),
    "blue": (40, 84, 200),
    "green": (48, 160, 72),
    "violet": (140, 72, 180),
}
WHITE_PAINT: RGB = MARK_COLOURS["white"]
GRASS: RGB = (84, 112, 58)
TERRAIN: RGB = (96, 104, 70)
EARTH: RGB = (110, 100, 84)
