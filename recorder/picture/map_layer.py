"""The still part of a picture: lane areas, lane edges and crosswalks of an OpenDRIVE map.

Each lane of each lane section becomes one polygon: its outer border sampled along s (at
most `STEP` metres apart) and its inner border back, both on the lane's surface
(world.map.lane_borders, which the 3-D scene samples through too), in CARLA's frame.
Driving lanes are filled grey, sidewalks in a sand colour, shoulders, parking and the
other lane types darker; lanes of type "none" are not drawn. Driving lanes get their
borders drawn as thin light lines (outside junctions, where the connecting lanes
would cross each other), and crosswalks are drawn from `Map.crosswalk_polygons()`.

The run page also paints the road: `road_paint` gives the 3-D scene's road lines (the
markings and crosswalks world/scene paints from the map, as the cameras see them) seen from
above, and `layer_sections` packs the layer and the paint for the page."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from recorder.picture.palette import INDEX
from recorder.picture.view import View
from world.map.lane_borders import section_borders, section_spans
from world.map.opendrive.evaluation import RoadEvaluator

STEP = 1.0  # metres between border samples
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
    layer.crosswalks = [polygon[:, :2] for polygon in town.crosswalk_polygons()]
    return layer


def road_paint(town) -> tuple[np.ndarray, np.ndarray]:
    """The road lines of the map's 3-D scene (world.scene.static_scene, tag RoadLines) from
    above: triangles (T, 3, 2; x, y m, CARLA's frame) and their colours (T, 3; sRGB)."""
    from world.actors.vehicle_state import CityObjectLabel
    from world.scene.static_scene import static_scene

    scene = static_scene(town)
    lines = scene.tag == int(CityObjectLabel.RoadLines)
    return scene.vertices[scene.triangles[lines]][..., :2], scene.colour[lines]


def layer_sections(layer: MapLayer, paint: tuple[np.ndarray, np.ndarray]) -> dict[str, np.ndarray]:
    """The layer and the road paint (`road_paint`) as named arrays for
    recorder/picture/sections.py: per group a `_n` section (each polygon's or line's point
    count) and an `_xy` one (x, y pairs, m, float32); the paint's triangles as `paint_xy`
    (x, y of three corners each) and their colours as `paint_c`."""
    out: dict[str, np.ndarray] = {}

    def group(name: str, shapes: list[np.ndarray]) -> None:
        out[f"{name}_n"] = np.array([len(p) for p in shapes], "<u4")
        joined = np.concatenate(shapes) if shapes else np.zeros((0, 2))
        out[f"{name}_xy"] = joined.astype("<f4").reshape(-1)

    for kind, name in AREA_SECTIONS.items():
        group(name, layer.areas.get(kind, []))
    group("edge", layer.edges)
    group("cross", layer.crosswalks)
    out["paint_xy"] = paint[0].astype("<f4").reshape(-1)
    out["paint_c"] = paint[1].astype("u1").reshape(-1)
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
