"""The fixed palette every picture is drawn with, so a GIF needs no colour quantising.

Pictures are palette ("P") images: index 0 is the background, then the named colours of
the map and the actors, then a 6 x 6 x 6 colour cube that a debug drawing's colour is
rounded to. The hero's colour is used by nothing else, so a picture's hero can be found
by its pixels.
"""

from __future__ import annotations

NAMED: dict[str, tuple[int, int, int]] = {
    "background": (40, 48, 40),
    "driving": (96, 96, 96),
    "sidewalk": (150, 140, 120),
    "shoulder": (78, 82, 78),
    "parking": (110, 104, 92),
    "other_lane": (70, 76, 62),
    "lane_edge": (210, 210, 210),
    "crosswalk": (225, 225, 215),
    "vehicle": (60, 120, 200),
    "walker": (230, 160, 40),
    "prop": (120, 90, 70),
    "outline": (15, 15, 20),
    "hero": (255, 0, 200),
    "heading": (250, 250, 250),
    "light_red": (235, 30, 30),
    "light_yellow": (245, 210, 0),
    "light_green": (30, 210, 60),
    "light_off": (20, 20, 20),
    "collision": (255, 60, 0),
    "text": (255, 255, 255),
    "text_box": (0, 0, 0),
}
_NAMES = list(NAMED)
INDEX = {name: k for k, name in enumerate(_NAMES)}
_CUBE_START = len(_NAMES)
_LEVELS = (0, 51, 102, 153, 204, 255)


def palette_bytes() -> list[int]:
    """The palette as Pillow's `putpalette` takes it: 256 RGB triples, flattened."""
    colours = [NAMED[name] for name in _NAMES]
    colours += [(r, g, b) for r in _LEVELS for g in _LEVELS for b in _LEVELS]
    colours += [(0, 0, 0)] * (256 - len(colours))
    return [c for rgb in colours for c in rgb]


def nearest_index(rgb: tuple[int, ...]) -> int:
    """The palette index of the colour cube entry nearest `rgb` (each channel rounded)."""
    r, g, b = (min(5, max(0, round(int(c) / 51))) for c in rgb[:3])
    return _CUBE_START + 36 * r + 6 * g + b


# CARLA's TrafficLightState: Red 0, Yellow 1, Green 2, Off 3, Unknown 4.
LIGHT_COLOURS = {0: "light_red", 1: "light_yellow", 2: "light_green"}
