"""Real maps: lane links join up in space, and the ground query handles an overpass.

For every topology pair (lane start, successor start) the end of the first lane,
in its travel direction, must be where the successor lane begins: same point
within 1 cm (CARLA's towns have planView gaps of up to ~1.7 mm) and same yaw
within 0.1 deg. A wrong lane id, contact end or direction rule breaks this by
metres or 180 deg.
"""

from __future__ import annotations

import numpy as np
import pytest

from world import Map

MAPS = ["carla/Town01", "carla/Town02", "carla/Town04", "carla/Town10HD", "esmini/fabriksgatan"]
MAPS.append("esmini/multi_intersections")


@pytest.mark.parametrize("name", MAPS)
def test_topology_pairs_join_up(shared, name):
    m = Map.from_file(shared / "maps" / f"{name}.xodr")
    pairs = m.get_topology()
    assert len(pairs) > 10
    for start, successor in pairs:
        end = m._at_end(m._graph.nodes[start.key])
        a, b = end.transform, successor.transform
        gap = a.location.distance(b.location)
        turn = abs((a.rotation.yaw - b.rotation.yaw + 180.0) % 360.0 - 180.0)
        assert gap < 0.01 and turn < 0.1, (start, successor, gap, turn)


def test_ground_under_a_town04_overpass(shared):
    """At (15.607, 37.975) Town04's road 39 (z = 11) passes over road 47 (z = 0): the
    ground is the highest surface at most 1 m above the point."""
    m = Map.from_file(shared / "maps" / "carla" / "Town04.xodr")
    pts = np.array([[15.607, 37.975, 11.2], [15.607, 37.975, 0.3], [15.607, 37.975, 9.5]])
    g = m.ground(pts)
    assert g.found.all()
    assert g.z == pytest.approx([11.0, 0.0, 0.0], abs=1e-6)


def test_until_lane_end_stops_on_a_road_linked_to_itself(shared):
    """circle_300m is one 300 m road whose successor is its own start (CARLA's client loop
    would never end there): the walk stops at the road's end."""
    m = Map.from_file(shared / "maps" / "esmini" / "circle_300m.xodr")
    wp = m.get_waypoint_xodr(1, -1, 10.0)
    assert [w.s for w in wp.next_until_lane_end(100.0)] == pytest.approx([110.0, 210.0, 300.0])
    # lane 1 runs toward s = 0: 150, 50, then the last step to the start.
    back = m.get_waypoint_xodr(1, 1, 250.0).next_until_lane_end(100.0)
    assert [w.s for w in back] == pytest.approx([150.0, 50.0, 0.0], abs=1e-9)
