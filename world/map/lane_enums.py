"""CARLA's lane enums (LaneType, LaneChange, LaneMarkingType, LaneMarkingColor) and LaneMarking.

Values are CARLA's (LibCarla road/Lane.h and road/element/LaneMarking.h), so
bit tests such as `lane.type & LaneType.Driving` and integer comparisons give
the same answers as in CARLA's Python API. OpenDRIVE strings are mapped the way
CARLA's parser maps them: case-insensitively, anything unknown is the catch-all.
"""

from __future__ import annotations

from dataclasses import dataclass

from world.enums import CarlaEnum, CarlaFlag

__all__ = [
    "LaneChange",
    "LaneMarking",
    "LaneMarkingColor",
    "LaneMarkingType",
    "LaneType",
    "lane_change_from_odr",
    "lane_type_from_odr",
    "marking_color_from_odr",
    "marking_type_from_odr",
]


class LaneType(CarlaFlag):
    """OpenDRIVE lane types as CARLA's bit flags; `Any` (-2) matches every type but NONE."""

    NONE = 0x1
    Driving = 0x1 << 1
    Stop = 0x1 << 2
    Shoulder = 0x1 << 3
    Biking = 0x1 << 4
    Sidewalk = 0x1 << 5
    Border = 0x1 << 6
    Restricted = 0x1 << 7
    Parking = 0x1 << 8
    Bidirectional = 0x1 << 9
    Median = 0x1 << 10
    Special1 = 0x1 << 11
    Special2 = 0x1 << 12
    Special3 = 0x1 << 13
    RoadWorks = 0x1 << 14
    Tram = 0x1 << 15
    Rail = 0x1 << 16
    Entry = 0x1 << 17
    Exit = 0x1 << 18
    OffRamp = 0x1 << 19
    OnRamp = 0x1 << 20
    Any = -2


class LaneChange(CarlaFlag):
    """Which lane changes a marking allows, seen in the lane's travel direction."""

    NONE = 0x0
    Right = 0x1
    Left = 0x2
    Both = 0x3


class LaneMarkingType(CarlaEnum):
    """Road-mark types in CARLA's order (`NONE` is the last value, as in CARLA)."""

    Other = 0
    Broken = 1
    Solid = 2
    SolidSolid = 3
    SolidBroken = 4
    BrokenSolid = 5
    BrokenBroken = 6
    BottsDots = 7
    Grass = 8
    Curb = 9
    NONE = 10


class LaneMarkingColor(CarlaEnum):
    """Road-mark colours; `White` is an alias of `Standard`, as in CARLA."""

    Standard = 0
    Blue = 1
    Green = 2
    Red = 3
    White = 0
    Yellow = 4
    Other = 5


@dataclass(slots=True)
class LaneMarking:
    """One road mark as CARLA reports it (carla.LaneMarking)."""

    type: LaneMarkingType = LaneMarkingType.NONE
    color: LaneMarkingColor = LaneMarkingColor.Standard
    lane_change: LaneChange = LaneChange.NONE
    width: float = 0.0


_LANE_TYPES = {member.name.lower(): member for member in LaneType if member not in (LaneType.Any,)}
_LANE_TYPES.pop("none")

_MARK_TYPES = {
    "broken": LaneMarkingType.Broken,
    "solid": LaneMarkingType.Solid,
    "solid solid": LaneMarkingType.SolidSolid,
    "solid broken": LaneMarkingType.SolidBroken,
    "broken solid": LaneMarkingType.BrokenSolid,
    "broken broken": LaneMarkingType.BrokenBroken,
    "botts dots": LaneMarkingType.BottsDots,
    "grass": LaneMarkingType.Grass,
    "curb": LaneMarkingType.Curb,
    "none": LaneMarkingType.NONE,
}

_MARK_COLORS = {
    "standard": LaneMarkingColor.Standard,
    "blue": LaneMarkingColor.Blue,
    "green": LaneMarkingColor.Green,
    "red": LaneMarkingColor.Red,
    "white": LaneMarkingColor.White,
    "yellow": LaneMarkingColor.Yellow,
}

# OpenDRIVE's laneChange speaks of increasing/decreasing lane ids; CARLA turns
# "increase" into Right and "decrease" into Left before any direction fix.
_LANE_CHANGES = {
    "increase": LaneChange.Right,
    "decrease": LaneChange.Left,
    "both": LaneChange.Both,
    "none": LaneChange.NONE,
}


def lane_type_from_odr(text: str) -> LaneType:
    """The LaneType of an OpenDRIVE lane `type` attribute; unknown types are NONE."""
    return _LANE_TYPES.get(text.strip().lower(), LaneType.NONE)


def marking_type_from_odr(text: str) -> LaneMarkingType:
    """The LaneMarkingType of a roadMark `type` attribute; unknown types are Other."""
    return _MARK_TYPES.get(text.strip().lower(), LaneMarkingType.Other)


def marking_color_from_odr(text: str) -> LaneMarkingColor:
    """The LaneMarkingColor of a roadMark `color` attribute; unknown colours are Other."""
    return _MARK_COLORS.get(text.strip().lower(), LaneMarkingColor.Other)


def lane_change_from_odr(text: str | None) -> LaneChange:
    """The LaneChange of a roadMark `laneChange` attribute; absent or unknown is NONE."""
    return _LANE_CHANGES.get((text or "").strip().lower(), LaneChange.NONE)
