"""Bad map input refused in one clear line: numbers out of range, dangling links, non-files.

Each case of issue 10's "Bad input" list that concerns maps: `length="nan"`/`"inf"`,
`length="1e13"` (no huge allocation), a negative length, `hdg="nan"`, links to a road or
junction that does not exist, `map info /dev/zero` (and a directory, a pipe, a huge
file), long values quoted short. Every error names the file, the line, the element with
its id and what was expected; the lines below are counted by hand in the documents.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from runner.cli import main
from world.errors import LockstepError, MapError
from world.map.map import Map
from world.map.opendrive import OpenDriveError, load_opendrive, parse_opendrive
from world.map.opendrive.limits import MAX_FILE_BYTES

SOURCE = "maps/bad.xodr"

# Line 1: <?xml, 2: <OpenDRIVE>, 3: <header/>, 4: <road ...>, 5: <link>, 6: <planView>,
# 7: <geometry>, 8: </planView>, 9: <lanes><laneSection>, 10: <right><lane>, 11: <width>,
# 12: </lane>..</road>, then TAIL (from line 13).
DOC = """<?xml version="1.0"?>
<OpenDRIVE>
<header revMajor="1" revMinor="4" name="bad"/>
<road id="7" length="{length}" junction="{junction}">
<link>{link}</link>
<planView>
<geometry s="{s}" x="0" y="0" hdg="{hdg}" length="{geometry_length}">{shape}</geometry>
</planView>
<lanes><laneSection s="0">
<right><lane id="-1" type="driving">
<width sOffset="0" a="3.5" b="0" c="0" d="0"/>
</lane></right></laneSection></lanes></road>
{tail}
</OpenDRIVE>
"""
FIELDS = {
    "length": "100",
    "junction": "-1",
    "link": "",
    "s": "0",
    "hdg": "0",
    "geometry_length": "100",
    "shape": "<line/>",
    "tail": "",
}


def text(**changes: str) -> str:
    return DOC.format(**{**FIELDS, **changes})


def refused(document: str) -> OpenDriveError:
    with pytest.raises(OpenDriveError) as info:
        parse_opendrive(document, source=SOURCE)
    assert isinstance(info.value, MapError) and isinstance(info.value, LockstepError)
    return info.value


def test_the_template_itself_reads() -> None:
    road = parse_opendrive(text(), source=SOURCE).roads["7"]
    assert (road.length, road.geometries[0].length) == (100.0, 100.0)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e400"])
def test_road_length_not_finite(value: str) -> None:
    err = refused(text(length=value))
    assert str(err) == (
        f"{SOURCE}:4: <road id='7'>: attribute 'length': expected a finite number of "
        f"magnitude at most 1e+08, found {value!r}"
    )


def test_length_1e13_is_refused_without_allocating() -> None:
    tracemalloc.start()
    try:
        err = refused(text(length="1e13", geometry_length="1e13"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (err.line, err.element, err.element_id) == (4, "road", "7")
    assert "found '1e13'" in str(err)
    assert peak < 16 * 2**20  # the document is a few hundred bytes; nothing is sampled
    # Within the magnitude bound but beyond a road's: 2e6 m > MAX_LENGTH (1e6 m).
    err = refused(text(length="2e6"))
    assert "attribute 'length': expected a length of 1e-06 .. 1e+06 m, found 2000000.0" in str(err)


@pytest.mark.parametrize("value", ["-1", "0", "-0.5"])
def test_length_not_positive(value: str) -> None:
    err = refused(text(length=value))
    assert (err.line, err.element, err.element_id) == (4, "road", "7")
    assert f"expected a length of 1e-06 .. 1e+06 m, found {float(value)!r}" in str(err)
    err = refused(text(geometry_length=value))
    if value == "0":  # a geometry shorter than 1e-6 m is dropped: this road has none left
        assert str(err) == f"{SOURCE}:4: <road id='7'>: road has no <planView>/<geometry>"
        return
    assert str(err) == (
        f"{SOURCE}:7: <geometry> in <road id='7'>: attribute 'length': expected a length "
        f"of 0 .. 1e+06 m, found {float(value)!r}"
    )


def test_heading_nan() -> None:
    err = refused(text(hdg="nan"))
    assert str(err) == (
        f"{SOURCE}:7: <geometry> in <road id='7'>: attribute 'hdg': expected a finite "
        "number of magnitude at most 1e+08, found 'nan'"
    )


@pytest.mark.parametrize(
    ("shape", "element", "attribute"),
    [
        ('<arc curvature="nan"/>', "arc", "curvature"),
        ('<spiral curvStart="0" curvEnd="inf"/>', "spiral", "curvEnd"),
        ('<poly3 a="0" b="0" c="nan" d="0"/>', "poly3", "c"),
        ('<paramPoly3 aU="0" bU="1" cU="0" dU="-inf"/>', "paramPoly3", "dU"),
    ],
)
def test_geometry_coefficients_not_finite(shape: str, element: str, attribute: str) -> None:
    err = refused(text(shape=shape))
    assert (err.line, err.element) == (7, element)
    assert err.within == ("road id='7'",) and f"attribute '{attribute}'" in str(err)


def test_width_coefficient_not_finite() -> None:
    document = text().replace('a="3.5" b="0"', 'a="3.5" b="nan"')
    err = refused(document)
    assert (err.line, err.element, err.within) == (11, "width", ("lane id='-1'", "road id='7'"))
    assert str(err).startswith(f"{SOURCE}:11: <width> in <lane id='-1'> in <road id='7'>: ")
    assert "attribute 'b'" in str(err)


def test_s_outside_its_road_is_clamped_into_it() -> None:
    # A geometry starting past the road's 100 m, and one before it (beyond the 1 cm slack):
    # clamped to the road's end and start, as CARLA takes an s, and said once.
    for value, clamped, amount in (("250", 100.0, "150"), ("-1", 0.0, "1")):
        document = parse_opendrive(text(s=value), source=SOURCE)
        assert document.roads["7"].geometries[0].s == clamped
        assert document.repairs == [
            f"1 <geometry> with an s outside its road (up to {amount} m): clamped into the "
            "road, where CARLA places them"
        ]
    within = parse_opendrive(text(s="0.005"), source=SOURCE)
    assert within.roads["7"].geometries[0].s == 0.005 and within.repairs == []
    err = refused(text(s="nan"))
    assert "attribute 's': expected a finite number" in str(err)


def test_spiral_turning_too_far() -> None:
    # curvature 0 -> 4 1/m over 100 m: the heading turns 0.5 * 4 * 100 = 200 rad > 100.
    err = refused(text(shape='<spiral curvStart="0" curvEnd="4"/>'))
    assert (err.line, err.element) == (7, "geometry")
    assert "spiral: expected a turn of at most 100 rad over its 100 m, found 200 rad" in str(err)
    # 0 -> 1 1/m: 50 rad, accepted.
    parse_opendrive(text(shape='<spiral curvStart="0" curvEnd="1"/>'), source=SOURCE)


def test_lane_id_beyond_an_int32() -> None:
    err = refused(text().replace('lane id="-1"', 'lane id="-99999999999"'))
    assert (err.line, err.element) == (10, "lane")
    assert "expected an integer of magnitude at most 2147483647" in str(err)


def test_link_to_a_missing_road() -> None:
    link = '<successor elementType="road" elementId="8" contactPoint="start"/>'
    err = refused(text(link=link))
    assert str(err) == (
        f"{SOURCE}:5: <successor> in <road id='7'>: attribute 'elementId': expected the id "
        "of a <road> of the file, found '8'"
    )


def test_link_to_a_missing_junction() -> None:
    err = refused(text(link='<predecessor elementType="junction" elementId="100"/>'))
    assert (err.line, err.element, err.within) == (5, "predecessor", ("road id='7'",))
    assert "expected the id of a <junction> of the file, found '100'" in str(err)
    err = refused(text(junction="100"))
    assert str(err) == (
        f"{SOURCE}:4: <road id='7'>: attribute 'junction': expected the id of a <junction> "
        "of the file, found '100'"
    )


def test_junction_connection_to_a_missing_road() -> None:
    tail = (
        '<junction id="100">\n'
        '<connection id="0" incomingRoad="7" connectingRoad="55" contactPoint="start"/>\n'
        "</junction>"
    )
    err = refused(text(tail=tail))
    assert str(err) == (
        f"{SOURCE}:14: <connection id='0'> in <junction id='100'>: attribute "
        "'connectingRoad': expected the id of a <road> of the file, found '55'"
    )


def test_existing_links_read() -> None:
    tail = '<junction id="100">\n<connection id="0" incomingRoad="7" connectingRoad="7"/>\n'
    tail += "</junction>"
    link = '<successor elementType="junction" elementId="100"/>'
    doc = parse_opendrive(text(link=link, tail=tail), source=SOURCE)
    assert doc.roads["7"].successor.element_id == "100" and list(doc.junctions) == ["100"]


def test_long_values_are_quoted_short() -> None:
    garbage = "x" * 48_000
    err = refused(text(hdg=garbage))
    assert len(str(err)) < 200 and "(+47960 chars)" in str(err)
    assert str(err).endswith(f"found {'x' * 40!r} (+47960 chars)")


# ---- files: only regular ones, at most MAX_FILE_BYTES ----------------------------------------


def test_map_info_dev_zero_exits_2(capsys) -> None:
    assert main(["map", "info", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "lockstep: error: /dev/zero: expected a regular OpenDRIVE file, found a character device"
    )


def test_map_info_directory_and_pipe_exit_2(tmp_path, capsys) -> None:
    assert main(["map", "info", str(tmp_path)]) == 2
    assert "found a directory" in capsys.readouterr().err
    pipe = tmp_path / "pipe.xodr"
    os.mkfifo(pipe)
    assert main(["map", "info", str(pipe)]) == 2  # never opened: opening would block
    assert "found a pipe" in capsys.readouterr().err


def test_huge_file_refused_before_reading(tmp_path, capsys) -> None:
    huge = tmp_path / "huge.xodr"
    with open(huge, "wb") as handle:  # sparse: no disk is used
        handle.truncate(MAX_FILE_BYTES + 1)
    tracemalloc.start()
    try:
        assert main(["map", "info", str(huge)]) == 2
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"expected at most {MAX_FILE_BYTES} bytes (512 MiB), found {MAX_FILE_BYTES + 1}" in (
        capsys.readouterr().err
    )
    assert peak < 16 * 2**20


def test_map_from_file_refuses_non_files(tmp_path) -> None:
    for path, found in (("/dev/zero", "a character device"), (str(tmp_path), "a directory")):
        with pytest.raises(MapError, match=f"expected a regular OpenDRIVE file, found {found}"):
            Map.from_file(path)
    with pytest.raises(OpenDriveError, match="found a character device"):
        load_opendrive("/dev/zero")


def test_map_from_file_not_utf8(tmp_path) -> None:
    path = tmp_path / "latin.xodr"
    path.write_bytes(text().replace('name="bad"', 'name="b\xe4d"').encode("latin-1"))
    with pytest.raises(MapError) as info:
        Map.from_file(path)
    assert str(info.value).startswith(f"{path}:3: expected UTF-8 text, found byte 0xe4")


def test_map_info_bad_number_exits_2(tmp_path, capsys) -> None:
    path = tmp_path / "nan.xodr"
    path.write_text(text(length="nan"))
    assert main(["map", "info", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"lockstep: error: {path}:4: <road id='7'>: attribute 'length': expected a finite "
        "number of magnitude at most 1e+08, found 'nan'"
    )


# ---- no false rejections: every real map reads ------------------------------------------------


def _real_maps(shared: Path) -> list[Path]:
    repo = Path(__file__).resolve().parent.parent
    found = sorted((shared / "maps").glob("*/*.xodr")) + sorted((repo / "configs/maps").glob("*"))
    return found + sorted((repo / "tests/maps").glob("*.xodr"))


def test_every_real_map_reads(shared) -> None:
    paths = _real_maps(shared)
    names = {p.name for p in paths}
    # The CARLA towns, esmini's maps and lockstep's own are all there.
    assert {"Town01.xodr", "Town04.xodr", "Town10HD.xodr", "fabriksgatan.xodr"} <= names
    assert {"town_small.xodr", "town_medium.xodr", "tjunction.xodr"} <= names
    for path in paths:
        doc = load_opendrive(path)
        assert doc.roads, path


def test_entity_expansion_is_refused() -> None:
    # Eight levels of ten-fold entities would expand to 1e9 bytes; expat's amplification
    # limit refuses the document as not well-formed, on line 1.
    levels = ['<!ENTITY a "aaaaaaaaaa">']
    for lower, upper in zip("abcdefg", "bcdefgh", strict=True):
        levels.append(f'<!ENTITY {upper} "{("&" + lower + ";") * 10}">')
    bomb = f'<!DOCTYPE OpenDRIVE [{"".join(levels)}]><OpenDRIVE><header name="&h;"/></OpenDRIVE>'
    err = refused(bomb)
    assert err.line == 1 and "not well-formed XML" in str(err)
