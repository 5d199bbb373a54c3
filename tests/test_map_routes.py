"""CARLA's own numbers: leaderboard route waypoints that CARLA produced, matched by get_waypoint.

Each <waypoint> in ../shared/routes/leaderboard-1.0/routes_*.xml is a lane-centre
transform CARLA computed (x, y, z, yaw in CARLA's frame). get_waypoint of that
location must land on a driving lane whose centre and yaw agree with it.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from world import LaneType, Location, Map


def route_points(shared, town: str) -> np.ndarray:
    rows = []
    for name in ("routes_devtest.xml", "routes_training.xml"):
        root = ET.parse(shared / "routes" / "leaderboard-1.0" / name).getroot()
        for route in root.iter("route"):
            if route.get("town") == town:
                for w in route.iter("waypoint"):
                    rows.append([float(w.get(k)) for k in ("x", "y", "z", "yaw")])
    return np.array(rows)


def errors(shared, town: str) -> tuple[np.ndarray, np.ndarray, list]:
    m = Map.from_file(shared / "maps" / "carla" / f"{town}.xodr")
    pts = route_points(shared, town)
    assert len(pts) > 100, f"expected many {town} route waypoints, found {len(pts)}"
    wps = m.get_waypoints_batch(pts[:, :3])
    dist, dyaw = [], []
    for p, wp in zip(pts, wps, strict=True):
        assert wp is not None and wp.lane_type == LaneType.Driving
        tf = wp.transform
        dist.append(math.hypot(tf.location.x - p[0], tf.location.y - p[1]))
        dyaw.append(abs((tf.rotation.yaw - p[3] + 180.0) % 360.0 - 180.0))
    return np.array(dist), np.array(dyaw), wps


def summary(town: str, dist: np.ndarray, dyaw: np.ndarray) -> str:
    text = (
        f"{town}: {len(dist)} points; xy error median {np.median(dist):.4f} m, "
        f"p95 {np.percentile(dist, 95):.4f} m, max {dist.max():.4f} m; yaw error median "
        f"{np.median(dyaw):.4f} deg, p95 {np.percentile(dyaw, 95):.4f} deg, "
        f"max {dyaw.max():.4f} deg"
    )
    print(text)
    return text


def test_town04_routes_within_quarter_metre_and_half_degree(shared):
    dist, dyaw, _ = errors(shared, "Town04")
    text = summary("Town04", dist, dyaw)
    share = float(np.mean((dist <= 0.25) & (dyaw <= 0.5)))
    assert share >= 0.95, f"only {share:.1%} within 0.25 m / 0.5 deg; {text}"


def test_town01_routes_all_within_one_metre_and_one_degree(shared):
    dist, dyaw, _ = errors(shared, "Town01")
    text = summary("Town01", dist, dyaw)
    assert dist.max() <= 1.0 and dyaw.max() <= 1.0, text


@pytest.mark.parametrize("town", ["Town04"])
def test_single_and_batch_answers_agree(shared, town):
    m = Map.from_file(shared / "maps" / "carla" / f"{town}.xodr")
    pts = route_points(shared, town)[::25, :3]
    batch = m.get_waypoints_batch(pts)
    for p, b in zip(pts, batch, strict=True):
        one = m.get_waypoint(Location(*p))
        assert (one.road_id, one.section_id, one.lane_id, one.s) == (
            b.road_id,
            b.section_id,
            b.lane_id,
            b.s,
        )
