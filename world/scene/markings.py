"""Road marks painted on the road: each lane's <roadMark> records along its outer border.

A record holds from its sOffset to the next record (or its lane section's end). Its
<type><line> records, where the file gives them, are its lines (each tOffset from the
border, `length` on and `space` off from its sOffset, its own width or the record's); else
its type gives its lines: "solid" and "broken" one line centred on the border; the double
types ("solid solid", "solid broken", "broken solid", "broken broken") two lines whose
centres stand one line width to either side of the border, the first named the inner one
(toward lane 0; on lane 0, the left one), as OpenDRIVE orders them; "botts dots" a row of
small squares; "grass" a green strip (tag Terrain). "curb" paints nothing (the curb is the
raised lane's geometry), nor do "none" and types OpenDRIVE does not name. Lines are `width` wide
(OpenDRIVE's defaults when absent: 0.12 m, 0.25 m for weight "bold") and lie MARK_LIFT
above the surface, tag RoadLines, in the colour the record names. Broken lines are
DASH_LENGTH dashes with DASH_GAP gaps from the record's start: CARLA's own generator of
road marks from OpenDRIVE (LibCarla's MeshFactory) lays dashes and gaps of three times its
default vertex distance of 2 m. A line touching a raised lane (a sidewalk's curb) moves
off it onto the lower lane. Roads inside a junction get no marks unless the junction has
one connecting road (CARLA's generator's rule: elsewhere the connecting roads cross, and
their marks would cross too).
"""

from __future__ import annotations

import math

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.map.lane_borders import lane_points
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.model import Junction, Road, RoadMark
from world.scene.builder import MeshParts
from world.scene.materials import GRASS, MARK_COLOURS, WHITE_PAINT, lane_surface

__all__ = [
    "DASH_GAP",
    "DASH_LENGTH",
    "DOT_SIZE",
    "DOT_SPACING",
    "MARK_LIFT",
    "junction_painted",
    "road_markings",
]

DASH_LENGTH = 6.0  # m
DASH_GAP = 6.0  # m
DOT_SIZE = 0.12  # m: a Botts' dot's side
DOT_SPACING = 1.2  # m between dots
MARK_LIFT = 0.005  # m above the surface
_CLEARANCE = 0.01  # m kept between a moved line and the curb

# line patterns: solid, broken, dots
_SOLID, _BROKEN, _DOTS = "solid", "broken", "dots"
_LINES: dict[str, tuple[str, ...]] = {
    "solid": (_SOLID,),
    "broken": (_BROKEN,),
    "solid solid": (_SOLID, _SOLID),
    "solid broken": (_SOLID, _BROKEN),
    "broken solid": (_BROKEN, _SOLID),
    "broken broken": (_BROKEN, _BROKEN),
    "botts dots": (_DOTS,),
    "grass": (_SOLID,),
}


def mark_width(mark: RoadMark) -> float:
    """The line width: the record's, else OpenDRIVE's default for its weight."""
    if mark.width is not None and mark.width > 0.0:
        return float(mark.width)
    return 0.25 if mark.weight.strip().lower() == "bold" else 0.12


def _spans(road: Road, section: int, marks: list[RoadMark]) -> list[tuple[RoadMark, float, float]]:
    """(record, start s, end s) of each record in force over a part of the section."""
    s0, s1 = road.lane_sections[section].s, road.section_end(section)
    ordered = sorted(marks, key=lambda m: m.s_offset)
    out = []
    for i, mark in enumerate(ordered):
        a = s0 + mark.s_offset
        b = s0 + ordered[i + 1].s_offset if i + 1 < len(ordered) else s1
        a, b = max(a, s0), min(b, s1)
        if b > a:
            out.append((mark, a, b))
    return out


def _dashes(a: float, b: float, length: float, space: float, phase: float = 0.0) -> np.ndarray:
    """(M, 2) intervals of [a, b] painted by `length` metres on, `space` off, from a + phase
    (space 0: all of it from a + phase)."""
    start = a + phase
    if space <= 0.0 or length <= 0.0:
        return np.array([[start, b]]) if b > start else np.zeros((0, 2))
    period = length + space
    count = max(0, math.ceil((b - start) / period))
    starts = start + period * np.arange(count)
    ends = np.minimum(starts + length, b)
    keep = ends > starts
    return np.stack([starts[keep], ends[keep]], axis=1)


def _strokes(
    mark: RoadMark, lane_id: int, a: float, b: float
) -> list[tuple[np.ndarray, float, float]]:
    """(painted intervals, t offset from the border, width) of each line of a record over
    [a, b]: its <type><line> records where the file gives them, else its type's lines."""
    width = mark_width(mark)
    if mark.lines:
        return [
            (
                _dashes(a, b, line.length, line.space, line.s_offset),
                line.t_offset,
                line.width if line.width is not None and line.width > 0.0 else width,
            )
            for line in mark.lines
        ]
    kinds = _LINES[mark.type.strip().lower()]
    # +t is left; lane 0's "inner" line is its left one, a right lane's inner side is +t
    inward = 1.0 if lane_id <= 0 else -1.0
    offsets = [0.0] if len(kinds) == 1 else [inward * width, -inward * width]
    patterns = {
        _SOLID: (0.0, 0.0),
        _BROKEN: (DASH_LENGTH, DASH_GAP),
        _DOTS: (DOT_SIZE, DOT_SPACING - DOT_SIZE),
    }
    return [
        (_dashes(a, b, *patterns[kind]), offset, width)
        for kind, offset in zip(kinds, offsets, strict=True)
    ]


def road_markings(
    parts: MeshParts,
    road: Road,
    evaluator: RoadEvaluator,
    samples: dict[int, np.ndarray],
    instance: int,
    painted: bool = True,
) -> None:
    """Adds the road marks of `road`; `samples` are the surface's s per lane section index,
    which the lines follow between their own ends. `painted` False leaves them out (a road
    of a junction with several connecting roads: `junction_painted`)."""
    if not painted:
        return
    for k, section in enumerate(road.lane_sections):
        if k not in samples:
            continue
        lanes = evaluator.sections[k]
        for lane_id, lane in section.lanes.items():
            for mark, a, b in _spans(road, k, lane.road_marks):
                kind = mark.type.strip().lower()
                if kind in ("none", "curb") or not (mark.lines or kind in _LINES):
                    continue
                _paint(parts, road, evaluator, k, lanes, lane_id, mark, a, b, samples[k], instance)


def junction_painted(junction: Junction | None) -> bool:
    """Whether the roads of `junction` (None: a road outside junctions) get their marks."""
    if junction is None:
        return True
    return len({c.connecting_road for c in junction.connections}) == 1


def _neighbour(section_lanes: dict, lane_id: int) -> int | None:
    """The lane across the outer border of `lane_id` (for lane 0: lane -1)."""
    other = lane_id - 1 if lane_id <= 0 else lane_id + 1
    return other if other in section_lanes else None


def _raised(section_lanes: dict, lane_id: int | None) -> bool:
    if lane_id is None:
        return False
    surface = lane_surface(section_lanes[lane_id].type)
    return surface is not None and surface.raised


def _paint(
    parts: MeshParts,
    road: Road,
    evaluator: RoadEvaluator,
    k: int,
    lanes,
    lane_id: int,
    mark: RoadMark,
    a: float,
    b: float,
    grid: np.ndarray,
    instance: int,
) -> None:
    section_lanes = road.lane_sections[k].lanes
    strokes = _strokes(mark, lane_id, a, b)
    if not strokes:
        return
    inward = 1.0 if lane_id <= 0 else -1.0
    outward_lane = _neighbour(section_lanes, lane_id)
    shift = 0.0
    reach = max(abs(offset) + 0.5 * width for _, offset, width in strokes) + _CLEARANCE
    if _raised(section_lanes, outward_lane) and not _raised(section_lanes, lane_id):
        shift = inward * reach  # onto this lane
        host = lane_id
    elif _raised(section_lanes, lane_id) and outward_lane is not None:
        shift = -inward * reach  # onto the lane outside
        host = outward_lane
    else:
        host = lane_id
    is_grass = mark.type.strip().lower() == "grass"
    tag = Label.Terrain if is_grass else Label.RoadLines
    colour = GRASS if is_grass else MARK_COLOURS.get(mark.color.strip().lower(), WHITE_PAINT)
    col = lanes.column[lane_id]
    host_col = lanes.column[host]
    inside = grid[(grid > a) & (grid < b)]
    for painted, offset, width in strokes:
        if not len(painted):
            continue
        s = np.unique(np.concatenate([inside, painted.ravel()]))
        mid = 0.5 * (s[:-1] + s[1:])
        slot = np.searchsorted(painted[:, 0], mid, side="right") - 1
        keep = (slot >= 0) & (mid < painted[np.maximum(slot, 0), 1])
        if not keep.any():
            continue
        centre = evaluator.lane_borders(k, s)[:, col] + offset + shift
        t = np.stack([centre - 0.5 * width, centre + 0.5 * width], axis=1)
        points = lane_points(evaluator, k, s, t, np.array([host_col, host_col]), MARK_LIFT)
        parts.ribbons(points[:, :1], points[:, 1:], int(tag), instance, colour, keep[:, None])
