"""Lane links resolved as CARLA resolves them join up in space on real maps.

For every topology pair (lane start, successor start) the end of the first lane,
in its travel direction, must be where the successor lane begins: same point
within 1 cm (CARLA's towns have planView gaps of up to ~1.7 mm) and same yaw
within 0.1 deg. A wrong lane id, contact end or direction rule breaks this by
metres or 180 deg.
"""

from __future__ import annotations

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
