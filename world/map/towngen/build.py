"""Puts a town together from its layout: streets, corners, junctions, control and signs."""

from __future__ import annotations

from itertools import count

from world.map.opendrive.model import Header, OpenDrive, Road, RoadLink
from world.map.opendrive.parser import geo_reference_origin
from world.map.towngen.junctions import build_junction, node_end_of
from world.map.towngen.layout import ROUNDED, Layout, Street, plan_town
from world.map.towngen.roads import build_corner, build_street, corner_arms
from world.map.towngen.signals import add_junction_control, add_speed_signs
from world.map.towngen.spec import TownSpec

# the header's <userData code> that keeps the town's seed (what else the town's scene draws,
# world.scene.town_props, is seeded from it)
SEED_CODE = "lockstep.towngen.seed"
GEO_REFERENCE = "+proj=tmerc +lat_0=42.0 +lon_0=2.0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m"
GEO_ORIGIN = geo_reference_origin(GEO_REFERENCE)  # what a reader finds in the header


def build_town(spec: TownSpec) -> OpenDrive:
    """The whole town as an OpenDRIVE document. Ids come from one counter (streets, corners,
    junctions, then each junction's connecting roads, signals, controllers and crosswalks,
    then the speed signs), so every id in the file is unique."""
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
                links[end] = RoadLink("road", corner_ids[key], "start" if arm == entry else "end")
            else:
                links[end] = RoadLink("junction", junction_ids[key])
        streets.append(build_street(layout, street, street_ids[index], links))

    corners = [_corner(layout, key, road_id, street_ids) for key, road_id in corner_ids.items()]

    doc = OpenDrive(header=_header(layout))
    connecting = []
    for key, junction_id in junction_ids.items():
        node = layout.nodes[key]
        junction, roads = build_junction(layout, node, junction_id, street_ids, next_id)
        arm_roads = {}
        for arm in node.arms:
            index, street = layout.street_at(key, arm)
            arm_roads[arm] = (street, streets[index])
        for controller in add_junction_control(layout, node, junction, arm_roads, next_id):
            doc.controllers[controller.id] = controller
        doc.junctions[junction.id] = junction
        connecting += roads
    for street, road in zip(layout.streets, streets, strict=True):
        add_speed_signs(layout, street, road, next_id)
    for road in streets + corners + connecting:
        doc.roads[road.id] = road
    return doc


def _header(layout: Layout) -> Header:
    """Name, bounds (the outer sidewalk edges of the outermost streets, past their parking
    lanes where they have them, which enclose every road: corners and turns curve inwards),
    CARLA's default geographic origin and the town's seed (<userData>)."""
    spec = layout.spec

    def edge(lanes: int, axis: str, line: int) -> float:
        parked = any(
            street.parking
            for street in layout.streets
            if street.axis == axis and street.start[1 if axis == "h" else 0] == line
        )
        parking = spec.parking_width if parked else 0.0
        return lanes * spec.lane_width + parking + spec.sidewalk_width

    edge_x = [edge(n, "v", i) for i, n in enumerate(layout.col_lanes)]
    edge_y = [edge(n, "h", j) for j, n in enumerate(layout.row_lanes)]
    return Header(
        rev_major=1,
        rev_minor=4,
        name=spec.name,
        version="1",
        vendor="lockstep",
        north=spec.blocks_y * spec.block_size + edge_y[-1],
        south=-edge_y[0],
        east=spec.blocks_x * spec.block_size + edge_x[-1],
        west=-edge_x[0],
        geo_reference=GEO_REFERENCE,
        lat_0=GEO_ORIGIN[0],
        lon_0=GEO_ORIGIN[1],
        user_data={SEED_CODE: str(spec.seed)},
    )


def _arm_towards(street: Street, end: str) -> str:
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
        links[end] = RoadLink("road", street_ids[index], node_end_of(arm))
    street_in = layout.street_at(key, entry)[1]
    street_out = layout.street_at(key, exit_)[1]
    speed = min(street_in.speed_kmh, street_out.speed_kmh)
    return build_corner(layout, node, road_id, street_in.lanes, speed, links)
