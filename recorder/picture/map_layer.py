"""The still part of a picture: lane areas, lane edges and crosswalks of an OpenDRIVE map.

Each lane of each lane section becomes one polygon: its outer border sampled along s (at
most `STEP` metres apart) and its inner border back, both on the lane's surface
(world.map.lane_borders, which the 3-D scene samples through too), in CARLA's frame.
Driving lanes are filled grey, sidewalks in a sand colour, shoulders, parking and the
other lane types darker; lanes of type "none" are not drawn. Driving lanes get their
borders drawn as thin light lines (outside junctions, where the connecting lanes
would cross each other), and crosswalks are drawn from `Map.crosswalk_polygons()`.

The layer also holds the lanes' road markings (each lane's `<roadMark>` on its outer border,
lane 0's on the centre line): solid and broken lines, white or yellow, a double marking as
two lines MARK_GAP apart; `lockstep render` draws the edges, the run page the markings
(`layer_sections` packs the layer for it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from recorder.picture.palette import INDEX
from recorder.picture.view import View
from world.map.lane_borders import section_borders, section_spans
from world.map.opendrive.evaluation import RoadEvaluator

STEP = 1.0  # metres between border samples
MARK_GAP = 0.25  # metres between the two lines of a double marking
# <roadMark type>: the lines it draws, inner to outer (1 solid, 2 broken); others draw none
MARK_LINES = {"solid": (1,), "broken": (2,), "solid solid": (1, 1), "solid broken": (1, 2),
              "broken solid": (2, 1), "broken broken": (2, 2)}  # fmt: skip
MARK_YELLOW = 1  # colour codes: 0 white (CARLA's "standard"), 1 yellow
# section names of the packed layer, by area kind
AREA_SECTIONS = {"driving": "drv", "sidewalk": "side", "shoulder": "shld", "parking": "park",
                 "other_lane": "other"}  # fmt: skip
_FILL_ORDER = ("other_lane", "shoulder", "parking", "sidewalk", "driving")
_KIND_OF_TYPE = {"driving": "driving", "sidewalk": "sidewalk", "shoulder": "shoulder",
                 "parking": "parking", "none": None}  # fmt: skip


@dataclass
class MapLayer:
    """A map's polygons and lines in world metres (x, y; CARLA's frame), by what they are."""

    areas: dict[str, list[np.ndarray]] = field(default_factory=dict)
    edges: list[np.ndarray] = field(default_factory=list)
    crosswalks: list[np.ndarray] = field(default_factory=list)
    markings: list[tuple[np.ndarray, int, int]] = field(default_factory=list)

    def bounds(self) -> tuple[float, float, float, float] | None:
        """x_lo, y_lo, x_hi, y_hi of every lane area, or None for a map without lanes."""
        polys = [p for ps in self.areas.values() for p in ps]
        if not polys:
            return None
        pts = np.concatenate(polys)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def map_layer(town) -> MapLayer:
    """The polygons of a world.map.map.Map."""
    layer = MapLayer({kind: [] for kind in _FILL_ORDER})
    for road in town.opendrive.roads.values():
        evaluator = RoadEvaluator(road)
        for k, s0, s1 in section_spans(road):
            n = max(2, math.ceil((s1 - s0) / STEP) + 1)
            borders = section_borders(evaluator, k, np.linspace(s0, s1, n))
            out_xy, in_xy = borders.outer[..., :2], borders.inner[..., :2]
            section = road.lane_sections[k]
            for col, lane_id in enumerate(borders.lane_ids.tolist()):
                width = np.abs(borders.t_outer[:, col] - borders.t_inner[:, col])
                if lane_id == 0 or np.all(width < 1e-3):
                    continue
                lane_type = section.lanes[lane_id].type
                kind = _KIND_OF_TYPE.get(lane_type, "other_lane")
                if kind is None:
                    continue
                layer.areas[kind].append(np.concatenate([out_xy[:, col], in_xy[::-1, col]]))
                if kind == "driving" and road.junction == "-1":
                    layer.edges.append(out_xy[:, col].copy())
                    layer.edges.append(in_xy[:, col].copy())
            _add_markings(layer, evaluator, k, section, s1)
    layer.crosswalks = [polygon[:, :2] for polygon in town.crosswalk_polygons()]
    return layer


def _add_markings(layer: MapLayer, evaluator: RoadEvaluator, k: int, section, s1: float) -> None:
    """The road markings of lane section `k` (from section.s to s1) into the layer."""
    lanes = evaluator.sections[k]
    for col, lane_id in enumerate(lanes.ids.tolist()):
        marks = section.lanes[lane_id].road_marks
        for j, mark in enumerate(marks):
            kinds = MARK_LINES.get(mark.type)
            start = section.s + mark.s_offset
            stop = section.s + marks[j + 1].s_offset if j + 1 < len(marks) else s1
            stop = min(stop, s1)
            if kinds is None or stop - start < 1e-3:
                continue
            n = max(2, math.ceil((stop - start) / STEP) + 1)
            s = np.linspace(start, stop, n)
            t = evaluator.lane_borders(k, s)[:, col]
            outward = 1.0 if lane_id > 0 else -1.0  # t grows to the left (OpenDRIVE)
            colour = MARK_YELLOW if mark.color == "yellow" else 0
            for m, line in enumerate(kinds):
                shift = (m - (len(kinds) - 1) / 2.0) * MARK_GAP * outward
                xy = evaluator.surface_point(s, t + shift)[:, :2] * np.array([1.0, -1.0])
                layer.markings.append((xy, line, colour))


def layer_sections(layer: MapLayer) -> dict[str, np.ndarray]:
    """The layer as named arrays for recorder/picture/sections.py: per group a `_n` section
    (each polygon's or line's point count) and an `_xy` one (x, y pairs, m, float32); the
    markings' `mark_k` (1 solid, 2 broken) and `mark_c` (MARK_YELLOW or 0)."""
    out: dict[str, np.ndarray] = {}

    def group(name: str, shapes: list[np.ndarray]) -> None:
        out[f"{name}_n"] = np.array([len(p) for p in shapes], "<u4")
        joined = np.concatenate(shapes) if shapes else np.zeros((0, 2))
        out[f"{name}_xy"] = joined.astype("<f4").reshape(-1)

    for kind, name in AREA_SECTIONS.items():
        group(name, layer.areas.get(kind, []))
    group("edge", layer.edges)
    group("cross", layer.crosswalks)
    group("mark", [m[0] for m in layer.markings])
    out["mark_k"] = np.array([m[1] for m in layer.markings], "u1")
    out["mark_c"] = np.array([m[2] for m in layer.markings], "u1")
    return out


def draw_map(draw, layer: MapLayer, view: View) -> None:
    """Draws the layer with a Pillow ImageDraw of a palette picture through `view`."""
    for kind in _FILL_ORDER:
        for poly in layer.areas.get(kind, []):
            draw.polygon(_points(view, poly), fill=INDEX[kind])
    width = max(1, round(0.15 * view.scale))
    for line in layer.edges:
        draw.line(_points(view, line), fill=INDEX["lane_edge"], width=width)
    for poly in layer.crosswalks:
        draw.polygon(_points(view, poly), fill=INDEX["crosswalk"], outline=INDEX["lane_edge"])


def _points(view: View, xy: np.ndarray) -> list[tuple[float, float]]:
    return [tuple(p) for p in view.pixels(xy).tolist()]
