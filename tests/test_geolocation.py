"""The map origin from a geoReference string, by CARLA 0.9.x's GeoReferenceParser rules.

CARLA splits the string at spaces, keeps `+key=value` items with exactly one '=', reads
`+lat_0` and `+lon_0` with std::stod, and falls back to (42.0, 2.0) for both when either is
missing or NaN.
"""

import pytest

from world.map.geolocation import geo_origin
from world.map.opendrive import OpenDriveError, parse_opendrive
from world.map.opendrive.parser import geo_reference_origin


def test_both_given():
    g = geo_origin("+proj=tmerc +lat_0=49.0193 +lon_0=8.41 +k=1")
    assert (g.latitude, g.longitude, g.altitude) == (49.0193, 8.41, 0.0)


def test_one_missing_gives_the_default_for_both():
    g = geo_origin("+proj=tmerc +lat_0=49.0")
    assert (g.latitude, g.longitude) == (42.0, 2.0)
    g = geo_origin("+lon_0=8")
    assert (g.latitude, g.longitude) == (42.0, 2.0)
    assert (geo_origin(None).latitude, geo_origin("").longitude) == (42.0, 2.0)


def test_nan_counts_as_missing():
    g = geo_origin("+lat_0=nan +lon_0=8")
    assert (g.latitude, g.longitude) == (42.0, 2.0)


def test_items_are_split_at_spaces_with_one_equals_sign():
    # "+lat_0=1=2" has two '=' and is skipped; "+lat_0=3" later in the string counts.
    assert geo_reference_origin("+lat_0=1=2 +lat_0=3 +lon_0=-4.5") == (3.0, -4.5)
    assert geo_reference_origin("+proj=utm +zone=32") == (None, None)


def test_a_value_that_is_not_a_number_is_an_error_naming_it():
    text = (
        '<OpenDRIVE>\n<header revMajor="1" revMinor="4">\n'
        "<geoReference>+lat_0=north +lon_0=2</geoReference>\n</header>\n</OpenDRIVE>"
    )
    with pytest.raises(OpenDriveError) as info:
        parse_opendrive(text, source="m.xodr")
    assert str(info.value) == "m.xodr:3: <geoReference>: +lat_0: expected a number, found 'north'"
