"""The town generator: determinism, well-formed OpenDRIVE with what CARLA reads, and the
geometry of tiny towns worked by hand.

Hand rules used below (defaults: lane width w = 3.5 m, sidewalk 2 m, turn radius R = 9 m,
block 100 m): a junction reaches R + (n - 1) * w from the crossing along each arm, where n is
the lane count of the crossing street; a street between two junctions is 100 m minus both
reaches; a turn joins the two streets' centre lines with a quarter arc of radius equal to the
reach (both reaches are equal when all streets have the same lanes).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from world.errors import LockstepError
from world.map.towngen import TOWN_PRESETS, TownSpec, TownSpecError, generate_town, render_town
from world.map.towngen.junctions import LEFT, RIGHT, STRAIGHT, lane_pairs

REPO = Path(__file__).resolve().parent.parent


def _roads(root: ET.Element) -> list[ET.Element]:
    return root.findall("road")


def _geometry(road: ET.Element) -> list[ET.Element]:
    return road.findall("planView/geometry")


def test_same_seed_gives_same_bytes_and_another_seed_other_choices():
    a = generate_town(5, 3, 2, 100.0, (1, 3))
    b = generate_town(5, 3, 2, 100.0, (1, 3))
    c = generate_town(6, 3, 2, 100.0, (1, 3))
    assert a == b
    assert a != c


def test_hills_do_not_change_the_other_seeded_choices():
    flat = ET.fromstring(generate_town(3, 2, 2, 100.0, (1, 3)))
    hilly = ET.fromstring(generate_town(3, 2, 2, 100.0, (1, 3), hills=True))
    assert [r.get("length") for r in _roads(flat)] == [r.get("length") for r in _roads(hilly)]
    assert [s.get("type") for s in flat.iter("signal")] == [
        s.get("type") for s in hilly.iter("signal")
    ]
    heights = {e.get("a") for e in hilly.iter("elevation")}
    assert len(heights) > 1  # the crossings stand at different heights
    assert {e.get("a") for e in flat.iter("elevation")} == {"0"}


def test_committed_towns_are_regenerated_byte_for_byte():
    for name, spec in TOWN_PRESETS.items():
        path = REPO / "configs" / "maps" / f"{name}.xodr"
        assert path.read_text(encoding="utf-8") == render_town(spec), (
            f"{path} differs from its preset; regenerate it with "
            f"`lockstep map generate --preset {name} -o {path.relative_to(REPO)}`"
        )


def test_town_small_has_every_element_carla_reads():
    root = ET.fromstring(render_town(TOWN_PRESETS["town_small"]))
    assert root.tag == "OpenDRIVE"
    header = root.find("header")
    assert (header.get("revMajor"), header.get("revMinor")) == ("1", "4")
    assert "+lat_0=42.0" in header.find("geoReference").text
    ids = [r.get("id") for r in _roads(root)]
    assert len(ids) == len(set(ids))
    for road in _roads(root):
        assert road.find("link") is not None
        assert float(road.get("length")) == pytest.approx(
            sum(float(g.get("length")) for g in _geometry(road)), abs=1e-9
        )
        section = road.find("lanes/laneSection")
        assert section.find("center/lane").get("id") == "0"
        assert road.find("type/speed").get("unit") == "km/h"
        for lane in section.iter("lane"):
            assert lane.find("roadMark") is not None
            if lane.get("type") == "sidewalk":
                assert float(lane.find("height").get("inner")) > 0.0
    types = sorted({s.get("type") for s in root.iter("signal")})
    assert types == ["1000001", "205", "206", "274"]
    for speed in (s for s in root.iter("signal") if s.get("type") == "274"):
        assert speed.get("unit") == "km/h"
        assert speed.get("subtype") == speed.get("value")
        assert 30 <= float(speed.get("value")) <= 120
    lights = {s.get("id") for s in root.iter("signal") if s.get("type") == "1000001"}
    controllers = {c.get("id"): c for c in root.findall("controller")}
    controlled = {c.get("signalId") for c in root.iter("control")}
    assert controlled == lights
    for junction in root.findall("junction"):
        for ref in junction.findall("controller"):
            assert ref.get("id") in controllers
    crosswalks = [o for o in root.iter("object") if o.get("type") == "crosswalk"]
    assert crosswalks
    for crosswalk in crosswalks:
        corners = crosswalk.findall("outline/cornerLocal")
        assert len(corners) == 5
        assert (corners[0].get("u"), corners[0].get("v")) == (
            corners[-1].get("u"),
            corners[-1].get("v"),
        )


def test_one_block_town_worked_by_hand():
    # 1x1 block, one lane each way: 4 crossings, all corners with two arms, so 4 junctions
    # with one left and one right turn each (no U-turns): 2 connecting roads per junction.
    # Reach R = 9 m on every arm: streets are 100 - 2 * 9 = 82 m; every turn is a quarter
    # arc of radius 9 m (length 9 * pi / 2), curvature +-1/9.
    root = ET.fromstring(generate_town(0, 1, 1, 100.0, 1))
    streets = [r for r in _roads(root) if r.get("junction") == "-1"]
    turns = [r for r in _roads(root) if r.get("junction") != "-1"]
    assert len(root.findall("junction")) == 4
    assert [len(j.findall("connection")) for j in root.findall("junction")] == [2, 2, 2, 2]
    assert [float(r.get("length")) for r in streets] == [82.0] * 4
    starts = [tuple(float(_geometry(r)[0].get(k)) for k in ("x", "y", "hdg")) for r in streets]
    half_pi = math.pi / 2
    assert starts == [
        (9.0, 0.0, 0.0),  # south street, eastbound reference line
        (9.0, 100.0, 0.0),  # north street
        (0.0, 9.0, half_pi),  # west street, northbound
        (100.0, 9.0, half_pi),  # east street
    ]
    assert len(turns) == 8
    for road in turns:
        (arc,) = _geometry(road)
        assert float(arc.get("length")) == pytest.approx(9 * math.pi / 2, abs=1e-9)
        assert abs(float(arc.find("arc").get("curvature"))) == pytest.approx(1 / 9, abs=1e-12)
    # the corner at (0, 0): from the south street (arm E, driving west on lane 1) a right
    # turn north onto the west street's lane -1; from the west street (arm N, driving south
    # on lane 1) a left turn east onto the south street's lane -1.
    first = root.findall("junction")[0]
    links = [
        (c.get("incomingRoad"), c.find("laneLink").get("from"), c.find("laneLink").get("to"))
        for c in first.findall("connection")
    ]
    south, west = streets[0].get("id"), streets[2].get("id")
    assert links == [(south, "1", "-1"), (west, "1", "-1")]


def test_two_lane_corner_worked_by_hand():
    # 1x1 block, two lanes each way: reach 9 + 3.5 = 12.5 m, streets 75 m. A turn between
    # 2-lane streets joins the lane pairs (1,1), (1,2), (2,2) (left) or (1,1), (2,1), (2,2)
    # (right): 3 connecting roads per turn, 6 per corner junction; arcs of radius 12.5 m.
    root = ET.fromstring(generate_town(0, 1, 1, 100.0, 2))
    streets = [r for r in _roads(root) if r.get("junction") == "-1"]
    assert [float(r.get("length")) for r in streets] == [75.0] * 4
    assert [len(j.findall("connection")) for j in root.findall("junction")] == [6] * 4
    for road in (r for r in _roads(root) if r.get("junction") != "-1"):
        assert float(road.get("length")) == pytest.approx(12.5 * math.pi / 2, abs=1e-9)
        offset = road.find("lanes/laneOffset")
        # lane -1 starts and ends on the lanes it joins: offset -(k - 1) * 3.5 at each end
        a, c, d = (float(offset.get(k)) for k in ("a", "c", "d"))
        length = float(road.get("length"))
        assert a in (0.0, -3.5)
        assert a + c * length**2 + d * length**3 in (
            pytest.approx(0.0, abs=1e-9),
            pytest.approx(-3.5, abs=1e-9),
        )


def test_lane_pairs_cover_every_lane_without_crossing():
    assert lane_pairs(STRAIGHT, 3, 3) == [(1, 1), (2, 2), (3, 3)]
    assert lane_pairs(LEFT, 1, 3) == [(1, 1), (1, 2), (1, 3)]
    assert lane_pairs(RIGHT, 3, 1) == [(1, 1), (2, 1), (3, 1)]
    assert lane_pairs(LEFT, 3, 3) == [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3)]
    assert lane_pairs(RIGHT, 3, 3) == [(1, 1), (2, 1), (2, 2), (3, 2), (3, 3)]
    assert lane_pairs(LEFT, 2, 3) == [(1, 1), (1, 2), (2, 2), (2, 3)]


def test_rounded_corner_is_line_spiral_arc_spiral_line():
    # corner radius 0.25 * 100 = 25 m, spirals 0.15 * 100 = 15 m: the arc turns
    # pi/2 - 2 * (15 / 2) / 25 = pi/2 - 0.6 rad, so it is 25 * (pi/2 - 0.6) m long;
    # with 2 m of straight either side the corner road is 4 + 30 + 25 * (pi/2 - 0.6) m.
    root = ET.fromstring(generate_town(0, 1, 1, 100.0, 1, curves=True))
    assert root.findall("junction") == []
    corners = [r for r in _roads(root) if r.get("name").startswith("Corner")]
    assert len(corners) == 4
    for corner in corners:
        kinds = [g[0].tag for g in _geometry(corner)]
        assert kinds == ["line", "spiral", "arc", "spiral", "line"]
        spiral_in = _geometry(corner)[1].find("spiral")
        assert (float(spiral_in.get("curvStart")), float(spiral_in.get("curvEnd"))) == (0, 0.04)
        expected = 4 + 30 + 25 * (math.pi / 2 - 0.6)
        assert float(corner.get("length")) == pytest.approx(expected, abs=1e-9)


def test_bad_spec_names_the_parameter():
    with pytest.raises(TownSpecError, match=r"lanes: expected a count 1\.\.3.*found 4"):
        TownSpec(lanes=4)
    with pytest.raises(TownSpecError, match="block_size"):
        generate_town(0, 2, 2, 45.0, 3, curves=True)
    with pytest.raises(TownSpecError, match=r"parking: expected a chance 0\.\.1, found 1\.5"):
        TownSpec(parking=1.5)
    assert issubclass(TownSpecError, LockstepError)


def test_signs_stand_where_the_rules_put_them():
    # One lane each way: a sign stands 1 * 3.5 + 2 / 2 = 4.5 m from the centre line, on the
    # right of the traffic it faces (t < 0 and orientation "+" for traffic along s, lane -1;
    # t > 0, "-" and lane 1 against s). Lights and stop/yield signs stand 4 m before the
    # junction the traffic drives into; speed signs 6 m after the one it comes from.
    root = ET.fromstring(render_town(TOWN_PRESETS["town_small"]))
    checked = 0
    for road in _roads(root):
        length = float(road.get("length"))
        for signal in road.iter("signal"):
            s, t = float(signal.get("s")), float(signal.get("t"))
            validity = signal.find("validity")
            lanes = (validity.get("fromLane"), validity.get("toLane"))
            along = signal.get("orientation") == "+"
            assert (t, lanes) == ((-4.5, ("-1", "-1")) if along else (4.5, ("1", "1")))
            if signal.get("type") == "274":
                assert s == pytest.approx(6.0 if along else length - 6.0)
            else:
                assert s == pytest.approx(length - 4.0 if along else 4.0)
                towards = road.find("link/successor" if along else "link/predecessor")
                assert towards.get("elementType") == "junction"
            checked += 1
    assert checked == 34


def test_parking_lanes_do_not_change_the_other_seeded_choices():
    plain = ET.fromstring(render_town(TownSpec(seed=7)))
    parked = ET.fromstring(render_town(TownSpec(seed=7, parking=0.5)))
    assert [r.get("length") for r in _roads(plain)] == [r.get("length") for r in _roads(parked)]
    assert [(s.get("type"), s.get("s"), s.get("t")) for s in plain.iter("signal")] == [
        (s.get("type"), s.get("s"), s.get("t")) for s in parked.iter("signal")
    ]
    assert not [lane for lane in plain.iter("lane") if lane.get("type") == "parking"]
    # parking 0.5 on seed 7 gives three of the town's eight streets between two junctions
    # parking lanes (lanes -2 and 2 of a one-lane street; its sidewalks become -3 and 3)
    assert len([lane for lane in parked.iter("lane") if lane.get("type") == "parking"]) == 6


def test_parking_lane_worked_by_hand():
    # town_parking: a street with parking lanes is 100 - 2 * 9 = 82 m long. Its parking lanes
    # (2.5 m) have no width for 8 m at each end, widen over 5 m (a cubic flat at both ends,
    # c = 3 * 2.5 / 5^2 = 0.3, d = -2 * 2.5 / 5^3 = -0.04), are full from 13 m to 69 m and
    # narrow back until 74 m. The sidewalk beyond keeps its 2 m and height, and links through
    # each junction to the corner's sidewalk, as a street without parking does.
    root = ET.fromstring(render_town(TOWN_PRESETS["town_parking"]))
    roads = {r.get("id"): r for r in _roads(root)}
    parked = [r for r in _roads(root) if any(la.get("type") == "parking" for la in r.iter("lane"))]
    assert len(parked) == 3
    walks = 0
    for road in parked:
        assert float(road.get("length")) == pytest.approx(82.0)
        lanes = {int(la.get("id")): la for la in road.iter("lane")}
        assert {k: lanes[k].get("type") for k in (-3, -2, -1, 1, 2, 3)} == {
            -3: "sidewalk",
            -2: "parking",
            -1: "driving",
            1: "driving",
            2: "parking",
            3: "sidewalk",
        }
        for side in (-2, 2):
            widths = [
                float(w.get(k))
                for w in lanes[side].findall("width")
                for k in ("sOffset", "a", "b", "c", "d")
            ]
            records = [  # (sOffset, a, b, c, d)
                (0, 0, 0, 0, 0),
                (8, 0, 0, 0.3, -0.04),
                (13, 2.5, 0, 0, 0),
                (69, 2.5, 0, -0.3, 0.04),
                (74, 0, 0, 0, 0),
            ]
            assert widths == pytest.approx([v for record in records for v in record])
            assert float(lanes[3 if side > 0 else -3].find("width").get("a")) == 2.0
        # the corner sidewalks (lane -2 of the outermost right turns) continue the sidewalks
        for junction in root.findall("junction"):
            for connection in junction.findall("connection"):
                if connection.get("incomingRoad") != road.get("id"):
                    continue
                connecting = roads[connection.get("connectingRoad")]
                for link in connection.findall("laneLink"):
                    kind = {int(la.get("id")): la.get("type") for la in connecting.iter("lane")}[
                        int(link.get("to"))
                    ]
                    assert abs(int(link.get("from"))) == (3 if kind == "sidewalk" else 1)
                    walks += kind == "sidewalk"
    assert walks > 0
    # the header's bounds reach past the parking lanes of the outer streets that have them
    header = root.find("header")
    assert (header.get("north"), header.get("east")) == ("208", "208")  # 200 + 3.5 + 2.5 + 2
    assert (header.get("south"), header.get("west")) == ("-5.5", "-5.5")
