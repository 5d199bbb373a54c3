"""The OpenDRIVE writer: what it writes reads back as the same document."""

from __future__ import annotations

import pytest

from world.map.opendrive import load_opendrive, parse_opendrive
from world.map.opendrive.writer import num, write_opendrive
from world.map.towngen import TOWN_PRESETS, TownSpec, build_town, render_town


def test_numbers_are_shortest_round_trip_text():
    assert num(82.0) == "82"
    assert num(-0.0) == "0"
    assert num(0.1 + 0.2) == "0.30000000000000004"
    assert num(1.5e-05) == "1.5e-05"


def test_shared_maps_survive_a_write_and_read(shared):
    paths = sorted((shared / "maps").glob("*/*.xodr"))
    assert len(paths) == 14  # 4 CARLA towns and 10 esmini maps (../shared/maps/README.md)
    for path in paths:
        original = load_opendrive(path)
        again = parse_opendrive(write_opendrive(original), source=original.source)
        assert again == original, path.name


@pytest.mark.parametrize(
    "spec", [*TOWN_PRESETS.values(), TownSpec(seed=2, lanes=(1, 3), curves=True, hills=True)]
)
def test_towns_read_back_as_the_document_that_was_built(spec):
    built = build_town(spec)
    read = parse_opendrive(render_town(spec))
    read.source = built.source
    assert read == built
