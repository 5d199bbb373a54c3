"""Road geometry on hand-made roads, with the expected numbers worked out by hand (see each test).

These cover what libOpenDRIVE's golden data does not: legacy poly3, normalized
paramPoly3, lane borders, lane heights, level lanes, superelevation by hand, and
signal/object placement.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from world.map.opendrive import parse_opendrive
from world.map.opendrive.evaluation import RoadEvaluator
from world.map.opendrive.placement import outline_points, road_pose, signal_pose

ONE_LANE_EACH_SIDE = """<laneSection s="0">
  <left><lane id="1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane></left>
  <center><lane id="0" type="none"/></center>
  <right><lane id="-1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane></right>
</laneSection>"""


def evaluator(
    plan: str,
    *,
    length: float = 100.0,
    lanes: str = ONE_LANE_EACH_SIDE,
    extra: str = "",
    offsets: str = "",
) -> RoadEvaluator:
    text = f"""<OpenDRIVE><header/>
      <road id="1" length="{length}"><planView>{plan}</planView>{extra}
        <lanes>{offsets}{lanes}</lanes></road></OpenDRIVE>"""
    return RoadEvaluator(parse_opendrive(text).roads["1"])


def geometry(shape: str, length: float = 100.0, hdg: float = 0.0, x: float = 0.0) -> str:
    return f'<geometry s="0" x="{x}" y="0" hdg="{hdg}" length="{length}">{shape}</geometry>'


def test_line() -> None:
    # x = x0 + s cos(hdg), y = y0 + s sin(hdg); hdg = atan(3/4): a 3-4-5 triangle.
    ev = evaluator(geometry("<line/>", hdg=math.atan2(3, 4), x=1.0))
    x, y, z, hdg = ev.reference(np.array([0.0, 5.0, 10.0]))
    np.testing.assert_allclose(x, [1, 5, 9], atol=1e-12)
    np.testing.assert_allclose(y, [0, 3, 6], atol=1e-12)
    np.testing.assert_allclose(hdg, math.atan2(3, 4), atol=1e-15)
    assert np.all(z == 0)


def test_arc_quarter_circle() -> None:
    # Radius 100 turning left from (0, 0) heading east: after a quarter turn (s = 50 pi) the
    # point is (100, 100) heading north; halfway (s = 25 pi) it is (100 sin 45°, 100 - 100 cos 45°).
    ev = evaluator(geometry('<arc curvature="0.01"/>', length=200.0), length=200.0)
    x, y, _, hdg = ev.reference(np.array([25 * math.pi, 50 * math.pi]))
    r = 100 / math.sqrt(2)
    np.testing.assert_allclose(x, [r, 100], atol=1e-9)
    np.testing.assert_allclose(y, [100 - r, 100], atol=1e-9)
    np.testing.assert_allclose(hdg, [math.pi / 4, math.pi / 2], atol=1e-12)


def _clothoid_series(s: float, c: float) -> tuple[float, float]:
    """x, y of a clothoid from curvature 0 with curvature rate c (theta = c s^2 / 2), by the
    power series of cos and sin under the integral: x = sum (-1)^n a^2n s^(4n+1)/((2n)!(4n+1)),
    y = sum (-1)^n a^(2n+1) s^(4n+3)/((2n+1)!(4n+3)), with a = c/2."""
    a = c / 2
    x = sum(
        (-1) ** n * a ** (2 * n) * s ** (4 * n + 1) / (math.factorial(2 * n) * (4 * n + 1))
        for n in range(30)
    )
    y = sum(
        (-1) ** n * a ** (2 * n + 1) * s ** (4 * n + 3) / (math.factorial(2 * n + 1) * (4 * n + 3))
        for n in range(30)
    )
    return x, y


def test_spiral_matches_the_fresnel_series() -> None:
    # Curvature 0 -> 0.05 over 60 m: rate c = 0.05 / 60; the heading turns by c s^2 / 2.
    c = 0.05 / 60
    ev = evaluator(geometry('<spiral curvStart="0" curvEnd="0.05"/>', length=60.0), length=60.0)
    s = np.array([10.0, 30.0, 60.0])
    x, y, _, hdg = ev.reference(s)
    for i, si in enumerate(s):
        ex, ey = _clothoid_series(float(si), c)
        assert abs(x[i] - ex) < 1e-12 and abs(y[i] - ey) < 1e-12
    np.testing.assert_allclose(hdg, c * s**2 / 2, atol=1e-15)


def test_spiral_from_nonzero_curvature_continues_the_clothoid() -> None:
    # A spiral 0.01 -> 0.05 over 48 m is the piece s in [12, 60] of the clothoid 0 -> 0.05 over
    # 60 m (same rate 0.05/60); started at that clothoid's point and heading it must follow it.
    c = 0.05 / 60
    x0, y0 = _clothoid_series(12.0, c)
    h0 = c * 12.0**2 / 2
    shape = '<spiral curvStart="0.01" curvEnd="0.05"/>'
    plan = f'<geometry s="0" x="{x0!r}" y="{y0!r}" hdg="{h0!r}" length="48">{shape}</geometry>'
    ev = evaluator(plan, length=48.0)
    x, y, _, _ = ev.reference(np.array([48.0]))
    ex, ey = _clothoid_series(60.0, c)
    assert abs(x[0] - ex) < 1e-11 and abs(y[0] - ey) < 1e-11


def test_spiral_with_constant_curvature_is_an_arc() -> None:
    ev = evaluator(geometry('<spiral curvStart="0.02" curvEnd="0.02"/>', length=50.0), length=50)
    x, y, _, hdg = ev.reference(np.array([50.0]))
    # Arc of radius 50 through angle 1 rad: (50 sin 1, 50 (1 - cos 1)).
    assert abs(x[0] - 50 * math.sin(1)) < 1e-12 and abs(y[0] - 50 * (1 - math.cos(1))) < 1e-12
    assert abs(hdg[0] - 1.0) < 1e-15


def test_poly3_is_parameterised_by_arc_length() -> None:
    # v(u) = 0.01 u^2. Arc length from 0 to u: L(u) = u/2 sqrt(1 + 4k²u²) + asinh(2ku)/(4k),
    # k = 0.01. At s = L(10) the point is (10, 1) with heading atan(2 k u) = atan(0.2).
    k, u = 0.01, 10.0
    arc = u / 2 * math.sqrt(1 + 4 * k * k * u * u) + math.asinh(2 * k * u) / (4 * k)
    ev = evaluator(geometry('<poly3 a="0" b="0" c="0.01" d="0"/>', length=20.0), length=20.0)
    x, y, _, hdg = ev.reference(np.array([arc]))
    assert abs(x[0] - 10.0) < 1e-10 and abs(y[0] - 1.0) < 1e-10
    assert abs(hdg[0] - math.atan(0.2)) < 1e-12


def test_param_poly3_normalized_and_arc_length() -> None:
    # normalized: p = ds / length = 0.5 at ds = 5 (length 10): u = 10 p = 5, v = 4 p^2 = 1;
    # du/dp = 10, dv/dp = 8 p = 4: heading atan2(4, 10).
    norm = '<paramPoly3 aU="0" bU="10" cU="0" dU="0" aV="0" bV="0" cV="4" dV="0"/>'
    ev = evaluator(geometry(norm, length=10.0), length=10.0)
    x, y, _, hdg = ev.reference(np.array([5.0]))
    assert (abs(x[0] - 5) < 1e-12, abs(y[0] - 1) < 1e-12) == (True, True)
    assert abs(hdg[0] - math.atan2(4, 10)) < 1e-12
    # arcLength: p = ds literally = 5: u = p = 5, v = 0.04 p^2 = 1; du/dp = 1, dv/dp = 0.4.
    arc = '<paramPoly3 aU="0" bU="1" cU="0" dU="0" aV="0" bV="0" cV="0.04" dV="0" '
    arc += 'pRange="arcLength"/>'
    ev = evaluator(geometry(arc, length=10.0), length=10.0)
    x, y, _, hdg = ev.reference(np.array([5.0]))
    assert abs(x[0] - 5) < 1e-12 and abs(y[0] - 1) < 1e-12
    assert abs(hdg[0] - math.atan2(0.4, 1)) < 1e-12


def test_geometry_lookup_at_boundaries_and_heading_range() -> None:
    # At s equal to a geometry's start the new geometry is used, even across a gap.
    plan = """<geometry s="0" x="0" y="0" hdg="0" length="10"><line/></geometry>
      <geometry s="10" x="10.002" y="5" hdg="3.5" length="10"><line/></geometry>"""
    ev = evaluator(plan, length=20.0)
    x, y, _, hdg = ev.reference(np.array([math.nextafter(10.0, 0.0), 10.0]))
    assert abs(x[0] - 10.0) < 1e-12 and y[0] == 0.0
    assert (x[1], y[1]) == (10.002, 5.0)
    # Heading 3.5 rad is reported in (-pi, pi]: 3.5 - 2 pi.
    assert abs(hdg[1] - (3.5 - 2 * math.pi)) < 1e-15


def test_profiles_start_rules() -> None:
    # elevation: 0 before the first record (s=10), a record applies from its own s on.
    extra = """<elevationProfile>
        <elevation s="10" a="1" b="0.5" c="0" d="0"/>
        <elevation s="20" a="7" b="0" c="0.01" d="0"/>
      </elevationProfile>"""
    ev = evaluator(geometry("<line/>"), extra=extra)
    z = ev.elevation(np.array([5.0, 10.0, 19.0, 20.0, 30.0]))
    # s=19: 1 + 0.5*9 = 5.5; s=30: 7 + 0.01*10^2 = 8.
    np.testing.assert_allclose(z, [0, 1, 5.5, 7, 8], atol=1e-12)
    np.testing.assert_allclose(ev.tangent(np.array([15.0]))[2], [0.5])


def test_lane_widths_offsets_and_sections() -> None:
    # laneOffset 0.5: lane 0 at t = 0.5; lane 1 (width 3) outer 3.5, centre 2; lane -1 (width
    # 2 + 0.1 ds from sOffset 2) outer 0.5 - w. Before that first record the width continues
    # backward, but the borders count it only from its start (libOpenDRIVE's sums).
    lanes = """<laneSection s="0">
      <left><lane id="1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane></left>
      <center><lane id="0"/></center>
      <right><lane id="-1" type="driving"><width sOffset="2" a="2" b="0.1" c="0" d="0"/></lane>
      </right></laneSection>
      <laneSection s="50"><center><lane id="0"/></center>
      <right><lane id="-1" type="sidewalk"><width sOffset="0" a="1" b="0" c="0" d="0"/></lane>
      </right>
      </laneSection>"""
    ev = evaluator(
        geometry("<line/>"), lanes=lanes, offsets='<laneOffset s="0" a="0.5" b="0" c="0" d="0"/>'
    )
    s = np.array([0.0, 12.0, math.nextafter(50.0, 0.0), 50.0])
    lane1 = ev.lane(s, 1)
    np.testing.assert_allclose(lane1.t_outer[:3], 3.5)
    np.testing.assert_allclose(lane1.t_center[:3], 2.0)
    assert np.isnan(lane1.t_outer[3])  # no lane 1 in the second section
    right = ev.lane(s, -1)
    # s=0: w = 2 + 0.1*(0-2) = 1.8 but the border is still lane 0's; s=12: 2 + 0.1*10 = 3;
    # just below 50: 2 + 0.1*48 = 6.8; from 50 the sidewalk of width 1.
    np.testing.assert_allclose(right.width, [1.8, 3.0, 6.8, 1.0], atol=1e-12)
    np.testing.assert_allclose(right.t_outer, [0.5, -2.5, -6.3, -0.5], atol=1e-12)
    np.testing.assert_allclose(right.t_center, [0.5, -1.0, -2.9, 0.0], atol=1e-12)
    np.testing.assert_array_equal(ev.section_index(s), [0, 0, 0, 1])
    np.testing.assert_allclose(ev.lane(s, 0).t_outer, 0.5)


def test_lane_border_records() -> None:
    # Lane -1 has <border> t = -3 - 0.1 ds (from the reference line); lane -2 of width 2 lies
    # outside it: t_outer(-2) = border - 2. At ds = 10: -4 and -6; lane -1 width |(-4) - 0| = 4.
    lanes = """<laneSection s="0"><center><lane id="0"/></center><right>
      <lane id="-1" type="driving"><border sOffset="0" a="-3" b="-0.1" c="0" d="0"/></lane>
      <lane id="-2" type="sidewalk"><width sOffset="0" a="2" b="0" c="0" d="0"/></lane>
      </right></laneSection>"""
    ev = evaluator(geometry("<line/>"), lanes=lanes)
    s = np.array([10.0])
    assert ev.lane(s, -1).t_outer[0] == pytest.approx(-4.0, abs=1e-12)
    assert ev.lane(s, -1).width[0] == pytest.approx(4.0, abs=1e-12)
    assert ev.lane(s, -2).t_outer[0] == pytest.approx(-6.0, abs=1e-12)
    assert ev.lane(s, -2).t_center[0] == pytest.approx(-5.0, abs=1e-12)


def test_surface_point_planar_with_elevation() -> None:
    # Heading 90° (north), elevation 2 + 0.1 s: at s=10, t=3 the point is 3 m to the left (west):
    # x = -3, y = 10, z = 3 (no superelevation: the lateral axis stays horizontal).
    extra = '<elevationProfile><elevation s="0" a="2" b="0.1" c="0" d="0"/></elevationProfile>'
    ev = evaluator(geometry("<line/>", hdg=math.pi / 2), extra=extra)
    p = ev.surface_point(np.array([10.0]), np.array([3.0]))[0]
    np.testing.assert_allclose(p, [-3.0, 10.0, 3.0], atol=1e-12)


def test_surface_point_superelevation_tilts_the_lateral_axis() -> None:
    # East-bound flat road, superelevation 0.1 rad lifting the left: e_t = (0, cos .1, sin .1).
    extra = '<lateralProfile><superelevation s="0" a="0.1" b="0" c="0" d="0"/></lateralProfile>'
    ev = evaluator(geometry("<line/>"), extra=extra)
    p = ev.surface_point(np.array([5.0, 5.0]), np.array([2.0, -2.0]))
    np.testing.assert_allclose(p[0], [5, 2 * math.cos(0.1), 2 * math.sin(0.1)], atol=1e-12)
    np.testing.assert_allclose(p[1], [5, -2 * math.cos(0.1), -2 * math.sin(0.1)], atol=1e-12)


def test_surface_point_clamps_s_to_the_road() -> None:
    ev = evaluator(geometry("<line/>", length=10.0), length=10.0)
    p = ev.surface_point(np.array([-5.0, 15.0]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(p[:, 0], [0.0, 10.0])


def test_lane_height_interpolates_across_and_along() -> None:
    # Lane -1 (width 4) heights: inner 0.1 / outer 0.3 at s=0, inner 0.1 / outer 0.5 at s=10.
    # At s=5 the outer value is halfway, 0.4; at t=-2 (half across) h = 0.1 + 0.5*(0.4-0.1).
    lanes = """<laneSection s="0"><center><lane id="0"/></center><right>
      <lane id="-1" type="sidewalk"><width sOffset="0" a="4" b="0" c="0" d="0"/>
        <height sOffset="0" inner="0.1" outer="0.3"/><height sOffset="10" inner="0.1" outer="0.5"/>
      </lane></right></laneSection>"""
    ev = evaluator(geometry("<line/>"), lanes=lanes)
    p = ev.surface_point(np.array([5.0, 5.0, 20.0]), np.array([-2.0, 0.0, -4.0]))
    assert p[0, 2] == pytest.approx(0.25, abs=1e-12)
    # On lane 0's border (t = 0) the point belongs to lane 0, which has no height.
    assert p[1, 2] == 0.0
    # Past the last record (s=20) the heights keep their last values: outer 0.5.
    assert p[2, 2] == pytest.approx(0.5, abs=1e-12)


def test_level_lane_stays_at_its_inner_border_height() -> None:
    # Superelevation 0.1 lifts +t; lane 2 (level, from t=3 to 6) keeps the height of its inner
    # border, 3 sin(0.1): at t=5, z = 5 sin .1 + h cos .1 with h = -tan(.1) (5 - 3).
    lanes = """<laneSection s="0"><left>
      <lane id="2" type="sidewalk" level="true"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
      <lane id="1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
      </left><center><lane id="0"/></center></laneSection>"""
    extra = '<lateralProfile><superelevation s="0" a="0.1" b="0" c="0" d="0"/></lateralProfile>'
    ev = evaluator(geometry("<line/>"), lanes=lanes, extra=extra)
    p = ev.surface_point(np.array([1.0, 1.0]), np.array([5.0, 2.0]))
    assert p[0, 2] == pytest.approx(3 * math.sin(0.1), abs=1e-12)
    assert p[1, 2] == pytest.approx(2 * math.sin(0.1), abs=1e-12)  # lane 1 is not level


def test_signal_pose_as_carla_places_it() -> None:
    # Road heading 90° at (0, 0), elevation 1; laneOffset 0.7 and superelevation are ignored.
    # Signal at s=10, t=-3 (3 m right of north = east): (3, 10), z = 1 + 2.5, hdg = pi/2 + 0.2.
    extra = """<elevationProfile><elevation s="0" a="1" b="0" c="0" d="0"/></elevationProfile>
      <lateralProfile><superelevation s="0" a="0.1" b="0" c="0" d="0"/></lateralProfile>
      <signals><signal id="s" s="10" t="-3" zOffset="2.5" hOffset="0.2" type="206"/></signals>
      <objects><object id="o" s="10" t="-3" zOffset="0" hdg="0.5" type="crosswalk">
        <outline><cornerLocal u="2" v="0" z="0.1"/><cornerRoad s="20" t="1" dz="0.3"/></outline>
      </object></objects>"""
    offsets = '<laneOffset s="0" a="0.7" b="0" c="0" d="0"/>'
    ev = evaluator(geometry("<line/>", hdg=math.pi / 2), extra=extra, offsets=offsets)
    x, y, z, hdg = signal_pose(ev, ev.road.signals[0])
    assert (x, y, z) == pytest.approx((3.0, 10.0, 3.5), abs=1e-12)
    assert hdg == pytest.approx(math.pi / 2 + 0.2, abs=1e-15)
    obj = ev.road.objects[0]
    pts = outline_points(ev, obj, obj.outlines[0])
    # cornerLocal u=2 along heading pi/2 + 0.5 from (3, 10); cornerRoad at (20, 1): (-1, 20).
    h = math.pi / 2 + 0.5
    np.testing.assert_allclose(pts[0], [3 + 2 * math.cos(h), 10 + 2 * math.sin(h), 1.1], atol=1e-12)
    np.testing.assert_allclose(pts[1], [-1.0, 20.0, 1.3], atol=1e-12)
    xs, ys, _, _ = road_pose(ev, np.array([0.0, 0.0]), np.array([1.0, -1.0]))
    np.testing.assert_allclose(np.stack([xs, ys], 1), [[-1, 0], [1, 0]], atol=1e-12)


def test_crossfall_lowers_the_side_it_names() -> None:
    # Right-side crossfall 0.02 rad from s=0, both sides 0.01 from s=50 (flat road, lanes 3 m):
    # h = -tan(crossfall) |t| on the side it applies to; the other side stays at 0.
    extra = """<lateralProfile>
        <crossfall side="right" s="0" a="0.02" b="0" c="0" d="0"/>
        <crossfall side="both" s="50" a="0.01" b="0" c="0" d="0"/>
      </lateralProfile>"""
    ev = evaluator(geometry("<line/>"), extra=extra)
    p = ev.surface_point(np.array([10.0, 10.0, 60.0, 60.0]), np.array([-2.0, 2.0, -2.0, 2.0]))
    expected = [-2 * math.tan(0.02), 0.0, -2 * math.tan(0.01), -2 * math.tan(0.01)]
    np.testing.assert_allclose(p[:, 2], expected, atol=1e-12)


def test_lane_slopes_and_lane_at() -> None:
    # laneOffset 0.5 + 0.02 s; lane 1 width 3; lane -1 width 2 + 0.1 ds.
    # d(t_outer)/ds: lane 0: 0.02, lane 1: 0.02, lane -1: 0.02 - 0.1 = -0.08;
    # d(t_center)/ds of lane -1: (0.02 + (-0.08)) / 2 = -0.03.
    lanes = """<laneSection s="0">
      <left><lane id="1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane></left>
      <center><lane id="0"/></center>
      <right><lane id="-1" type="driving"><width sOffset="0" a="2" b="0.1" c="0" d="0"/></lane>
      </right></laneSection>"""
    ev = evaluator(
        geometry("<line/>"), lanes=lanes, offsets='<laneOffset s="0" a="0.5" b="0.02" c="0" d="0"/>'
    )
    d_outer, d_center = ev.lane_slopes(0, np.array([10.0]))
    cols = list(ev.sections[0].ids)  # ascending: -1, 0, 1
    np.testing.assert_allclose(d_outer[0], [-0.08, 0.02, 0.02], atol=1e-15)
    assert d_center[0, cols.index(-1)] == pytest.approx(-0.03, abs=1e-15)
    # At s=10: lane 0 at t=0.7, lane -1 outer at 0.7 - 3 = -2.3, lane 1 outer at 3.7.
    t = np.array([0.7, 0.0, -2.3, -5.0, 2.0, 3.7, 9.0])
    np.testing.assert_array_equal(ev.lane_at(np.full(7, 10.0), t), [0, -1, -1, -1, 1, 1, 1])


def test_shared_border_belongs_to_the_lowest_id_lane() -> None:
    # Lane -2 has zero width, so its outer border t = -3 is also lane -1's. libOpenDRIVE's
    # get_lane_id keeps one lane per border value, the lowest id (-2), so lane -1 drops out:
    # t = -3 is on -2's border, and t = -2.9 (first border >= t is lane 0's, then one step
    # out) lands on -2 as well. Its height 0.12 applies at both; the golden parking_demo
    # rows on zero-width lanes depend on exactly this rule. lane_at, for lookups, keeps the
    # plain reading: both points lie in lane -1's span (on its border: the inner lane).
    lanes = """<laneSection s="0"><center><lane id="0"/></center><right>
      <lane id="-1" type="driving"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
      <lane id="-2" type="curb"><width sOffset="0" a="0" b="0" c="0" d="0"/>
        <height sOffset="0" inner="0.12" outer="0.12"/></lane>
      </right></laneSection>"""
    ev = evaluator(geometry("<line/>"), lanes=lanes)
    p = ev.surface_point(np.array([5.0, 5.0]), np.array([-3.0, -2.9]))
    np.testing.assert_allclose(p[:, 2], [0.12, 0.12], atol=1e-15)
    np.testing.assert_array_equal(
        ev.lane_at(np.array([5.0, 5.0]), np.array([-3.0, -2.9])), [-1, -1]
    )
