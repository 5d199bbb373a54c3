"""Lane borders on each lane's own surface (world.map.lane_borders) against libOpenDRIVE's
golden samples (../shared/maps/golden/<map>/lanes.csv, OpenDRIVE frame: y flipped here).

The golden outer point of a lane is libOpenDRIVE's surface at t_outer, where the lane
holding t is the lane itself (on a border, the inner lane): the lane's own surface, which
`section_borders` must give to the last few ulps. The inner border of a lane with <height>
records is the one place the two rules differ: the golden point there is the inner
neighbour's surface, and the lane's own top stands its inner height above it.
"""

from __future__ import annotations

import csv
from collections import defaultdict

import numpy as np
import pytest

from world import Map
from world.map.lane_borders import section_borders, section_spans


def _golden(shared, name: str) -> dict[tuple[str, float], list[dict]]:
    rows: dict[tuple[str, float], list[dict]] = defaultdict(list)
    with open(shared / "maps" / "golden" / name / "lanes.csv", newline="") as f:
        for row in csv.DictReader(f):
            rows[(row["road_id"], float(row["section_s0"]))].append(row)
    return rows


@pytest.mark.parametrize(
    ("folder", "name", "every"),
    [("carla", "Town01", 3), ("esmini", "multi_intersections", 2), ("esmini", "curves", 1)],
)
def test_outer_borders_are_the_golden_surface_points(shared, folder, name, every):
    m = Map.from_file(shared / "maps" / folder / f"{name}.xodr")
    golden = _golden(shared, name)
    evaluators = m.road_evaluators()
    checked = 0
    for road in list(m.opendrive.roads.values())[::every]:
        for k, s0, _ in section_spans(road):
            rows = golden[(road.id, s0)]
            s = np.array(sorted({float(r["s"]) for r in rows}))
            b = section_borders(evaluators[road.id], k, s)
            column = {int(i): c for c, i in enumerate(b.lane_ids)}
            at = {v: i for i, v in enumerate(s.tolist())}
            for r in rows:
                i, c = at[float(r["s"])], column[int(r["lane_id"])]
                want = (float(r["x_outer"]), -float(r["y_outer"]), float(r["z_outer"]))
                assert tuple(b.outer[i, c]) == pytest.approx(want, abs=1e-9), r
                assert b.t_outer[i, c] == pytest.approx(float(r["t_outer"]), abs=1e-12)
                checked += 1
    assert checked > 500


def test_a_sidewalk_with_heights_has_its_own_top_at_its_inner_border(shared):
    """multi_intersections' road 197: sidewalk -3 has <height inner="0.02" outer="0.12"/>
    from sOffset 0 to 2 and on to 3, where it becomes 0.12 / 0.12; its inner neighbour, the
    border lane -2, has none. The road is flat and level (no elevation, superelevation or
    crossfall), so e_h is straight up: the sidewalk's inner top is 0.02 m above the golden
    point there (the border lane's surface) at s = 1, and 0.12 m at s = 5."""
    m = Map.from_file(shared / "maps" / "esmini" / "multi_intersections.xodr")
    road = m.opendrive.roads["197"]
    assert not road.elevation or all(e.b == e.c == e.d == 0 for e in road.elevation)
    golden = {
        (int(r["lane_id"]), float(r["s"])): r
        for r in _golden(shared, "multi_intersections")[("197", 0.0)]
    }
    b = section_borders(m.road_evaluators()["197"], 0, np.array([1.0, 5.0]))
    col = int(np.flatnonzero(b.lane_ids == -3)[0])
    for i, (s, lift) in enumerate(((1.0, 0.02), (5.0, 0.12))):
        neighbour = golden[(-2, s)]
        want = (
            float(neighbour["x_outer"]),
            -float(neighbour["y_outer"]),
            float(neighbour["z_outer"]) + lift,
        )
        assert tuple(b.inner[i, col]) == pytest.approx(want, abs=1e-9)
