"""Lane enums carry CARLA's values (LibCarla road/Lane.h, road/element/LaneMarking.h)."""

from __future__ import annotations

from world import LaneChange, LaneMarkingColor, LaneMarkingType, LaneType
from world.map.lane_enums import lane_change_from_odr, lane_type_from_odr, marking_type_from_odr


def test_lane_type_bits_are_carlas():
    assert (LaneType.NONE, LaneType.Driving, LaneType.Sidewalk) == (1, 2, 32)
    assert (LaneType.OnRamp, LaneType.Any) == (1 << 20, -2)
    assert LaneType.Driving & LaneType.Any and not LaneType.NONE & LaneType.Any
    assert str(LaneType.Driving) == "Driving" and str(LaneType.NONE) == "NONE"


def test_marking_enums_and_lane_change():
    assert (LaneMarkingType.Other, LaneMarkingType.Curb, LaneMarkingType.NONE) == (0, 9, 10)
    assert LaneMarkingColor.White is LaneMarkingColor.Standard and LaneMarkingColor.Yellow == 4
    assert LaneChange.Right | LaneChange.Left == LaneChange.Both and str(LaneChange.Both) == "Both"


def test_opendrive_strings():
    assert lane_type_from_odr("Driving") == LaneType.Driving
    assert lane_type_from_odr("offRamp") == LaneType.OffRamp
    assert lane_type_from_odr("curb") == LaneType.NONE  # unknown types are NONE, as CARLA
    assert marking_type_from_odr("solid broken") == LaneMarkingType.SolidBroken
    assert marking_type_from_odr("zigzag") == LaneMarkingType.Other
    # OpenDRIVE's "increase" (toward higher ids) is CARLA's Right before direction fixes.
    assert lane_change_from_odr("increase") == LaneChange.Right
    assert lane_change_from_odr(None) == LaneChange.NONE
