"""The still part of a picture: lane areas, lane edges and crosswalks of an OpenDRIVE map.

Each lane of each lane section becomes one polygon: its outer border sampled along s (at
most `STEP` metres apart) and its inner border back, both on the road surface, in CARLA's
frame. Driving lanes are filled grey, sidewalks in a sand colour, shoulders, parking and
the other lane types darker; lanes of type "none" are not drawn. Driving lanes get their
borders drawn as thin light lines (outside junctions, where the connecting lanes
would cross each other), and crosswalks are drawn from `Map.get_crosswalks()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from recorder.picture.palette import INDEX
from recorder.picture.view import View
from world.map.opendrive.evaluation import RoadEvaluator

STEP = 1.0  # metres between border samples
_FILL_ORDER = ("other_lane", "shoulder", "parking", "sidewalk", "driving")
_KIND_OF_TYPE = {"driving": "driving", "sidewalk": "sidewalk", "shoulder": "shoulder",
                 "parking": "parking", "none": None}  # fmt: skip


@dataclass
class MapLayer:
    """A map's polygons and lines in world metres (x, y; CARLA's frame), by what they are."""

    areas: dict[str, list[np.ndarray]] = field(default_factory=dict)
    edges: list[np.ndarray] = field(default_factory=list)
    crosswalks: list[np.ndarray] = field(default_factory=list)

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
        sections = road.lane_sections
        for k, section in enumerate(sections):
            s1 = sections[k + 1].s if k + 1 < len(sections) else road.length
            if s1 <= section.s:
                continue
            n = max(2, math.ceil((s1 - section.s) / STEP) + 1)
            s = np.linspace(section.s, s1, n)
            lanes = evaluator.sections[k]
            outer = evaluator.lane_borders(k, s)
            inner = outer[:, lanes.inner]
            ss = np.broadcast_to(s[:, None], outer.shape)
            out_xy = evaluator.surface_point(ss, outer)[..., :2] * np.array([1.0, -1.0])
            in_xy = evaluator.surface_point(ss, inner)[..., :2] * np.array([1.0, -1.0])
            for col, lane_id in enumerate(lanes.ids.tolist()):
                if lane_id == 0 or np.all(np.abs(outer[:, col] - inner[:, col]) < 1e-3):
                    continue
                lane_type = section.lanes[lane_id].type
                kind = _KIND_OF_TYPE.get(lane_type, "other_lane")
                if kind is None:
                    continue
                layer.areas[kind].append(np.concatenate([out_xy[:, col], in_xy[::-1, col]]))
                if kind == "driving" and road.junction == "-1":
                    layer.edges.append(out_xy[:, col].copy())
                    layer.edges.append(in_xy[:, col].copy())
    layer.crosswalks = _polygons(town.get_crosswalks())
    return layer


def _polygons(corners) -> list[np.ndarray]:
    """Crosswalk corners split into polygons: each one closes on its first corner."""
    out: list[np.ndarray] = []
    start = None
    current: list[tuple[float, float]] = []
    for c in corners:
        p = (float(c.x), float(c.y))
        if start is None:
            start, current = p, [p]
        elif abs(p[0] - start[0]) < 1e-6 and abs(p[1] - start[1]) < 1e-6:
            out.append(np.array(current))
            start, current = None, []
        else:
            current.append(p)
    if len(current) >= 3:
        out.append(np.array(current))
    return [p for p in out if len(p) >= 3]


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
