"""Enum text is the bare member name, as CARLA's client code compares names."""

from world.enums import CarlaEnum, CarlaFlag


class _Change(CarlaEnum):
    NONE = 0
    Both = 3


class _Kind(CarlaFlag):
    Driving = 2
    Sidewalk = 32


def test_enum_str_is_bare_name():
    assert str(_Change.Both) == "Both"
    assert _Change.Both == 3


def test_flag_str_is_bare_name_and_combines():
    assert str(_Kind.Driving) == "Driving"
    assert int(_Kind.Driving | _Kind.Sidewalk) == 34
