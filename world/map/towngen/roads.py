"""Streets between junctions and rounded corner roads: reference lines, lanes, links, profiles."""

from __future__ import annotations

import math

from world.map.opendrive.model import CubicRecord, Lane, LineGeometry, Road, RoadLink, RoadMark
from world.map.towngen.layout import (
    ARM_HEADING,
    CORNER_LEAD,
    PARKING_CLEAR,
    PARKING_TAPER,
    ROUNDED,
    Layout,
    Node,
    Street,
    arm_point,
    street_length,
)
from world.map.towngen.path import PathBuilder
from world.map.towngen.records import BROKEN_WHITE, NO_MARK, SOLID_WHITE, lane, mark, road
from world.map.towngen.spec import TownSpec


def joined_lane(my_end: str, other_end: str, lane_id: int) -> int:
    """The lane id that `lane_id` continues into across a road-to-road join: ids keep their
    sign when an end meets a start (same direction) and flip when two starts or two ends meet."""
    return lane_id if my_end != other_end else -lane_id


def street_lanes(
    lanes: int, spec: TownSpec, links: dict[str, RoadLink], parked_length: float | None = None
) -> list[Lane]:
    """`lanes` driving lanes each way and a raised sidewalk outside them; with `parked_length`
    (the street's length) a parking lane between them each way. `links` holds, for this road's
    "start" and "end", the road link of each end that meets a road directly (only streets
    without parking lanes do: those with them run between junctions)."""
    parking = parked_length is not None

    def joined(end: str, lane_id: int) -> int | None:
        link = links.get(end)
        if link is None or link.element_type != "road":
            return None
        return joined_lane(end, link.contact_point, lane_id)

    def make(lane_id: int) -> Lane:
        index = abs(lane_id)
        if parking and index == lanes + 1:
            return Lane(
                id=lane_id,
                type="parking",
                widths=parking_widths(spec.parking_width, parked_length),
                road_marks=[NO_MARK],
            )
        if index > lanes:
            kind, width, road_mark, height = (
                "sidewalk",
                spec.sidewalk_width,
                NO_MARK,
                spec.sidewalk_height,
            )
        else:
            kind, width, height = "driving", spec.lane_width, 0.0
            road_mark = SOLID_WHITE if index == lanes else BROKEN_WHITE
        return lane(
            lane_id,
            kind,
            width,
            road_mark,
            joined("start", lane_id),
            joined("end", lane_id),
            height,
        )

    outer = lanes + 1 + int(parking)
    return [make(k) for k in range(-outer, outer + 1) if k != 0]


def parking_widths(width: float, length: float) -> list[CubicRecord]:
    """A parking lane's width along a street `length` m long: nothing for PARKING_CLEAR m at
    each end (where the crosswalks, lights and signs are), widening smoothly to `width` over
    PARKING_TAPER m and narrowing back the same way, so the street meets its junctions as a
    street without parking does."""
    full = PARKING_CLEAR + PARKING_TAPER
    return [
        CubicRecord(0.0, 0.0),
        CubicRecord(PARKING_CLEAR, *smooth_shift(0.0, width, PARKING_TAPER)),
        CubicRecord(full, width),
        CubicRecord(length - full, *smooth_shift(width, 0.0, PARKING_TAPER)),
        CubicRecord(length - PARKING_CLEAR, 0.0),
    ]


def center_mark(lanes: int) -> RoadMark:
    """Yellow centre line: broken on one-lane streets, solid otherwise; never a lane change
    across it (laneChange "none", as CARLA's towns write their centre lines), so lane
    changes stay between lanes of one direction."""
    return mark("broken", "yellow", "none") if lanes == 1 else mark("solid", "yellow")


def smooth_shift(v0: float, v1: float, length: float) -> tuple[float, float, float, float]:
    """Cubic coefficients (a, b, c, d) from v0 at s=0 to v1 at s=length, flat at both ends."""
    dv = v1 - v0
    return v0, 0.0, 3.0 * dv / length**2, -2.0 * dv / length**3


def build_street(layout: Layout, street: Street, road_id: str, links: dict[str, RoadLink]) -> Road:
    """A street's road: a straight reference line between its junction edges (east- or
    north-bound), a smooth height profile, links to junctions or corner roads."""
    start, end = layout.nodes[street.start], layout.nodes[street.end]
    arm = "E" if street.axis == "h" else "N"
    x, y = arm_point(start, arm, start.extent[arm], 0.0)
    length = street_length(layout, street)
    geometry = LineGeometry(0.0, round(x, 12) + 0.0, round(y, 12) + 0.0, ARM_HEADING[arm], length)
    return road(
        road_id,
        f"Street {street.axis.upper()} {street.start[0]},{street.start[1]}",
        "-1",
        [geometry],
        street_lanes(street.lanes, layout.spec, links, length if street.parking else None),
        center_mark(street.lanes),
        street.speed_kmh,
        smooth_shift(start.z, end.z, length),
        links["start"],
        links["end"],
    )


def corner_arms(node: Node) -> tuple[str, str]:
    """(entry arm, exit arm) of a rounded corner, chosen so the reference line turns left."""
    a, b = node.arms
    turn = (ARM_HEADING[b] - ARM_HEADING[a]) % (2.0 * math.pi)
    return (a, b) if abs(turn - 1.5 * math.pi) < 1e-9 else (b, a)


def build_corner(
    layout: Layout,
    node: Node,
    road_id: str,
    lanes: int,
    speed_kmh: int,
    links: dict[str, RoadLink],
) -> Road:
    """A rounded outer corner: line, spiral, arc, spiral, line, turning 90 degrees left from
    the entry arm's street to the exit arm's street (no junction: a plain road between them)."""
    assert node.kind == ROUNDED
    entry, _ = corner_arms(node)
    radius, spiral = layout.spec.corner_geometry
    x, y = arm_point(node, entry, node.extent[entry], 0.0)
    path = PathBuilder(x, y, ARM_HEADING[entry] + math.pi)
    path.line(CORNER_LEAD).spiral_corner(radius, spiral, 1).line(CORNER_LEAD)
    return road(
        road_id,
        f"Corner {node.i},{node.j}",
        "-1",
        path.geometries,
        street_lanes(lanes, layout.spec, links),
        center_mark(lanes),
        speed_kmh,
        (node.z, 0.0, 0.0, 0.0),
        links["start"],
        links["end"],
    )
