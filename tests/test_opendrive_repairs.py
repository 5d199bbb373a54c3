"""Real CARLA towns load: every public town in ../shared/maps as it is, and the sloppiness
other exported towns hold (a planView geometry of 9.4e-7 m, a signalReference 0.9 m past
its road's end) repaired as CARLA's reader takes it, each kind said once with a count;
NaN, infinities and absurd sizes are still refused."""

from __future__ import annotations

import pytest

from world.errors import MapError
from world.map.map import Map
from world.map.opendrive.parser import parse_opendrive

TOWNS = ("Town01", "Town02", "Town04", "Town10HD")
# Town01's road 0: one line geometry over its whole 36.36 m
ROAD_0_GEOMETRY = (
    '<geometry s="0.0000000000000000e+0" x="3.8458999633789063e+2" y="-1.9999999552965164e-2" '
    'hdg="3.1410614169049995e+0" length="3.6360000000000007e+1">\n                <line/>\n'
    "            </geometry>"
)
# road 27 (18.672762813500928 m long) refers to signal 360 at its very end
SIGNAL_360 = '<signalReference id="360" s="1.8672762813500928e+1"'


@pytest.fixture(scope="module")
def town01(shared) -> str:
    return (shared / "maps" / "carla" / "Town01.xodr").read_text(encoding="utf-8")


@pytest.mark.parametrize("town", TOWNS)
def test_carla_s_public_towns_load_with_nothing_to_repair(shared, town):
    document = parse_opendrive((shared / "maps" / "carla" / f"{town}.xodr").read_bytes(), town)
    assert document.repairs == []
    assert document.roads


def _sloppy(town01: str) -> str:
    """Town01 with two tiny geometries after road 0's (as exporters leave them) and signal
    360's reference 0.9 m past road 27's end."""
    assert town01.count(ROAD_0_GEOMETRY) == 1 and town01.count(SIGNAL_360) == 1
    tiny = (
        '\n            <geometry s="3.6360000000000007e+1" x="3.4823e+2" y="0.0" hdg="3.14" '
        'length="{length}"><line/></geometry>'
    )
    text = town01.replace(
        ROAD_0_GEOMETRY,
        ROAD_0_GEOMETRY + tiny.format(length="9.4e-7") + tiny.format(length="0.0"),
    )
    past = 18.672762813500928 + 0.9
    return text.replace(SIGNAL_360, f'<signalReference id="360" s="{past!r}"')


def test_a_user_s_sloppy_town_loads_repaired_with_one_line_per_kind(town01):
    document = parse_opendrive(_sloppy(town01), "Town05.xodr")
    assert document.repairs == [
        "2 <geometry> shorter than 1e-06 m (the longest 9.4e-07 m): dropped, the road's "
        "neighbouring geometries cover their stretch of s",
        "1 <signalReference> with an s outside its road (up to 0.9 m): clamped into the road, "
        "where CARLA places them",
    ]
    road_0 = document.roads["0"]
    assert [(g.s, g.length) for g in road_0.geometries] == [(0.0, 36.360000000000007)]
    (reference,) = [r for r in document.roads["27"].signal_references if r.id == "360"]
    assert reference.s == 18.672762813500928  # the road's end, as CARLA clamps it
    clean = parse_opendrive(town01, "Town01.xodr")
    assert document.roads["0"].geometries == clean.roads["0"].geometries


def test_the_map_says_what_it_repaired(town01, tmp_path):
    path = tmp_path / "Town05.xodr"
    path.write_text(_sloppy(town01), encoding="utf-8")
    world_map = Map.from_file(path)
    assert len(world_map.warnings) == 2
    assert world_map.warnings[1].startswith("1 <signalReference> with an s outside its road")


@pytest.mark.parametrize(
    ("length", "found"),
    [
        ("nan", "found 'nan'"),
        ("inf", "found 'inf'"),
        ("-1.0", "expected a length of 0 .. 1e+06 m, found -1.0"),
        ("5e6", "expected a length of 0 .. 1e+06 m, found 5000000.0"),
    ],
)
def test_nan_infinities_and_absurd_sizes_are_still_refused(town01, length, found):
    text = town01.replace(
        ROAD_0_GEOMETRY, ROAD_0_GEOMETRY.replace("3.6360000000000007e+1", length, 1)
    )
    with pytest.raises(MapError) as err:
        parse_opendrive(text, "Town01.xodr")
    assert "<geometry> in <road id='0'>: attribute 'length'" in str(err.value)
    assert found in str(err.value)
