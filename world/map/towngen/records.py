"""Shorthands that build the OpenDRIVE document model (world.map.opendrive.model) for a town:
one-section roads with constant-width lanes, a speed record and cubic profiles."""

from __future__ import annotations

from world.map.opendrive.model import (
    CubicRecord,
    Geometry,
    Lane,
    LaneHeight,
    LaneSection,
    Road,
    RoadLink,
    RoadMark,
    RoadType,
    Speed,
)

MARK_WIDTH = 0.15


def mark(kind: str = "none", color: str = "white", lane_change: str = "none") -> RoadMark:
    """A lane's road mark from s = 0 (painted ones 0.15 m wide)."""
    width = None if kind == "none" else MARK_WIDTH
    return RoadMark(0.0, kind, "standard", color, "standard", width, lane_change)


SOLID_WHITE = mark("solid", "white", "none")
BROKEN_WHITE = mark("broken", "white", "both")
NO_MARK = mark()


def lane(
    lane_id: int,
    kind: str,
    width: float,
    road_mark: RoadMark,
    predecessor: int | None = None,
    successor: int | None = None,
    height: float = 0.0,
) -> Lane:
    """A lane of constant width; `height` raises it (sidewalks) by that much on both sides."""
    return Lane(
        id=lane_id,
        type=kind,
        widths=[CubicRecord(0.0, width)],
        road_marks=[road_mark],
        predecessor=predecessor,
        successor=successor,
        heights=[LaneHeight(0.0, height, height)] if height else [],
    )


def road(
    road_id: str,
    name: str,
    junction: str,
    geometries: list[Geometry],
    lanes: list[Lane],
    center_mark: RoadMark,
    speed_kmh: int,
    elevation: tuple[float, float, float, float],
    predecessor: RoadLink,
    successor: RoadLink,
    lane_offset: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
) -> Road:
    """A town road: one lane section holding `lanes` and the centre lane, in id order."""
    section = LaneSection(0.0)
    for item in sorted([*lanes, Lane(0, "none", road_marks=[center_mark])], key=lambda x: x.id):
        section.lanes[item.id] = item
    return Road(
        id=road_id,
        length=sum(g.length for g in geometries),
        name=name,
        junction=junction,
        predecessor=predecessor,
        successor=successor,
        types=[RoadType(0.0, "town", speed=Speed(float(speed_kmh), "km/h"))],
        geometries=geometries,
        elevation=[CubicRecord(0.0, *elevation)],
        superelevation=[CubicRecord(0.0)],
        lane_offsets=[CubicRecord(0.0, *lane_offset)],
        lane_sections=[section],
    )


def speed_kmh(road_record: Road) -> int:
    """The town speed limit of a road built by `road`."""
    return int(road_record.types[0].speed.max)
