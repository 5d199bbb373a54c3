"""Streets between junctions and rounded corner roads: reference lines, lanes, links, profiles."""

from __future__ import annotations

import math

from world.towngen.layout import ARM_HEADING, CORNER_LEAD, ROUNDED, Layout, Node, Street
from world.towngen.model import Geometry, Lane, Link, Road, RoadMark
from world.towngen.path import PathBuilder
from world.towngen.spec import TownSpec
from world.towngen.vectors import arm_point

SOLID_WHITE = RoadMark("solid", "white", "none")
BROKEN_WHITE = RoadMark("broken", "white", "both")
NO_MARK = RoadMark("none", "white", "none")


def joined_lane(my_end: str, other_end: str, lane: int) -> int:
    """The lane id that `lane` continues into across a road-to-road join: ids keep their sign
    when an end meets a start (same direction) and flip when two starts or two ends meet."""
    return lane if my_end != other_end else -lane


def street_lanes(
    lanes: int, spec: TownSpec, links: dict[str, tuple[str, str]]
) -> tuple[list[Lane], list[Lane]]:
    """Left lanes (outermost first) and right lanes (innermost first) of a street or corner:
    `lanes` driving lanes each way and a raised sidewalk outside them. `links` maps "start" and
    "end" to (this road's end, the joined road's end) for ends that meet a road directly."""

    def link(end: str, lane: int) -> int | None:
        if end not in links:
            return None
        mine, other = links[end]
        return joined_lane(mine, other, lane)

    def lane(lane_id: int) -> Lane:
        index = abs(lane_id)
        if index > lanes:
            kind, width, mark, height = (
                "sidewalk",
                spec.sidewalk_width,
                NO_MARK,
                spec.sidewalk_height,
            )
        else:
            kind, width, height = "driving", spec.lane_width, 0.0
            mark = SOLID_WHITE if index == lanes else BROKEN_WHITE
        return Lane(
            lane_id, kind, width, mark, link("start", lane_id), link("end", lane_id), height
        )

    left = [lane(k) for k in range(lanes + 1, 0, -1)]
    right = [lane(-k) for k in range(1, lanes + 2)]
    return left, right


def center_mark(lanes: int) -> RoadMark:
    """Yellow centre line: broken (overtaking allowed) on one-lane streets, solid otherwise."""
    return RoadMark("broken", "yellow", "both") if lanes == 1 else RoadMark("solid", "yellow")


def smooth_shift(v0: float, v1: float, length: float) -> tuple[float, float, float, float]:
    """Cubic coefficients (a, b, c, d) from v0 at s=0 to v1 at s=length, flat at both ends."""
    dv = v1 - v0
    return v0, 0.0, 3.0 * dv / length**2, -2.0 * dv / length**3


def build_street(
    layout: Layout,
    street: Street,
    road_id: str,
    end_links: dict[str, Link],
) -> Road:
    """A street's road: a straight reference line between its junction edges (east- or
    north-bound), a smooth height profile, links to junctions or corner roads."""
    start, end = layout.nodes[street.start], layout.nodes[street.end]
    arm = "E" if street.axis == "h" else "N"
    back = "W" if street.axis == "h" else "S"
    x, y = arm_point(start, arm, start.extent[arm], 0.0)
    length = layout.spec.block_size - start.extent[arm] - end.extent[back]
    geometry = [Geometry(0.0, x, y, ARM_HEADING[arm], length, "line")]
    road_links = {
        key: (key, link.contact)
        for key, link in (("start", end_links["start"]), ("end", end_links["end"]))
        if link.element_type == "road"
    }
    left, right = street_lanes(street.lanes, layout.spec, road_links)
    name = f"Street {street.axis.upper()} {street.start[0]},{street.start[1]}"
    return Road(
        road_id,
        name,
        "-1",
        geometry,
        left,
        right,
        center_mark(street.lanes),
        street.speed_kmh,
        [(0.0, *smooth_shift(start.z, end.z, length))],
        predecessor=end_links["start"],
        successor=end_links["end"],
    )


def corner_arms(node: Node) -> tuple[str, str]:
    """(entry arm, exit arm) of a rounded corner, chosen so the reference line turns left."""
    a, b = node.arms
    turn = (ARM_HEADING[b] - ARM_HEADING[a]) % (2.0 * math.pi)
    return (a, b) if abs(turn - 1.5 * math.pi) < 1e-9 else (b, a)


def build_corner(
    layout: Layout, node: Node, road_id: str, lanes: int, speed_kmh: int, links: dict[str, Link]
) -> Road:
    """A rounded outer corner: line, spiral, arc, spiral, line, turning 90 degrees left from
    the entry arm's street to the exit arm's street (no junction: a plain road between them)."""
    assert node.kind == ROUNDED
    entry, _ = corner_arms(node)
    radius, spiral = layout.spec.corner_geometry
    x, y = arm_point(node, entry, node.extent[entry], 0.0)
    path = PathBuilder(x, y, ARM_HEADING[entry] + math.pi)
    path.line(CORNER_LEAD).spiral_corner(radius, spiral, 1).line(CORNER_LEAD)
    road_links = {key: (key, link.contact) for key, link in links.items()}
    left, right = street_lanes(lanes, layout.spec, road_links)
    return Road(
        road_id,
        f"Corner {node.i},{node.j}",
        "-1",
        path.geometries,
        left,
        right,
        center_mark(lanes),
        speed_kmh,
        [(0.0, node.z, 0.0, 0.0, 0.0)],
        predecessor=links["start"],
        successor=links["end"],
    )
