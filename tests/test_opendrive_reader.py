"""The OpenDRIVE reader on small hand-written documents: every element kind, and its errors."""

from __future__ import annotations

import math

import pytest

from world.errors import MapError
from world.map.opendrive import (
    ArcGeometry,
    CornerLocal,
    CornerRoad,
    LineGeometry,
    OpenDriveError,
    ParamPoly3Geometry,
    Poly3Geometry,
    SpiralGeometry,
    load_opendrive,
    parse_opendrive,
    speed_to_kmh,
)

LANES = """
    <lanes>
      <laneSection s="0">
        <left>
          <lane id="1" type="driving" level="false">
            <width sOffset="0" a="3.5" b="0" c="0" d="0"/>
          </lane>
        </left>
        <center><lane id="0" type="none"/></center>
        <right>
          <lane id="-1" type="driving">
            <width sOffset="0" a="3.5" b="0" c="0" d="0"/>
          </lane>
        </right>
      </laneSection>
    </lanes>"""


def doc(body: str, header: str = '<header revMajor="1" revMinor="6" name="t"/>') -> str:
    return f'<?xml version="1.0"?>\n<OpenDRIVE>\n{header}\n{body}\n</OpenDRIVE>\n'


def road(inner: str = "", attrs: str = 'id="7" length="100"', plan: str | None = None) -> str:
    if plan is None:
        plan = '<geometry s="0" x="0" y="0" hdg="0" length="100"><line/></geometry>'
    return f"<road {attrs}><planView>{plan}</planView>{inner}{LANES}</road>"


def test_header_and_geo_reference() -> None:
    header = """<header revMajor="1" revMinor="4" name="Town" version="2" date="d" vendor="V"
        north="10.5" south="-3" east="4" west="-2">
      <geoReference><![CDATA[+proj=tmerc +lat_0=49.0193 +lon_0=8.41 +k=1 +x_0=0]]></geoReference>
    </header>"""
    h = parse_opendrive(doc(road(), header)).header
    assert (h.rev_major, h.rev_minor, h.name, h.version, h.vendor) == (1, 4, "Town", "2", "V")
    assert (h.north, h.south, h.east, h.west) == (10.5, -3.0, 4.0, -2.0)
    assert h.geo_reference == "+proj=tmerc +lat_0=49.0193 +lon_0=8.41 +k=1 +x_0=0"
    assert (h.lat_0, h.lon_0) == (49.0193, 8.41)


def test_header_without_geo_reference_has_no_origin() -> None:
    h = parse_opendrive(doc(road())).header
    assert (h.geo_reference, h.lat_0, h.lon_0) == ("", None, None)


def test_road_attributes_and_links() -> None:
    links = """<link>
        <predecessor elementType="road" elementId="3" contactPoint="end"/>
        <successor elementType="junction" elementId="9"/>
      </link>"""
    # The linked road 3 and junction 9 exist: a link to a missing element is refused.
    others = road(attrs='id="3" length="100"') + '\n<junction id="9"/>'
    main = road(links, 'id="7" length="100" name="Main" rule="LHT"')
    r = parse_opendrive(doc(main + "\n" + others)).roads["7"]
    assert (r.id, r.name, r.length, r.junction, r.rule) == ("7", "Main", 100.0, "-1", "LHT")
    assert (r.predecessor.element_type, r.predecessor.element_id) == ("road", "3")
    assert r.predecessor.contact_point == "end"
    assert (r.successor.element_type, r.successor.element_id) == ("junction", "9")
    assert r.successor.contact_point is None


@pytest.mark.parametrize(
    ("unit", "value", "kmh"),
    [
        ('unit="mph"', "55", 55 * 1.609344),  # 1 mile = 1609.344 m
        ('unit="m/s"', "10", 36.0),  # 10 m/s * 3.6
        ('unit="km/h"', "50", 50.0),
        ("", "20", 72.0),  # OpenDRIVE's default unit is m/s
    ],
)
def test_road_type_speed_units(unit: str, value: str, kmh: float) -> None:
    types = f'<type s="0" type="town" country="DE"><speed max="{value}" {unit}/></type>'
    r = parse_opendrive(doc(road(types))).roads["7"]
    assert r.types[0].type == "town" and r.types[0].country == "DE"
    assert r.types[0].speed.max == float(value)
    assert r.types[0].speed.kmh == pytest.approx(kmh, abs=1e-12)
    assert r.speed_limit_kmh(50.0) == pytest.approx(kmh, abs=1e-12)


def test_speed_limit_follows_type_records_and_no_limit() -> None:
    types = """<type s="0" type="town"><speed max="30" unit="km/h"/></type>
      <type s="40" type="motorway"><speed max="no limit"/></type>
      <type s="70" type="rural"/>"""
    r = parse_opendrive(doc(road(types))).roads["7"]
    assert r.speed_limit_kmh(39.9) == 30.0
    assert math.isinf(r.types[1].speed.max)
    assert r.speed_limit_kmh(40.0) is None
    assert r.speed_limit_kmh(80.0) is None
    assert speed_to_kmh(1.0, "mph") == 1.609344


def test_plan_view_geometry_kinds() -> None:
    plan = """
      <geometry s="0" x="1" y="2" hdg="0.5" length="10"><line/></geometry>
      <geometry s="10" x="0" y="0" hdg="0" length="10"><arc curvature="0.01"/></geometry>
      <geometry s="20" x="0" y="0" hdg="0" length="10">
        <spiral curvStart="0" curvEnd="0.02"/></geometry>
      <geometry s="30" x="0" y="0" hdg="0" length="10">
        <poly3 a="0" b="0.1" c="0.01" d="0"/></geometry>
      <geometry s="40" x="0" y="0" hdg="0" length="10">
        <paramPoly3 aU="0" bU="1" cU="0" dU="0" aV="0" bV="0" cV="0.5" dV="0" pRange="arcLength"/>
      </geometry>
      <geometry s="50" x="0" y="0" hdg="0" length="10">
        <paramPoly3 aU="0" bU="10" cU="0" dU="0" aV="0" bV="0" cV="1" dV="0"/>
      </geometry>"""
    g = parse_opendrive(doc(road(plan=plan))).roads["7"].geometries
    assert [type(x) for x in g] == [
        LineGeometry,
        ArcGeometry,
        SpiralGeometry,
        Poly3Geometry,
        ParamPoly3Geometry,
        ParamPoly3Geometry,
    ]
    assert (g[0].s, g[0].x, g[0].y, g[0].hdg, g[0].length) == (0.0, 1.0, 2.0, 0.5, 10.0)
    assert g[1].curvature == 0.01
    assert (g[2].curv_start, g[2].curv_end) == (0.0, 0.02)
    assert (g[3].a, g[3].b, g[3].c, g[3].d) == (0.0, 0.1, 0.01, 0.0)
    assert (g[4].bU, g[4].cV, g[4].p_range) == (1.0, 0.5, "arcLength")
    assert g[5].p_range == "normalized"  # the default when pRange is absent


def test_profiles_and_lateral_shape() -> None:
    inner = """<elevationProfile><elevation s="0" a="1" b="0.1" c="0" d="0"/></elevationProfile>
      <lateralProfile>
        <superelevation s="5" a="0.02" b="0" c="0" d="0"/>
        <shape s="5" t="-2" a="0.1" b="0" c="0" d="0"/>
      </lateralProfile>"""
    r = parse_opendrive(doc(road(inner))).roads["7"]
    assert (r.elevation[0].s, r.elevation[0].a, r.elevation[0].b) == (0.0, 1.0, 0.1)
    assert (r.superelevation[0].s, r.superelevation[0].a) == (5.0, 0.02)
    assert (r.shapes[0].s, r.shapes[0].t, r.shapes[0].a) == (5.0, -2.0, 0.1)


def test_lane_section_contents() -> None:
    lanes = """<lanes>
      <laneOffset s="0" a="0.25" b="0" c="0" d="0"/>
      <laneSection s="0" singleSide="true">
        <right>
          <lane id="-2" type="sidewalk" level="true">
            <link><predecessor id="-3"/><successor id="-1"/></link>
            <border sOffset="0" a="-5" b="0" c="0" d="0"/>
            <height sOffset="0" inner="0.12" outer="0.15"/>
          </lane>
          <lane id="-1" type="driving">
            <width sOffset="0" a="3" b="0" c="0" d="0"/>
            <width sOffset="10" a="3" b="0.1" c="0" d="0"/>
            <roadMark sOffset="0" type="broken" weight="bold" color="yellow" material="paint"
              width="0.15" laneChange="increase" height="0.01"/>
            <speed sOffset="0" max="30" unit="mph"/>
          </lane>
        </right>
        <center><lane id="0" type="none"><roadMark sOffset="0" type="solid solid"/></lane></center>
      </laneSection>
    </lanes>"""
    body = (
        '<road id="1" length="20"><planView>'
        '<geometry s="0" x="0" y="0" hdg="0" length="20"><line/></geometry>'
        f"</planView>{lanes}</road>"
    )
    r = parse_opendrive(doc(body)).roads["1"]
    assert r.lane_offsets[0].a == 0.25
    sec = r.lane_sections[0]
    assert sec.single_side is True
    assert list(sec.lanes) == [-2, -1, 0]
    assert sec.right_ids == [-1, -2] and sec.left_ids == []
    side = sec.lanes[-2]
    assert (side.type, side.level, side.predecessor, side.successor) == ("sidewalk", True, -3, -1)
    assert side.borders[0].a == -5.0 and side.widths == []
    assert (side.heights[0].inner, side.heights[0].outer) == (0.12, 0.15)
    drive = sec.lanes[-1]
    assert [(w.s, w.a, w.b) for w in drive.widths] == [(0.0, 3.0, 0.0), (10.0, 3.0, 0.1)]
    mark = drive.road_marks[0]
    assert (mark.type, mark.weight, mark.color, mark.material) == (
        "broken",
        "bold",
        "yellow",
        "paint",
    )
    assert (mark.width, mark.lane_change, mark.height) == (0.15, "increase", 0.01)
    assert drive.speeds[0].speed.kmh == pytest.approx(30 * 1.609344)
    assert sec.lanes[0].road_marks[0].type == "solid solid"
    assert sec.lanes[0].road_marks[0].width is None


def test_signals_and_references() -> None:
    signals = """<signals>
      <signal id="s1" name="Stop" s="12.5" t="-4" zOffset="1.5" hOffset="0.1" orientation="-"
        dynamic="no" country="DE" type="206" subtype="-1" value="-1" unit="km/h" height="0.8"
        width="0.6" text="STOP" pitch="0.01" roll="0.02">
        <validity fromLane="-2" toLane="-1"/>
        <dependency id="s9" type="light"/>
      </signal>
      <signal id="tl" s="3" t="2" dynamic="yes" type="1000001" orientation="+"/>
      <signalReference id="s1" s="4" t="1" orientation="+"><validity fromLane="1" toLane="1"/>
      </signalReference>
    </signals>"""
    r = parse_opendrive(doc(road(signals))).roads["7"]
    s1, tl = r.signals
    assert (s1.id, s1.name, s1.s, s1.t, s1.z_offset, s1.h_offset) == (
        "s1",
        "Stop",
        12.5,
        -4.0,
        1.5,
        0.1,
    )
    assert (s1.orientation, s1.dynamic, s1.country, s1.type, s1.subtype) == (
        "-",
        False,
        "DE",
        "206",
        "-1",
    )
    assert (s1.value, s1.unit, s1.height, s1.width, s1.text) == (-1.0, "km/h", 0.8, 0.6, "STOP")
    assert (s1.pitch, s1.roll) == (0.01, 0.02)
    assert [(v.from_lane, v.to_lane) for v in s1.validities] == [(-2, -1)]
    assert [(d.id, d.type) for d in s1.dependencies] == [("s9", "light")]
    assert tl.dynamic is True and tl.value is None and tl.height is None
    assert s1.position_inertial is None
    ref = r.signal_references[0]
    assert (ref.id, ref.s, ref.t, ref.orientation) == ("s1", 4.0, 1.0, "+")
    assert [(v.from_lane, v.to_lane) for v in ref.validities] == [(1, 1)]


def test_objects_with_outlines_and_repeat() -> None:
    objects = """<objects>
      <object id="cw" name="Crosswalk" type="crosswalk" s="20" t="0" zOffset="0.01" hdg="1.57"
        pitch="0" roll="0" length="8" width="4" orientation="none">
        <outline id="0" closed="true">
          <cornerLocal u="-2" v="-4" z="0"/><cornerLocal u="2" v="-4" z="0" height="0.1"/>
        </outline>
      </object>
      <object id="p1" type="parkingSpace" s="30" t="-6" radius="0.5">
        <outlines><outline id="a" closed="false"><cornerRoad s="30" t="-5" dz="0.2" height="1"/>
        </outline></outlines>
        <repeat s="30" length="20" distance="5" tStart="-6" tEnd="-7" widthStart="2.5"/>
      </object>
    </objects>"""
    cw, p1 = parse_opendrive(doc(road(objects))).roads["7"].objects
    assert (cw.id, cw.name, cw.type, cw.s, cw.t, cw.z_offset, cw.hdg) == (
        "cw",
        "Crosswalk",
        "crosswalk",
        20.0,
        0.0,
        0.01,
        1.57,
    )
    assert (cw.length, cw.width, cw.height, cw.radius) == (8.0, 4.0, None, None)
    assert cw.outlines[0].corners == [CornerLocal(-2, -4, 0, 0), CornerLocal(2, -4, 0, 0.1)]
    assert p1.radius == 0.5 and p1.outlines[0].closed is False and p1.outlines[0].id == "a"
    assert p1.outlines[0].corners == [CornerRoad(30, -5, 0.2, 1)]
    rep = p1.repeats[0]
    assert (rep.s, rep.length, rep.distance, rep.t_start, rep.t_end) == (30, 20, 5, -6, -7)
    assert (rep.width_start, rep.width_end, rep.height_start) == (2.5, None, None)


def test_junctions_and_controllers() -> None:
    body = (
        road()
        + road(attrs='id="8" length="100" junction="5"')
        + road(attrs='id="9" length="100" junction="5"')
        + """
    <controller id="c1" name="ctrl" sequence="2">
      <control signalId="s1" type="0"/><control signalId="s2"/>
    </controller>
    <junction id="5" name="J5">
      <connection id="0" incomingRoad="7" connectingRoad="8" contactPoint="end">
        <laneLink from="-1" to="-2"/><laneLink from="-2" to="-3"/>
      </connection>
      <connection id="1" incomingRoad="7" connectingRoad="9" contactPoint="start"/>
      <controller id="c1" type="0" sequence="1"/>
    </junction>"""
    )
    d = parse_opendrive(doc(body))
    c = d.controllers["c1"]
    assert (c.id, c.name, c.sequence) == ("c1", "ctrl", 2)
    assert [(x.signal_id, x.type) for x in c.controls] == [("s1", "0"), ("s2", "")]
    j = d.junctions["5"]
    assert (j.id, j.name, j.type) == ("5", "J5", "default")
    c0, c1 = j.connections
    assert (c0.id, c0.incoming_road, c0.connecting_road, c0.contact_point) == ("0", "7", "8", "end")
    assert [(x.from_lane, x.to_lane) for x in c0.lane_links] == [(-1, -2), (-2, -3)]
    assert (c1.contact_point, c1.lane_links) == ("start", [])
    assert [(x.id, x.type, x.sequence) for x in j.controllers] == [("c1", "0", 1)]


def test_load_from_file_names_it(tmp_path) -> None:
    path = tmp_path / "tiny.xodr"
    path.write_text(doc(road()))
    d = load_opendrive(path)
    assert d.source == str(path) and list(d.roads) == ["7"]


# ---- errors: file, element, line, expected vs found -------------------------------------------


def _error(text: str) -> OpenDriveError:
    with pytest.raises(OpenDriveError) as info:
        parse_opendrive(text, source="maps/bad.xodr")
    assert isinstance(info.value, MapError)
    return info.value


def test_error_missing_attribute_names_line() -> None:
    text = doc(road(attrs='id="7"'))  # no length
    err = _error(text)
    assert err.line == 4 and err.element == "road"
    assert str(err) == (
        "maps/bad.xodr:4: <road id='7'>: missing attribute 'length' (expected a number)"
    )


def test_error_bad_number_names_line() -> None:
    plan = '\n<geometry s="0" x="abc" y="0" hdg="0" length="100"><line/></geometry>'
    err = _error(doc(road(plan=plan)))
    assert (err.line, err.element) == (5, "geometry")
    assert "attribute 'x': expected a number, found 'abc'" in str(err)


def test_error_unknown_geometry() -> None:
    plan = '<geometry s="0" x="0" y="0" hdg="0" length="100">\n  <clothoid/></geometry>'
    err = _error(doc(road(plan=plan)))
    assert (err.line, err.element) == (5, "clothoid")
    assert "unknown geometry: expected line, arc, spiral, poly3 or paramPoly3" in str(err)


def test_error_bad_enumerations() -> None:
    bad_contact = '<link><successor elementType="road" elementId="2" contactPoint="middle"/></link>'
    assert "expected 'start' or 'end', found 'middle'" in str(_error(doc(road(bad_contact))))
    bad_speed = '<type s="0" type="town"><speed max="5" unit="furlong/h"/></type>'
    assert "found 'furlong/h'" in str(_error(doc(road(bad_speed))))
    bad_range = '<geometry s="0" x="0" y="0" hdg="0" length="1"><paramPoly3 pRange="x"/></geometry>'
    assert "expected arcLength or normalized, found 'x'" in str(_error(doc(road(plan=bad_range))))


def test_error_lane_id_not_integer() -> None:
    text = doc(road()).replace('lane id="1"', 'lane id="one"')
    err = _error(text)
    assert err.element == "lane" and "expected an integer, found 'one'" in str(err)


def test_error_not_xml_and_wrong_root() -> None:
    err = _error("<OpenDRIVE>\n<road id='1'>\n</OpenDRIVE>")
    assert err.line == 3 and "not well-formed XML" in str(err)
    err = _error("<map/>")
    assert "expected root element <OpenDRIVE>, found <map>" in str(err)


def test_error_duplicate_road() -> None:
    err = _error(doc(road() + "\n" + road()))
    # The first <road> spans lines 4-19, the second starts on line 20.
    assert err.line == 20 and "duplicate road id '7'" in str(err)


def test_error_duplicate_lane_names_the_second_lane() -> None:
    second = '\n<right><lane id="-1" type="driving"/></right>'
    text = doc(road()).replace("</laneSection>", second + "</laneSection>", 1)
    err = _error(text)
    # LANES already has lane -1; the repeated one is on the line after the first </right>.
    assert (err.element, "duplicate lane id -1" in str(err)) == ("lane", True)
    assert err.line == text[: text.index(second) + 1].count("\n") + 1


def test_signal_inertial_position_and_parking_space() -> None:
    inner = """<lateralProfile><crossfall side="left" s="2" a="0.03"/></lateralProfile>
    <signals><signal id="9" s="0" t="0" type="1000001">
        <positionInertial x="10" y="-20" z="3" hdg="1.5" pitch="0.1" roll="0.2"/>
      </signal></signals>
      <objects><object id="ps" type="parkingSpace" s="5" t="-4">
        <parkingSpace access="handicapped" restrictions="2h"/>
        <validity fromLane="-1" toLane="-1"/>
      </object></objects>"""
    r = parse_opendrive(doc(road(inner))).roads["7"]
    assert (r.crossfall[0].side, r.crossfall[0].s, r.crossfall[0].a) == ("left", 2.0, 0.03)
    pos = r.signals[0].position_inertial
    assert (pos.x, pos.y, pos.z, pos.hdg, pos.pitch, pos.roll) == (10, -20, 3, 1.5, 0.1, 0.2)
    obj = r.objects[0]
    assert (obj.parking_space.access, obj.parking_space.restrictions) == ("handicapped", "2h")
    assert [(v.from_lane, v.to_lane) for v in obj.validities] == [(-1, -1)]
