"""The Map / Waypoint / Junction / Landmark API on small hand-written maps (tests/maps/).

Every expected number is worked by hand from the map's geometry and CARLA's rules
(LibCarla road::Map, client::Waypoint); the derivation is written beside it.

straight.xodr: road 1, 100 m along +x from the origin, elevation z = 0.05 s, lane
sections at s = 0 and 50; lanes +-1, +-2 driving 3.5 m, +-3 sidewalks 2 m.
curve.xodr: road 7, quarter circle radius 50 turning left from (0, 0) heading east,
lanes +-1 of 4 m. tjunction.xodr: roads 1 (west, ends at x = -10), 2 (east, starts at
x = 10), 3 (south, starts at (0, -10)); junction 100 with connecting roads 10
(straight), 11 (right turn 1 -> 3, radius 10), 12 (left turn 3 -> 1). loop.xodr: two
half circles of radius 30 around the origin, lanes -1 (outside) and 1 (inside), 4 m.
banked.xodr: road 5, 60 m along +x with a constant superelevation of 0.1 rad.
OpenDRIVE y is flipped in CARLA's frame: y_carla = -y_odr.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from world import (
    GeoLocation,
    LandmarkOrientation,
    LandmarkType,
    LaneChange,
    LaneMarkingColor,
    LaneMarkingType,
    LaneType,
    Location,
    Map,
    MapError,
)

MAPS = Path(__file__).parent / "maps"
SLOPE_DEG = math.degrees(math.atan(0.05))  # pitch of the straight road, 2.8624 deg
HALF_LOOP = math.pi * 30.0  # length of each loop road


@pytest.fixture(scope="module")
def straight() -> Map:
    return Map.from_file(MAPS / "straight.xodr")


@pytest.fixture(scope="module")
def curve() -> Map:
    return Map.from_file(MAPS / "curve.xodr")


@pytest.fixture(scope="module")
def tee() -> Map:
    return Map.from_file(MAPS / "tjunction.xodr")


@pytest.fixture(scope="module")
def loop() -> Map:
    return Map.from_file(MAPS / "loop.xodr")


def where(wp) -> tuple:
    return (wp.road_id, wp.section_id, wp.lane_id)


def xyz(wp) -> tuple[float, float, float]:
    loc = wp.transform.location
    return (loc.x, loc.y, loc.z)


# -- get_waypoint_xodr positions -------------------------------------------------------


def test_xodr_waypoint_right_lane_on_the_slope(straight):
    wp = straight.get_waypoint_xodr(1, -1, 10.0)
    # lane -1 centre t = -1.75 -> y_carla = +1.75; z = 0.05 * 10; travel along +x.
    assert where(wp) == (1, 0, -1) and wp.s == 10.0
    assert xyz(wp) == pytest.approx((10.0, 1.75, 0.5))
    rot = wp.transform.rotation
    assert rot.yaw == pytest.approx(0.0) and rot.pitch == pytest.approx(SLOPE_DEG)
    assert wp.lane_width == pytest.approx(3.5) and wp.lane_type == LaneType.Driving


def test_xodr_waypoint_left_lane_faces_back(straight):
    wp = straight.get_waypoint_xodr(1, 2, 60.0)
    # lane 2 centre t = 3.5 + 1.75 = 5.25 -> y_carla = -5.25, z = 3; second section;
    # lanes > 0 face against s: yaw 180, pitch written 360 - slope (CARLA).
    assert where(wp) == (1, 1, 2)
    assert xyz(wp) == pytest.approx((60.0, -5.25, 3.0))
    rot = wp.transform.rotation
    assert rot.yaw == pytest.approx(180.0) and rot.pitch == pytest.approx(360.0 - SLOPE_DEG)


def test_xodr_waypoint_sidewalk_and_missing(straight):
    side = straight.get_waypoint_xodr(1, -3, 10.0)
    # sidewalk centre t = -(3.5 + 3.5 + 1.0) = -8.0
    assert side.lane_type == LaneType.Sidewalk and xyz(side) == pytest.approx((10.0, 8.0, 0.5))
    assert straight.get_waypoint_xodr(1, -1, 100.0) is None  # s must be < length
    assert straight.get_waypoint_xodr(1, -4, 10.0) is None
    assert straight.get_waypoint_xodr(99, -1, 1.0) is None


def test_xodr_waypoint_of_the_centre_lane_is_on_the_reference_line(straight):
    # CARLA's road::Map::GetWaypoint finds lane 0 in every section: OpenSCENARIO's RoadPosition
    # asks for it. t = 0 on the slope: (10, 0, 0.5), heading along s, no width.
    wp = straight.get_waypoint_xodr(1, 0, 10.0)
    assert where(wp) == (1, 0, 0) and xyz(wp) == pytest.approx((10.0, 0.0, 0.5))
    assert wp.transform.rotation.yaw == pytest.approx(0.0) and wp.lane_width == 0.0
    assert wp.lane_type == LaneType.NONE


def test_xodr_waypoint_on_arc(curve):
    th = math.pi / 4
    s = 50.0 * th
    right = curve.get_waypoint_xodr(7, -1, s)
    left = curve.get_waypoint_xodr(7, 1, s)
    # circle centre (0, 50) odr; lane -1 radius 52, lane 1 radius 48; heading 45 deg.
    assert xyz(right) == pytest.approx((52 * math.sin(th), -(50 - 52 * math.cos(th)), 0.0))
    assert xyz(left) == pytest.approx((48 * math.sin(th), -(50 - 48 * math.cos(th)), 0.0))
    assert right.transform.rotation.yaw == pytest.approx(-45.0)
    assert left.transform.rotation.yaw == pytest.approx(135.0)


# -- get_waypoint ----------------------------------------------------------------------


def test_get_waypoint_projects_to_nearest_driving_lane(straight, curve):
    wp = straight.get_waypoint(Location(30.0, 2.5, 1.5))
    # y_odr = -2.5 lies in lane -1 (t in [-3.5, 0]); projected s = 30.
    assert where(wp) == (1, 0, -1) and wp.s == pytest.approx(30.0)
    side = straight.get_waypoint(Location(30.0, 8.5, 1.5))
    # on the sidewalk; the nearest driving lane is -2 (centre y = 5.25).
    assert where(side) == (1, 0, -2)
    walk = straight.get_waypoint(Location(30.0, 8.5, 1.5), lane_type=LaneType.Sidewalk)
    assert where(walk) == (1, 0, -3)
    on_arc = curve.get_waypoint(Location(36.77, -13.23, 0.0))
    assert where(on_arc) == (7, 0, -1) and on_arc.s == pytest.approx(50 * math.pi / 4, abs=0.01)


def test_get_waypoint_without_projection_needs_the_point_in_the_lane(straight, curve):
    # 8.5 m right of the centre line is 3.25 m from lane -2's centre: outside its half width.
    assert straight.get_waypoint(Location(30.0, 8.5, 1.5), project_to_road=False) is None
    inside = straight.get_waypoint(Location(30.0, 4.0, 1.5), project_to_road=False)
    assert where(inside) == (1, 0, -2)
    # odr (0, 10) is 40 m from the arc's centre: 8 m from lane 1's centre line (radius 48).
    far = Location(0.0, -10.0, 0.0)
    assert curve.get_waypoint(far, project_to_road=False) is None
    assert where(curve.get_waypoint(far)) == (7, 0, 1)


def test_one_point_projection_has_the_bits_of_the_batch(curve):
    # get_waypoint's one-point path and the batch share one rule; their numbers must agree
    # to the bit, on the road, between lanes, off it and at a non-finite coordinate
    rng = np.random.default_rng(4)
    points = np.column_stack(
        [rng.uniform(-20, 70, 300), rng.uniform(-70, 20, 300), rng.uniform(-1, 2, 300)]
    )
    points[0] = (np.nan, 0.0, 0.0)
    for lane_type in (LaneType.Driving, LaneType.Sidewalk):
        batch = curve.project_batch(points, lane_type)
        for k, (x, y, z) in enumerate(points.tolist()):
            one = curve.project_point(x, y, z, lane_type)
            if batch.node[k] < 0:
                assert one is None
                continue
            assert one.node == batch.node[k] and one.s == batch.s[k] and one.yaw == batch.yaw[k]
            assert one.location == tuple(batch.location[k].tolist())
            assert one.distance == batch.distance[k] and one.inside == batch.inside[k]


# -- next / previous -------------------------------------------------------------------


def test_next_and_previous_across_lane_sections(straight):
    wp = straight.get_waypoint_xodr(1, -1, 45.0)
    (ahead,) = wp.next(10.0)
    # 5 m to the section end, then 5 m into section 1 (lane link -1 -> -1).
    assert where(ahead) == (1, 1, -1) and ahead.s == pytest.approx(55.0)
    (back,) = ahead.previous(10.0)
    assert where(back) == (1, 0, -1) and back.s == pytest.approx(45.0)
    # lane 1 runs toward s = 0: 10 m left in section 1 from s = 60, then 5 m in section 0.
    (left,) = straight.get_waypoint_xodr(1, 1, 60.0).next(15.0)
    assert where(left) == (1, 0, 1) and left.s == pytest.approx(45.0)
    assert straight.get_waypoint_xodr(1, -1, 95.0).next(10.0) == []  # road ends
    with pytest.raises(MapError):
        wp.next(0.0)


def test_next_branches_into_the_junction(tee):
    wp = tee.get_waypoint_xodr(1, -1, 45.0)
    a, b = wp.next(10.0)
    # 5 m to the junction, then 5 m on connecting road 10 (straight) and 11 (right turn).
    assert (where(a), where(b)) == ((10, 0, -1), (11, 0, -1))
    assert xyz(a) == pytest.approx((-5.0, 1.75, 0.0))
    # road 11: arc of radius 10 around odr (-10, -10); lane -1 radius 8.25; angle 0.5 rad.
    assert xyz(b) == pytest.approx((-10 + 8.25 * math.sin(0.5), 10 - 8.25 * math.cos(0.5), 0.0))
    assert b.transform.rotation.yaw == pytest.approx(math.degrees(0.5))
    assert a.is_junction and a.junction_id == 100 and not wp.is_junction and wp.junction_id == -1
    c, d = wp.next(30.0)
    # through road 10 (20 m) into road 2 at s = 5; through road 11 (15.708 m) into road 3.
    assert where(c) == (2, 0, -1) and xyz(c) == pytest.approx((15.0, 1.75, 0.0))
    rest = 30.0 - 5.0 - 5.0 * math.pi
    assert where(d) == (3, 0, -1) and xyz(d) == pytest.approx((-1.75, 10.0 + rest, 0.0))


def test_junction_lanes_in_both_directions(tee):
    (back,) = tee.get_waypoint_xodr(2, -1, 5.0).previous(10.0)
    assert where(back) == (10, 0, -1) and xyz(back) == pytest.approx((5.0, 1.75, 0.0))
    (west,) = tee.get_waypoint_xodr(2, 1, 5.0).next(10.0)
    # lane 1 of road 2 runs west into road 10's lane 1, entered at its end (s = 20).
    assert where(west) == (10, 0, 1) and west.s == pytest.approx(15.0)
    assert xyz(west) == pytest.approx((5.0, -1.75, 0.0))
    assert west.transform.rotation.yaw == pytest.approx(180.0)
    (turn,) = tee.get_waypoint_xodr(3, 1, 5.0).next(10.0)
    # road 3's lane 1 runs north into road 12 (left turn, radius 10 around odr (-10, -10));
    # lane -1 of road 12 lies outside: radius 11.75, angle 0.5 rad after 5 m.
    assert where(turn) == (12, 0, -1)
    assert xyz(turn) == pytest.approx(
        (-10 + 11.75 * math.cos(0.5), -(-10 + 11.75 * math.sin(0.5)), 0.0)
    )
    assert turn.transform.rotation.yaw == pytest.approx(-(90.0 + math.degrees(0.5)))


def test_next_and_previous_around_the_loop(loop):
    (a,) = loop.get_waypoint_xodr(1, -1, 90.0).next(10.0)
    rest = 10.0 - (HALF_LOOP - 90.0)
    # road 2 starts at odr (0, 30) heading west; lane -1 circles at radius 32.
    ang = math.pi / 2 + rest / 30.0
    assert where(a) == (2, 0, -1) and a.s == pytest.approx(rest)
    assert xyz(a) == pytest.approx((32 * math.cos(ang), -32 * math.sin(ang), 0.0))
    (b,) = loop.get_waypoint_xodr(2, -1, 90.0).next(10.0)
    assert where(b) == (1, 0, -1) and b.s == pytest.approx(rest)
    # lane 1 runs against s: from road 1 s = 3 back over the start into road 2's end.
    (c,) = loop.get_waypoint_xodr(1, 1, 3.0).next(10.0)
    assert where(c) == (2, 0, 1) and c.s == pytest.approx(HALF_LOOP - 7.0)
    (d,) = loop.get_waypoint_xodr(1, -1, 3.0).previous(10.0)
    assert where(d) == (2, 0, -1) and d.s == pytest.approx(HALF_LOOP - 7.0)


def test_until_lane_end_and_start(loop):
    ahead = loop.get_waypoint_xodr(1, -1, 10.0).next_until_lane_end(20.0)
    # 30, 50, 70, 90, then one step to just before the road's end.
    assert [w.s for w in ahead] == pytest.approx([30.0, 50.0, 70.0, 90.0, HALF_LOOP])
    assert all(w.road_id == 1 for w in ahead)
    back = loop.get_waypoint_xodr(1, -1, 50.0).previous_until_lane_start(20.0)
    assert [w.s for w in back] == pytest.approx([30.0, 10.0, 0.0], abs=1e-9)


# -- left and right lanes, markings ------------------------------------------------------


def test_left_and_right_lanes_including_the_opposite_direction(straight):
    wp = straight.get_waypoint_xodr(1, -1, 10.0)
    assert where(wp.get_left_lane()) == (1, 0, 1)  # lane -1's left is the opposite lane 1
    assert where(wp.get_right_lane()) == (1, 0, -2)
    assert where(wp.get_right_lane().get_right_lane()) == (1, 0, -3)  # the sidewalk
    assert wp.get_right_lane().get_right_lane().get_right_lane() is None
    one = straight.get_waypoint_xodr(1, 1, 10.0)
    assert where(one.get_left_lane()) == (1, 0, -1)
    assert where(one.get_right_lane()) == (1, 0, 2)
    assert where(straight.get_waypoint_xodr(1, 2, 10.0).get_left_lane()) == (1, 0, 1)
    assert one.get_left_lane().s == 10.0


def test_lane_change_and_markings(straight):
    # Section 0: centre mark solid (none), marks of lanes +-1 broken (both), +-2 solid.
    # CARLA: right = own mark, left = inner lane's mark, swapped on lanes > 0.
    assert straight.get_waypoint_xodr(1, -1, 10.0).lane_change == LaneChange.Right
    assert straight.get_waypoint_xodr(1, -2, 10.0).lane_change == LaneChange.Left
    assert straight.get_waypoint_xodr(1, 1, 10.0).lane_change == LaneChange.Right
    assert straight.get_waypoint_xodr(1, 2, 10.0).lane_change == LaneChange.Left
    assert straight.get_waypoint_xodr(1, -1, 60.0).lane_change == LaneChange.NONE
    wp = straight.get_waypoint_xodr(1, -1, 10.0)
    right, left = wp.right_lane_marking, wp.left_lane_marking
    assert (right.type, right.color, right.lane_change, right.width) == (
        LaneMarkingType.Broken,
        LaneMarkingColor.Standard,
        LaneChange.Both,
        0.15,
    )
    assert (left.type, left.color, left.lane_change) == (
        LaneMarkingType.Solid,
        LaneMarkingColor.Yellow,
        LaneChange.NONE,
    )
    assert straight.get_waypoint_xodr(1, -1, 60.0).left_lane_marking.type == (
        LaneMarkingType.SolidSolid
    )


# -- topology, generated waypoints, spawn points ----------------------------------------


def pairs(m: Map) -> list[tuple]:
    return [(where(a), where(b)) for a, b in m.get_topology()]


def test_topology_of_the_straight_road(straight):
    # Driving lanes link across the section boundary only; the road has no neighbours.
    assert pairs(straight) == [
        ((1, 0, -2), (1, 1, -2)),
        ((1, 0, -1), (1, 1, -1)),
        ((1, 1, 1), (1, 0, 1)),
        ((1, 1, 2), (1, 0, 2)),
    ]
    a, b = straight.get_topology()[2]
    # pairs are lane starts: lane 1 starts at the road's end, s = 100 (less CARLA's shift).
    assert a.s == pytest.approx(100.0) and b.s == pytest.approx(50.0)


def test_topology_of_the_junction_and_loop(tee, loop):
    assert pairs(tee) == [
        ((1, 0, -1), (10, 0, -1)),
        ((1, 0, -1), (11, 0, -1)),
        ((2, 0, 1), (10, 0, 1)),
        ((3, 0, 1), (12, 0, -1)),
        ((10, 0, -1), (2, 0, -1)),
        ((10, 0, 1), (1, 0, 1)),
        ((11, 0, -1), (3, 0, -1)),
        ((12, 0, -1), (1, 0, 1)),
    ]
    assert pairs(loop) == [
        ((1, 0, -1), (2, 0, -1)),
        ((1, 0, 1), (2, 0, 1)),
        ((2, 0, -1), (1, 0, -1)),
        ((2, 0, 1), (1, 0, 1)),
    ]


def test_generate_waypoints_counts(straight, tee):
    # s = eps, 10 + eps, ..., 90 + eps: 10 stations x 4 driving lanes.
    assert len(straight.generate_waypoints(10.0)) == 40
    assert len(straight.generate_waypoints(30.0)) == 16  # s = 0, 30, 60, 90
    # tjunction: roads 1, 2, 3 (50 m, 2 lanes) -> 5 stations x 2 each; road 10 (20 m, 2
    # lanes) -> 2 x 2; roads 11, 12 (15.7 m, 1 lane) -> 2 each.
    assert len(tee.generate_waypoints(10.0)) == 3 * 10 + 4 + 2 + 2
    with pytest.raises(MapError):
        straight.generate_waypoints(0.0)


def test_spawn_points(straight):
    spawns = straight.get_spawn_points()
    # lanes -2, -1 at s = 0 and lanes 1, 2 at s = 100 (z = 5), each 0.5 m up.
    got = [(t.location.x, t.location.y, t.location.z, t.rotation.yaw) for t in spawns]
    expect = [(0, 5.25, 0.5, 0), (0, 1.75, 0.5, 0), (100, -1.75, 5.5, 180), (100, -5.25, 5.5, 180)]
    assert np.array(got) == pytest.approx(np.array(expect))


# -- landmarks -----------------------------------------------------------------------------


def test_landmarks_ahead_with_distance(straight):
    found = straight.get_waypoint_xodr(1, -1, 10.0).get_landmarks(80.0)
    # '-' signals 10 (s = 20) and 11 (s = 30) apply to right lanes; '+' ones (12 at 55, the
    # reference of 11 at 70) to left lanes only.
    assert [(lm.id, lm.distance) for lm in found] == [("10", 10.0), ("11", 20.0)]
    assert found[0].waypoint.s == pytest.approx(20.0) and found[0].waypoint.lane_id == -1
    back = straight.get_waypoint_xodr(1, 1, 90.0).get_landmarks(100.0)
    assert [(lm.id, lm.distance, lm.s) for lm in back] == [("11", 20.0, 70.0), ("12", 35.0, 55.0)]
    stops = straight.get_waypoint_xodr(1, 1, 90.0).get_landmarks_of_type(100.0, "206")
    assert [lm.id for lm in stops] == ["12"]
    assert straight.get_waypoint_xodr(1, -1, 10.0).get_landmarks(5.0) == []


def test_landmarks_through_a_junction(tee):
    found = tee.get_waypoint_xodr(3, 1, 20.0).get_landmarks(30.0)
    # lane 1 of road 3 runs toward s = 0; the '+' stop sign at s = 2 is 18 m ahead.
    assert [(lm.id, lm.distance) for lm in found] == [("30", 18.0)]
    assert tee.get_waypoint_xodr(3, -1, 20.0).get_landmarks(30.0) == []


def test_all_landmarks_fields_and_groups(straight):
    marks = straight.get_all_landmarks()
    assert [(lm.id, lm.s) for lm in marks] == [
        ("10", 20.0),
        ("11", 30.0),
        ("12", 55.0),
        ("11", 70.0),
    ]
    limit = marks[0]
    assert (limit.type, limit.value, limit.unit, limit.is_dynamic) == ("274", 30.0, "km/h", False)
    assert limit.orientation == LandmarkOrientation.Negative and limit.road_id == 1
    assert (limit.height, limit.width, limit.z_offset, limit.t) == (0.6, 0.6, 2.0, -8.0)
    # reference point (20, 0, 1) moved t = -8 across (y_carla = 8), zOffset 2 up.
    loc = limit.transform.location
    assert (loc.x, loc.y, loc.z) == pytest.approx((20.0, 8.0, 3.0))
    light = marks[1].transform.location
    # traffic lights move 0.25 m along their forward vector (yaw 0: +x).
    assert (light.x, light.y, light.z) == pytest.approx((30.25, 8.0, 4.5))
    assert len(straight.get_all_landmarks_of_type("1000001")) == 2
    assert [lm.s for lm in straight.get_landmark_group(marks[1])] == [30.0, 70.0]
    # objects are not landmarks
    assert [obj.name for _, obj in straight.objects] == ["Speed_30", "Crosswalk"]


# -- junctions, crosswalks, geolocation, ground ------------------------------------------


def test_junction_box_and_waypoints(tee):
    j = tee.get_waypoint_xodr(11, -1, 5.0).get_junction()
    assert j.id == 100
    box = j.bounding_box
    # lane centres: road 10 spans x in [-10, 10] at y_odr = +-1.75; road 11's lane ends at
    # y_odr = -10; road 12's at y_odr = 1.75. So y_carla in [-1.75, 10].
    c, e = box.location, box.extent
    assert (c.x, c.y, c.z, e.x, e.y, e.z) == pytest.approx((0, 4.125, 0, 10, 5.875, 0), abs=1e-9)
    got = [(where(a), a.s, b.s) for a, b in j.get_waypoints(LaneType.Driving)]
    # one entry per connection's connecting road (road 10 is named by two connections).
    assert [g[0] for g in got] == [(10, 0, -1), (10, 0, 1)] * 2 + [(11, 0, -1), (12, 0, -1)]
    assert got[1][1] == pytest.approx(20.0) and got[1][2] == pytest.approx(0.0)
    assert tee.get_waypoint_xodr(1, -1, 5.0).get_junction() is None


def test_crosswalk_corners(straight):
    corners = straight.get_crosswalks()
    # centre lane at s = 90: (90, 0, 4.5), pitched by the 5 % slope; corners (u, v) are
    # stretched 1 m along u and placed as CARLA does: x = 90 + u cos p, y = v, z = 4.5 + u sin p.
    cp, sp = math.cos(math.atan(0.05)), math.sin(math.atan(0.05))
    expect = [(-2.5, -7.0), (2.5, -7.0), (2.5, 7.0), (-2.5, 7.0), (-2.5, -7.0)]
    got = [(p.x, p.y, p.z) for p in corners]
    assert np.array(got) == pytest.approx(
        np.array([(90 + u * cp, v, 4.5 + u * sp) for u, v in expect])
    )


def test_geolocation(straight, curve, tee):
    r = 6378137.0
    g = straight.transform_to_geolocation(Location(1000.0, 0.0, 0.0))
    # origin (0, 0): longitude = x / R in degrees.
    assert (g.latitude, g.longitude, g.altitude) == pytest.approx((0.0, math.degrees(1000 / r), 0))
    g = straight.transform_to_geolocation(Location(0.0, -1000.0, 5.0))
    # north 1000 m: lat = 360/pi * atan(exp(1000 / R)) - 90.
    lat = 360.0 / math.pi * math.atan(math.exp(1000.0 / r)) - 90.0
    assert (g.latitude, g.longitude, g.altitude) == pytest.approx((lat, 0.0, 5.0), abs=1e-12)
    g = curve.transform_to_geolocation(Location(0.0, 0.0, 0.0))  # no geoReference: 42, 2
    assert (g.latitude, g.longitude) == pytest.approx((42.0, 2.0), abs=1e-12)
    assert isinstance(g, GeoLocation)
    g = tee.transform_to_geolocation(Location(100.0, 0.0, 0.0))
    # origin 49, 8: east 100 m at Mercator scale cos(49 deg).
    lon = 8.0 + math.degrees(100.0 / (r * math.cos(math.radians(49.0))))
    assert (g.latitude, g.longitude) == pytest.approx((49.0, lon), abs=1e-12)


def test_ground(straight, tee):
    pts = np.array([[10.0, 1.0, 3.0], [10.0, 1.0, -1.0], [10.0, 8.5, 2.0], [10.0, 20.0, 0.5]])
    g = straight.ground(pts)
    # surface z = 0.05 * 10 on every lane; a point 1.5 m below it is too far under;
    # y = 8.5 is on the sidewalk (t in [-9, -7]); y = 20 is off the road.
    assert g.found.tolist() == [True, False, True, False]
    assert g.z[[0, 2]] == pytest.approx([0.5, 0.5])
    n = np.array([-0.05, 0.0, 1.0]) / math.sqrt(1.0025)  # normal of the 5 % slope along +x
    assert g.normal[0] == pytest.approx(n)
    g = tee.ground(np.array([[0.0, 5.0, 3.0], [-30.0, 1.0, 0.5], [100.0, 100.0, 0.0]]))
    # odr (0, -5) is 11.18 m from road 12's arc centre (-10, -10): in its lane (10..13.5).
    assert g.found.tolist() == [True, True, False] and g.z[:2] == pytest.approx([0.0, 0.0])


def test_names_and_text(straight):
    assert straight.name == "straight"
    assert straight.to_opendrive() == (MAPS / "straight.xodr").read_text()
    wp = straight.get_waypoint_xodr(1, -1, 10.0)
    assert wp.id == straight.get_waypoint_xodr(1, -1, 10.0).id
    assert wp.id != straight.get_waypoint_xodr(1, -1, 11.0).id
    t = wp.transform
    t.location.x = 99.0
    assert wp.transform.location.x == 10.0  # getters return copies


def test_save_to_disk_round_trip(straight, tmp_path):
    target = straight.save_to_disk(tmp_path / "copy.xodr")
    again = Map.from_file(target)
    assert again.name == "copy" and again.to_opendrive() == straight.to_opendrive()
    assert len(again.get_topology()) == 4


def test_unreadable_file(tmp_path):
    with pytest.raises(MapError, match=r"missing\.xodr"):
        Map.from_file(tmp_path / "missing.xodr")


def test_broken_document_names_the_source():
    with pytest.raises(MapError, match="broken"):
        Map("broken", "<OpenDRIVE><road id='1' length='x'></road></OpenDRIVE>")


def test_signal_reference_to_a_missing_signal():
    text = (
        (MAPS / "straight.xodr")
        .read_text()
        .replace('<signalReference id="11"', '<signalReference id="77"')
    )
    with pytest.raises(MapError, match="id='77'"):
        Map("dangling", text)


def test_signal_reference_reports_the_referencing_road():
    # Road 2 gets a '-' reference (right lanes) to road 3's stop sign 30, at s = 3.
    # CARLA's OpenDRIVE parser adds a reference as a RoadInfoSignal of the road that holds
    # it, at the reference's own s and t, and Landmark.road_id / .s read those.
    text = (MAPS / "tjunction.xodr").read_text()
    road2_end = text.index("</lanes>", text.index('<road id="2"')) + len("</lanes>")
    reference = '<signals><signalReference id="30" s="3.0" t="-5.0" orientation="-"/></signals>'
    tee = Map("tjunction-ref", text[:road2_end] + reference + text[road2_end:])
    stops = tee.get_all_landmarks_of_type(LandmarkType.StopSign)
    assert sorted((lm.road_id, lm.s, lm.orientation) for lm in stops) == [
        (2, 3.0, LandmarkOrientation.Negative),
        (3, 2.0, LandmarkOrientation.Positive),
    ]
    (ahead,) = tee.get_waypoint_xodr(2, -1, 1.0).get_landmarks(5.0)
    assert (ahead.id, ahead.distance, ahead.road_id) == ("30", 2.0, 2)


def test_superelevation_tilts_lanes_and_ground():
    banked = Map.from_file(MAPS / "banked.xodr")
    phi = 0.1
    right = banked.get_waypoint_xodr(5, -1, 10.0)
    left = banked.get_waypoint_xodr(5, 1, 10.0)
    # centre t = -2 / +2 along the tilted normal (0, cos phi, sin phi): y_carla = -t cos phi.
    assert xyz(right) == pytest.approx((10.0, 2 * math.cos(phi), -2 * math.sin(phi)))
    assert xyz(left) == pytest.approx((10.0, -2 * math.cos(phi), 2 * math.sin(phi)))
    # roll: the left (+t) side is up; lane -1 drives along +s, so its right side is down.
    assert right.transform.rotation.roll == pytest.approx(math.degrees(phi))
    assert left.transform.rotation.roll == pytest.approx(-math.degrees(phi))
    g = banked.ground(np.array([[10.0, 1.0, 5.0]]))
    # the road plane is z = t tan(phi); y_carla = 1 is t = -1. Its normal leans to -t.
    assert g.found[0] and g.z[0] == pytest.approx(-math.tan(phi))
    assert g.normal[0] == pytest.approx([0.0, math.sin(phi), math.cos(phi)])
