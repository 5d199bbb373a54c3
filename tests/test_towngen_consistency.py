"""The generated towns read back through lockstep's OpenDRIVE parser and hold together: every
driving lane reaches every other by lane links, junction lane links name lanes that exist,
reference lines and lane centres join without gaps, signals govern lanes that exist."""

from __future__ import annotations

import numpy as np
import pytest

from world.map.opendrive import OpenDrive, parse_opendrive
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.towngen import TOWN_PRESETS, TownSpec, render_town

SPECS = {
    **TOWN_PRESETS,
    "three_lanes_all_features": TownSpec(
        seed=4, blocks_x=3, blocks_y=2, lanes=(1, 3), curves=True, hills=True, name="t3"
    ),
    "two_lanes_plain_corners": TownSpec(seed=9, blocks_x=2, blocks_y=3, lanes=2, hills=True),
}


@pytest.fixture(scope="module", params=sorted(SPECS))
def town(request) -> OpenDrive:
    return parse_opendrive(render_town(SPECS[request.param]), source=request.param)


def _end_section(odr: OpenDrive, road_id: str, junction_id: str):
    road = odr.roads[road_id]
    at_end = road.successor is not None and road.successor.element_id == junction_id
    return road.lane_sections[-1 if at_end else 0]


def _driving_graph(odr: OpenDrive) -> tuple[list[tuple[str, int]], dict]:
    """Driving lanes (road, lane) and their successors in the direction of travel (right lanes
    along s, left lanes against it) by road lane links and junction lane links."""
    nodes, edges = [], {}
    for road in odr.roads.values():
        (section,) = road.lane_sections
        for lane in section.lanes.values():
            if lane.type != "driving":
                continue
            node = (road.id, lane.id)
            nodes.append(node)
            link, lane_link = (
                (road.successor, lane.successor)
                if lane.id < 0
                else (road.predecessor, lane.predecessor)
            )
            if link is None:
                continue
            if link.element_type == "road" and lane_link is not None:
                edges.setdefault(node, []).append((link.element_id, lane_link))
            elif link.element_type == "junction":
                for connection in odr.junctions[link.element_id].connections:
                    if connection.incoming_road != road.id:
                        continue
                    for ll in connection.lane_links:
                        if ll.from_lane == lane.id:
                            edges.setdefault(node, []).append(
                                (connection.connecting_road, ll.to_lane)
                            )
    return nodes, edges


def _reach(start, edges) -> set:
    seen, stack = {start}, [start]
    while stack:
        for nxt in edges.get(stack.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def test_every_driving_lane_reaches_every_other(town):
    nodes, edges = _driving_graph(town)
    known = set(nodes)
    for targets in edges.values():
        assert set(targets) <= known, "a link leads to a lane that is not a driving lane"
    backward = {}
    for a, targets in edges.items():
        for b in targets:
            backward.setdefault(b, []).append(a)
    start = nodes[0]
    assert _reach(start, edges) == known
    assert _reach(start, backward) == known


def test_junction_lane_links_name_existing_lanes(town):
    for junction in town.junctions.values():
        for connection in junction.connections:
            incoming = _end_section(town, connection.incoming_road, junction.id)
            connecting = town.roads[connection.connecting_road]
            assert connecting.junction == junction.id
            assert connection.contact_point == "start"
            assert connection.lane_links
            for ll in connection.lane_links:
                assert ll.from_lane in incoming.lanes
                assert ll.to_lane in connecting.lane_sections[0].lanes
                assert (
                    incoming.lanes[ll.from_lane].type
                    == connecting.lane_sections[0].lanes[ll.to_lane].type
                )


def _end_pose(evaluator: RoadEvaluator, end: str) -> tuple[np.ndarray, float]:
    s = np.array([0.0 if end == "start" else evaluator.length])
    x, y, z, hdg = evaluator.reference(s)
    return np.array([x[0], y[0], z[0]]), float(hdg[0])


def test_reference_lines_and_profiles_join_without_gaps(town):
    evaluators = {rid: RoadEvaluator(road) for rid, road in town.roads.items()}
    joins = 0
    for road in town.roads.values():
        ev = evaluators[road.id]
        starts = np.array([g.s for g in road.geometries[1:]])
        if starts.size:  # each geometry ends where the next begins
            x0, y0, _, h0 = ev.reference(np.nextafter(starts, -np.inf))
            x1, y1, _, h1 = ev.reference(starts)
            assert np.hypot(x1 - x0, y1 - y0).max() < 1e-3
            assert np.abs(np.angle(np.exp(1j * (h1 - h0)))).max() < 1e-6
        for link, mine in ((road.predecessor, "start"), (road.successor, "end")):
            if link is None or link.element_type != "road":
                continue
            p, h = _end_pose(ev, mine)
            q, g = _end_pose(evaluators[link.element_id], link.contact_point)
            assert np.abs(p - q).max() < 1e-3, (road.id, mine, link)
            # a start meeting an end keeps the heading; start-start or end-end reverses it
            turn = 0.0 if mine != link.contact_point else np.pi
            assert abs(np.angle(np.exp(1j * (h - g - turn)))) < 1e-6, (road.id, mine, link)
            joins += 1
    assert joins > 0


def test_lane_centres_continue_through_junctions(town):
    """The surface point of a lane's centre at the junction edge is the connecting lane's."""
    evaluators = {rid: RoadEvaluator(road) for rid, road in town.roads.items()}
    for junction in town.junctions.values():
        for connection in junction.connections:
            incoming = evaluators[connection.incoming_road]
            at_end = town.roads[connection.incoming_road].successor.element_id == junction.id
            s_in = np.array([incoming.length if at_end else 0.0])
            s0 = np.array([0.0])
            for ll in connection.lane_links:
                t_in = incoming.lane(s_in, ll.from_lane).t_center
                t_cr = evaluators[connection.connecting_road].lane(s0, ll.to_lane).t_center
                p = incoming.surface_point(s_in, t_in)
                q = evaluators[connection.connecting_road].surface_point(s0, t_cr)
                assert np.abs(p - q).max() < 1e-3, (junction.id, connection.id, ll)


def test_signals_govern_existing_lanes_and_lights_have_controllers(town):
    lights = {}
    for road in town.roads.values():
        lanes = road.lane_sections[0].lanes
        for signal in road.signals:
            assert 0.0 <= signal.s <= road.length
            (validity,) = signal.validities
            for lane_id in range(validity.from_lane, validity.to_lane + 1):
                assert lanes[lane_id].type == "driving"
            if signal.type == "1000001":
                lights[signal.id] = road.id
    controlled = [c.signal_id for ctrl in town.controllers.values() for c in ctrl.controls]
    assert sorted(controlled) == sorted(lights)
    for junction in town.junctions.values():
        for ref in junction.controllers:
            for control in town.controllers[ref.id].controls:
                # the light stands on a street that enters this junction
                road = town.roads[lights[control.signal_id]]
                ends = {road.predecessor.element_id, road.successor.element_id}
                assert junction.id in ends
