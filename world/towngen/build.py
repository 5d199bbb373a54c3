"""Puts a town together from its layout: streets, corners, junctions, control and signs."""

from __future__ import annotations

from itertools import count

from world.towngen.junctions import build_junction, node_end_of
from world.towngen.layout import ROUNDED, Layout, plan_town
from world.towngen.model import Link, Road, Town
from world.towngen.roads import build_corner, build_street, corner_arms
from world.towngen.signals import add_junction_control, add_speed_signs
from world.towngen.spec import TownSpec


def build_town(spec: TownSpec) -> Town:
    """The whole town as records. Ids come from one counter (roads first, then corners,
    junctions with their connecting roads and signals), so every id in the file is unique."""
    layout = plan_town(spec)
    counter = count(1)

    def next_id() -> str:
        return str(next(counter))

    street_ids = [next_id() for _ in layout.streets]
    corner_ids = {key: next_id() for key, node in layout.nodes.items() if node.kind == ROUNDED}
    junction_ids = {key: next_id() for key, node in layout.nodes.items() if node.kind != ROUNDED}

    streets = []
    for index, street in enumerate(layout.streets):
        links = {}
        for end, key in (("start", street.start), ("end", street.end)):
            if key in corner_ids:
                entry, _ = corner_arms(layout.nodes[key])
                arm = _arm_towards(street, end)
                links[end] = Link("road", corner_ids[key], "start" if arm == entry else "end")
            else:
                links[end] = Link("junction", junction_ids[key])
        streets.append(build_street(layout, street, street_ids[index], links))

    corners = [_corner(layout, key, road_id, street_ids) for key, road_id in corner_ids.items()]

    junctions, connecting = [], []
    for key, junction_id in junction_ids.items():
        node = layout.nodes[key]
        junction, roads = build_junction(layout, node, junction_id, street_ids, next_id)
        arm_roads = {arm: streets[layout.street_at(key, arm)[0]] for arm in node.arms}
        add_junction_control(layout, node, junction, arm_roads, next_id)
        junctions.append(junction)
        connecting += roads
    for index, road in enumerate(streets):
        add_speed_signs(layout, index, road, next_id)
    return Town(spec.name, streets + corners + connecting, junctions, _bounds(layout))


def _arm_towards(street, end: str) -> str:
    """The arm, seen from the node at `end` of the street, along which the street leaves."""
    if street.axis == "h":
        return "E" if end == "start" else "W"
    return "N" if end == "start" else "S"


def _corner(layout: Layout, key, road_id: str, street_ids: list[str]) -> Road:
    node = layout.nodes[key]
    entry, exit_ = corner_arms(node)
    links = {}
    for end, arm in (("start", entry), ("end", exit_)):
        index, _ = layout.street_at(key, arm)
        links[end] = Link("road", street_ids[index], node_end_of(arm))
    street_in = layout.street_at(key, entry)[1]
    street_out = layout.street_at(key, exit_)[1]
    speed = min(street_in.speed_kmh, street_out.speed_kmh)
    return build_corner(layout, node, road_id, street_in.lanes, speed, links)


def _bounds(layout: Layout) -> tuple[float, float, float, float]:
    """(west, south, east, north): the outer sidewalk edges of the outermost streets, which
    enclose every road (corners and turns curve inwards)."""
    spec = layout.spec
    side = spec.sidewalk_width
    w = spec.lane_width
    return (
        -(layout.col_lanes[0] * w + side),
        -(layout.row_lanes[0] * w + side),
        spec.blocks_x * spec.block_size + layout.col_lanes[-1] * w + side,
        spec.blocks_y * spec.block_size + layout.row_lanes[-1] * w + side,
    )
