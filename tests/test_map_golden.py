"""Waypoint transforms and widths against libOpenDRIVE's golden lane-centre samples.

../shared/maps/golden/<map>/lanes.csv holds lane centre points (OpenDRIVE frame)
and widths computed by an independent implementation. get_waypoint_xodr(road,
lane, s) must sit on the same point (x, -y, z in CARLA's frame) within 1 mm and
report the same width within 1 mm. Rows at s = road length are skipped (CARLA's
get_waypoint_xodr accepts s < length only), as is lane 0.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from world import Map

CASES = [
    ("carla", "Town04", 241),
    ("carla", "Town10HD", 127),
    ("esmini", "crest-curve", 11),
    ("esmini", "curves_elevation", 17),
    ("esmini", "multi_intersections", 61),
]


@pytest.mark.parametrize(("folder", "name", "every"), CASES)
def test_waypoints_on_golden_lane_centres(shared, folder, name, every):
    m = Map.from_file(shared / "maps" / folder / f"{name}.xodr")
    lengths = {rid: road.length for rid, road in m.opendrive.roads.items()}
    checked = 0
    with open(shared / "maps" / "golden" / name / "lanes.csv", newline="") as f:
        for k, row in enumerate(csv.DictReader(f)):
            lane, s = int(row["lane_id"]), float(row["s"])
            if k % every or lane == 0 or s >= lengths[row["road_id"]]:
                continue
            wp = m.get_waypoint_xodr(row["road_id"], lane, s)
            assert wp is not None, row
            loc = wp.transform.location
            want = (float(row["x"]), -float(row["y"]), float(row["z"]))
            assert (loc.x, loc.y, loc.z) == pytest.approx(want, abs=1e-3), row
            assert wp.lane_width == pytest.approx(float(row["width"]), abs=1e-3), row
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", ["carla/Town10HD", "esmini/multi_intersections"])
def test_single_lane_pose_matches_the_section_frames(shared, name):
    """The one-lane evaluation used by Waypoint equals the all-lanes one used by the index
    (multi_intersections has lane <height> records)."""
    m = Map.from_file(shared / "maps" / f"{name}.xodr")
    for road_id, frames in list(m._frames.items())[::7]:
        for index, section in enumerate(frames.road.lane_sections):
            s = np.linspace(section.s, m._graph.section_end(road_id, index), 5)
            f = frames.frames(index, s)
            for col, lane_id in enumerate(f.lane_ids.tolist()):
                for k, sk in enumerate(s.tolist()):
                    x, y, z, yaw, pitch, roll, width = frames.pose(index, lane_id, sk)
                    want = (*f.location[k, col], f.yaw[k, col], f.pitch[k, col], f.roll[k, col])
                    got = (x, y, z, yaw, pitch, roll)
                    assert got == pytest.approx(want, abs=1e-9), (road_id, lane_id, sk)
                    assert width == pytest.approx(f.width[k, col], abs=1e-12)
