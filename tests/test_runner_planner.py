"""The global route planner on town_small (junctions every 100 m, lanes 1.75 m either side of
the road line) and the GPS conversion of the leaderboard."""

from __future__ import annotations

import itertools
import math

import pytest
from runner_helpers import TOWN

from runner.planner import (
    EARTH_RADIUS_EQUA,
    GlobalRoutePlanner,
    RoadOption,
    interpolate_trajectory,
    location_to_gps,
    route_plan,
)
from world import Location, Map
from world.geometry import xyz_distance


@pytest.fixture(scope="module")
def town():
    world_map = Map.from_file(TOWN)
    return world_map, GlobalRoutePlanner(world_map, 1.0)


def _runs(route):
    runs = []
    for _, option in route:
        if runs and runs[-1][0] == option:
            runs[-1][1] += 1
        else:
            runs.append([option, 1])
    return [r[0] for r in runs]


def _plan(town, *points):
    world_map, grp = town
    return interpolate_trajectory(world_map, [Location(x, y, 0.0) for x, y in points], planner=grp)


def test_straight_through_a_junction(town):
    route = _plan(town, (20.0, 1.75), (180.0, 1.75))
    assert _runs(route) == [RoadOption.LANEFOLLOW, RoadOption.STRAIGHT, RoadOption.LANEFOLLOW]
    first, last = route[0][0].location, route[-1][0].location
    assert (first.x, first.y) == (20.0, 1.75)
    assert abs(last.x - 180.0) <= 2.0 and last.y == 1.75
    assert all(abs(tf.location.y - 1.75) < 1e-9 for tf, _ in route)  # the lane centre
    # 1 m sampling: no two points more than twice the sampling apart
    gaps = [a[0].location.distance(b[0].location) for a, b in itertools.pairwise(route)]
    assert max(gaps) <= 2.0
    inside = [tf.location.x for tf, option in route if option == RoadOption.STRAIGHT]
    assert min(inside) > 85.0 and max(inside) < 115.0  # the junction at x = 100 m


def test_turns(town):
    # east (+x) then toward +y: in CARLA's left-handed frame yaw grows from +x to +y, a right turn
    right = _plan(town, (120.0, -98.25), (198.25, -50.0))
    assert _runs(right) == [RoadOption.LANEFOLLOW, RoadOption.RIGHT, RoadOption.LANEFOLLOW]
    assert right[-1][0].location.x == 198.25
    # west (-x) then toward +y: yaw from 180 to 90, a left turn
    left = _plan(town, (80.0, -101.75), (-1.75, -40.0))
    assert _runs(left) == [RoadOption.LANEFOLLOW, RoadOption.LEFT, RoadOption.LANEFOLLOW]


def test_a_kept_plan_is_the_trace_in_fresh_transforms(town):
    # a route's repetitions take the plan route_plan keeps: the trace's numbers bit for bit,
    # and Transforms of their own, so an agent moving its plan's points changes no other's
    world_map, grp = town
    points = [Location(120.0, -98.25, 0.0), Location(198.25, -50.0, 0.0)]
    traced = interpolate_trajectory(world_map, points, planner=grp)
    first = route_plan(world_map, points, grp)
    first[0][0].location.x = 1e6  # the first repetition's agent moves a point
    again = route_plan(world_map, points, grp)
    assert [(tf, option) for tf, option in again] == traced
    assert all(a[0] is not b[0] for a, b in zip(again, first, strict=True))


def test_gps_of_the_leaderboard():
    # at the origin the reference itself; 1000 m east adds 1000 m along the scaled parallel
    origin = location_to_gps(42.0, 2.0, Location(0.0, 0.0, 0.0))
    assert origin["lat"] == pytest.approx(42.0, abs=1e-12)
    assert origin["lon"] == pytest.approx(2.0, abs=1e-12)
    east = location_to_gps(42.0, 2.0, Location(1000.0, 0.0, 5.0))
    scale = math.cos(math.radians(42.0))
    assert east["lon"] - 2.0 == pytest.approx(math.degrees(1000.0 / (EARTH_RADIUS_EQUA * scale)))
    assert east["z"] == 5.0
    # CARLA's +y is south: the latitude falls
    assert location_to_gps(42.0, 2.0, Location(0.0, 1000.0, 0.0))["lat"] < 42.0


def _exact_sampling(world_map, sampling: float) -> list[list[tuple]]:
    """CARLA's GlobalRoutePlanner._build_topology sampling, on exact waypoint poses: from the
    first step after the entry, one step at a time while farther than `sampling` from the exit."""
    out = []
    for wp1, wp2 in world_map.get_topology():
        l1, l2 = wp1.transform.location, wp2.transform.location
        path = []
        if l1.distance(l2) > sampling:
            w = wp1.next(sampling)[0]
            while w.transform.location.distance(l2) > sampling:
                path.append(w)
                ahead = w.next(sampling)
                if not ahead:
                    break
                w = ahead[0]
        else:
            ahead = wp1.next(sampling)
            if not ahead:
                continue
            path.append(ahead[0])
        out.append([(w.key, w.s) for w in path])
    return out


@pytest.mark.parametrize("name", ["town_small", "esmini/curves_elevation", "esmini/fabriksgatan"])
@pytest.mark.parametrize("sampling", [1.0, 2.0])
def test_screened_sampling_equals_the_exact_poses(shared, name, sampling):
    """The planner screens its lane samples on vectorised lane centres; the samples are the
    ones CARLA's loop gives on exact poses, point for point."""
    path = TOWN if name == "town_small" else shared / "maps" / f"{name}.xodr"
    world_map = Map.from_file(path)
    grp = GlobalRoutePlanner(world_map, sampling)
    got = [[(w.key, w.s) for w in seg["path"]] for seg in grp._topology]
    assert got == _exact_sampling(Map.from_file(path), sampling)


def test_a_lane_start_is_one_waypoint_of_the_graph(town):
    """A lane's start is the exit of each segment leading into it and the entry of its own
    segments: the graph holds one Waypoint for it (one pose to work out)."""
    _, grp = town
    entries = {}
    for seg in grp._topology:
        assert entries.setdefault(seg["entry"].key, seg["entry"]) is seg["entry"]
    exits = [seg["exit"] for seg in grp._topology if seg["exit"].key in entries]
    assert len(exits) > len(grp._topology) // 2
    assert all(wp is entries[wp.key] for wp in exits)


def test_the_screened_nearest_point_is_the_exact_one(town):
    """trace_route's nearest point of an edge, screened on the edge's vectorised centres, is
    the first nearest on the exact poses, for points on and beside the edge."""
    world_map, grp = town
    edges = [e for out in grp._edges.values() for e in out.values() if e.path]
    for edge in edges[::3]:
        points = [edge.entry_waypoint, *edge.path, edge.exit_waypoint]
        centres = grp._edge_centres(edge)
        for query in (points[len(points) // 2], edge.path[0], edge.exit_waypoint):
            exact = [xyz_distance(*p.centre_xyz(), *query.centre_xyz()) for p in points]
            assert grp._closest(query, points, centres) == exact.index(min(exact))
        x, y, z = points[len(points) // 3].centre_xyz()
        beside = world_map.get_waypoint(Location(x + 0.8, y - 1.9, z))  # maybe another lane
        exact = [xyz_distance(*p.centre_xyz(), *beside.centre_xyz()) for p in points]
        assert grp._closest(beside, points, centres) == exact.index(min(exact))
