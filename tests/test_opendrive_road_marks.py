"""A roadMark's <type><line> records: read, kept in the model, written back."""

from __future__ import annotations

import pytest

from world.map.opendrive import OpenDriveError, RoadMarkLine, parse_opendrive, write_opendrive

ROAD = """<?xml version="1.0" encoding="UTF-8"?>
<OpenDRIVE>
    <header revMajor="1" revMinor="4" name="marks"/>
    <road id="1" length="40.0" junction="-1">
        <planView><geometry s="0" x="0" y="0" hdg="0" length="40.0"><line/></geometry></planView>
        <lanes>
            <laneSection s="0">
                <center>
                    <lane id="0" type="none">
                        <roadMark sOffset="0" type="solid solid" color="yellow" width="0.1"/>
                    </lane>
                </center>
                <right>
                    <lane id="-1" type="driving">
                        <width sOffset="0" a="3.5" b="0" c="0" d="0"/>
                        <roadMark sOffset="0" type="broken" color="white" width="0.15">
                            <type name="broken" width="0.15">
                                <line length="3" space="9" tOffset="0" sOffset="1"
                                      rule="caution" width="0.15"/>
                            </type>
                        </roadMark>
                    </lane>
                    <lane id="-2" type="sidewalk">
                        <width sOffset="0" a="2" b="0" c="0" d="0"/>
                    </lane>
                </right>
            </laneSection>
        </lanes>
    </road>
</OpenDRIVE>
"""


def test_type_lines_are_read_and_written_back():
    doc = parse_opendrive(ROAD)
    mark = doc.roads["1"].lane_sections[0].lanes[-1].road_marks[0]
    assert mark.lines == [RoadMarkLine(3.0, 9.0, 0.0, 1.0, 0.15, "caution")]
    again = parse_opendrive(write_opendrive(doc))
    assert again.roads["1"].lane_sections[0].lanes[-1].road_marks[0].lines == mark.lines
    assert doc.roads["1"].lane_sections[0].lanes[0].road_marks[0].lines == []


def test_a_negative_line_length_is_refused_naming_the_element():
    bad = ROAD.replace('length="3" space="9"', 'length="-3" space="9"')
    with pytest.raises(OpenDriveError, match=r"line.*'length': expected metres >= 0"):
        parse_opendrive(bad, source="marks.xodr")
