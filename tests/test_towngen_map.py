"""The committed towns through CARLA's Map API (world.map.map): topology, spawn points, waypoints,
landmarks and crosswalks, with numbers worked by hand from the generator's rules."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from world.geometry import Location
from world.map.map import Map

MAPS = Path(__file__).resolve().parent.parent / "configs" / "maps"


@pytest.fixture(scope="module", params=["town_small", "town_medium", "town_parking"])
def town(request) -> tuple[Map, ET.Element]:
    path = MAPS / f"{request.param}.xodr"
    return Map.from_file(path), ET.parse(path).getroot()


def test_topology_joins_every_driving_lane_to_every_other(town):
    carla_map, root = town
    edges: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for a, b in carla_map.get_topology():
        edges.setdefault((a.road_id, a.lane_id), set()).add((b.road_id, b.lane_id))
    driving = {
        (road.get("id"), int(lane.get("id")))
        for road in root.iter("road")
        for lane in road.iter("lane")
        if lane.get("type") == "driving"
    }
    assert {(int(r), k) for r, k in driving} == {(int(r), k) for r, k in edges}
    start = next(iter(sorted(edges)))
    for graph in (edges, _reversed(edges)):
        seen, stack = {start}, [start]
        while stack:
            for nxt in graph.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        assert seen == set(edges)


def _reversed(edges):
    back: dict = {}
    for a, targets in edges.items():
        for b in targets:
            back.setdefault(b, set()).add(a)
    return back


def test_one_spawn_point_per_driving_lane_outside_junctions_and_landmarks_per_signal(town):
    # one spawn point per driving lane of a road whose junction attribute is -1 (each of
    # the generated towns' roads has one lane section); none on a junction's lanes
    carla_map, root = town
    driving = [
        lane
        for road in root.iter("road")
        if road.get("junction") == "-1"
        for lane in road.iter("lane")
        if lane.get("type") == "driving"
    ]
    spawns = carla_map.get_spawn_points()
    assert len(spawns) == len(driving)
    # each stands at its road's entry, on a junction's border: 1 m ahead is the road's lane
    ahead = [t.location + t.get_forward_vector() for t in spawns]
    assert not any(carla_map.get_waypoint(at).is_junction for at in ahead)
    for kind in ("1000001", "206", "205", "274"):
        in_file = [s for s in root.iter("signal") if s.get("type") == kind]
        assert in_file
        assert len(carla_map.get_all_landmarks_of_type(kind)) == len(in_file)


def test_town_small_waypoints_worked_by_hand():
    # town_small: the first street runs east along y_odr = 0 from x = 9 (the corner junction
    # reaches 9 m) to x = 91. Its lane -1 (eastbound) has its centre 1.75 m to the right,
    # y_odr = -1.75, so y = +1.75 in CARLA's frame, yaw 0; lane 1 is at y = -1.75, yaw 180.
    carla_map = Map.from_file(MAPS / "town_small.xodr")
    east = carla_map.get_waypoint(Location(50.0, 1.6, 0.0))
    assert (east.road_id, east.lane_id, east.is_junction) == (1, -1, False)
    assert east.s == pytest.approx(41.0, abs=1e-6)
    assert east.transform.location.y == pytest.approx(1.75, abs=1e-6)
    assert east.transform.rotation.yaw == pytest.approx(0.0, abs=1e-6)
    assert east.lane_width == pytest.approx(3.5)
    west = carla_map.get_waypoint(Location(50.0, -1.9, 0.0))
    assert (west.road_id, west.lane_id) == (1, 1)
    assert west.transform.rotation.yaw % 360.0 == pytest.approx(180.0, abs=1e-6)
    # 10 m on from s = 80 the eastbound lane is inside the T-junction at (100, 0), whose arms
    # are east, west and north: straight on or left, two connecting roads
    ahead = carla_map.get_waypoint_xodr(1, -1, 80.0).next(10.0)
    assert len(ahead) == 2
    assert all(w.is_junction for w in ahead)
    assert len({w.road_id for w in ahead}) == 2
    # crosswalks: 16 outlines of 5 corners each (closed polygons)
    assert len(carla_map.get_crosswalks()) == 16 * 5
