"""The road surface of every lane of a road, its curbs and the skirts down to the ground.

Each drawn lane (world.scene.materials.lane_surface: by its OpenDRIVE type) is a strip of
quads between its inner and outer border, on its own surface (elevation, superelevation,
crossfall, <height> records: world.map.lane_borders), sampled along s by
world.scene.sampling. A raised lane without <height> records stands CURB_HEIGHT above it.
Where two neighbouring lanes meet at different heights, a vertical face joins them (a
curb's side); where a drawn lane has no drawn neighbour, a skirt goes SKIRT_DEPTH down
from its edge, so the road never floats above the ground beside it. A lane narrower than
WIDTH_EPSILON at a sample is taken as absent there.
"""

from __future__ import annotations

import numpy as np

from world.actors.vehicle_state import CityObjectLabel as Label
from world.map.lane_borders import SectionBorders, section_borders
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.model import Road
from world.scene.builder import MeshParts
from world.scene.materials import CURB_HEIGHT, EARTH, Surface, lane_surface
from world.scene.sampling import section_samples

__all__ = ["SKIRT_DEPTH", "WIDTH_EPSILON", "lane_lifts", "road_surface"]

SKIRT_DEPTH = 0.6  # m below a road's free edge
WIDTH_EPSILON = 1e-3  # m: a lane narrower than this is absent at a sample
_HEIGHT_EPSILON = 1e-3  # m: neighbours closer than this in height need no face


def _darker(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    r, g, b = colour
    return (r * 3 // 4, g * 3 // 4, b * 3 // 4)


def lane_lifts(road: Road, section: int, borders: SectionBorders) -> np.ndarray:
    """(N, L) metres each lane's top stands above its surface: CURB_HEIGHT for a raised lane
    without <height> records where it is wider than WIDTH_EPSILON, else 0."""
    lanes = road.lane_sections[section].lanes
    raised = np.array(
        [
            (surface := lane_surface(lanes[int(i)].type)) is not None
            and surface.raised
            and not lanes[int(i)].heights
            for i in borders.lane_ids
        ]
    )
    wide = np.abs(borders.t_outer - borders.t_inner) > WIDTH_EPSILON
    return np.where(raised[None, :] & wide, CURB_HEIGHT, 0.0)


def road_surface(
    parts: MeshParts,
    road: Road,
    evaluator: RoadEvaluator,
    instance: int,
) -> dict[int, np.ndarray]:
    """Adds the lanes, curbs and skirts of `road` to `parts`; returns the s sampled in each
    lane section (by index), which the road marks follow."""
    samples: dict[int, np.ndarray] = {}
    for k, section in enumerate(road.lane_sections):
        s1 = road.section_end(k)
        if not s1 > section.s:
            continue
        s = samples[k] = section_samples(evaluator, k, section.s, s1)
        borders = section_borders(evaluator, k, s)
        surfaces = [
            lane_surface(lane.type) if i != 0 else None for i, lane in section.lanes.items()
        ]
        _lanes(parts, borders, surfaces, lane_lifts(road, k, borders), instance)
    return samples


def _lanes(
    parts: MeshParts,
    b: SectionBorders,
    surfaces: list[Surface | None],
    lift: np.ndarray,
    instance: int,
) -> None:
    wide = np.abs(b.t_outer - b.t_inner) > WIDTH_EPSILON  # (N, L)
    drawn = np.array([s is not None for s in surfaces])
    up = b.up[:, None, :]
    top_outer = b.outer + lift[..., None] * up
    top_inner = b.inner + lift[..., None] * up
    cols = np.flatnonzero(drawn)
    if len(cols):
        keep = wide[:-1, cols] | wide[1:, cols]
        parts.ribbons(
            top_inner[:, cols],
            top_outer[:, cols],
            np.array([int(surfaces[c].tag) for c in cols]),
            instance,
            np.array([surfaces[c].colour for c in cols]),
            keep,
        )
    _faces(parts, b, surfaces, wide & drawn[None, :], top_inner, top_outer, instance)


def _faces(
    parts: MeshParts,
    b: SectionBorders,
    surfaces: list[Surface | None],
    present: np.ndarray,
    top_inner: np.ndarray,
    top_outer: np.ndarray,
    instance: int,
) -> None:
    """Curb faces between neighbours at different heights and skirts at free edges.

    Across the road the lanes stand in id order (lane 0 left out): each border of the
    cross-section has a lane on its low-id side and one on its high-id side (or none at the
    road's edges). A lane absent at a sample leaves its neighbour a free edge there."""
    ids = b.lane_ids.tolist()
    order = [c for c, i in enumerate(ids) if i != 0]
    if not order:
        return
    n = len(b.s)
    up = b.up
    lows, highs, tags, colours, keeps = [], [], [], [], []
    for low_lane, high_lane in zip([-1, *order], [*order, -1], strict=True):
        # (lane, its side facing the border): a low-id lane faces it with its high side
        sides = [(low_lane, "high"), (high_lane, "low")]
        for (lane, side), (other, other_side) in (sides, sides[::-1]):
            if lane < 0 or surfaces[lane] is None:
                continue
            surface = surfaces[lane]
            outer = (ids[lane] < 0) == (side == "low")
            here = top_outer[:, lane] if outer else top_inner[:, lane]
            ground = (b.outer[:, lane] if outer else b.inner[:, lane]) - SKIRT_DEPTH * up
            if other < 0:
                free = np.ones(n, dtype=bool)
                lower = ground
            else:
                other_outer = (ids[other] < 0) == (other_side == "low")
                there = top_outer[:, other] if other_outer else top_inner[:, other]
                free = ~present[:, other]
                lower = np.where(free[:, None], ground, there)
            drop = here[:, 2] - lower[:, 2]
            keep_at = present[:, lane] & (free | (drop > _HEIGHT_EPSILON))
            if not keep_at.any():
                continue
            # a face between two present lanes is the higher one's curb; a free edge gets a
            # skirt, the curb's own colour under a raised lane, earth under a flat one
            skirt_tag = surface.tag if surface.raised else Label.Terrain
            skirt_colour = _darker(surface.colour) if surface.raised else EARTH
            lows.append(lower)
            highs.append(here)
            keeps.append(keep_at[:-1] | keep_at[1:])
            tags.append(np.where(free, int(skirt_tag), int(surface.tag)))
            colours.append(
                np.where(free[:, None], np.array(skirt_colour), np.array(_darker(surface.colour)))
            )
    if not lows:
        return
    keep = np.stack(keeps, axis=1)
    # one tag and colour per strip: its first kept sample decides
    first = np.argmax(keep, axis=0)
    strip = np.arange(keep.shape[1])
    parts.ribbons(
        np.stack(lows, axis=1),
        np.stack(highs, axis=1),
        np.stack(tags, axis=1)[first, strip],
        instance,
        np.stack(colours, axis=1)[first, strip],
        keep,
    )
