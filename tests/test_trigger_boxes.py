"""Trigger-box centres by the seed's offset-direction rules, and the containment test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from world.geometry import Location, Rotation, Transform, Vector3D
from world.trigger_boxes import OrientedBoxes, TriggerBox, lane_travels_with_s, trigger_s


def test_left_hand_lane_one_box_centre_is_three_metres_back():
    # Seed: at s = 50 on left-hand lane 1 the light box centre is s = 47 (lane 1 under
    # left-hand traffic drives with increasing s, so the offset subtracts).
    assert trigger_s(50.0, 1, True, 0.0, 100.0, 3.0) == 47.0


@pytest.mark.parametrize(
    ("lane", "left_hand", "expected"),
    [(-1, False, 47.0), (1, False, 53.0), (1, True, 47.0), (-2, True, 53.0)],
)
def test_direction_by_lane_sign_and_rule(lane, left_hand, expected):
    assert trigger_s(50.0, lane, left_hand, 0.0, 100.0, 3.0) == expected
    assert lane_travels_with_s(lane, left_hand) == (expected < 50.0)


def test_centre_stays_inside_its_section():
    # 3 m back from s = 11 on a section [10, 20] would be 8: clamped to 10 + 1e-5.
    assert trigger_s(11.0, -1, False, 10.0, 20.0, 3.0) == 10.0 + 1e-5
    assert trigger_s(19.0, 1, False, 10.0, 20.0, 3.0) == 20.0 - 1e-5
    # A section shorter than 2e-5 m uses its midpoint.
    assert trigger_s(5.0, -1, False, 5.0, 5.00001, 3.0) == pytest.approx(5.000005, abs=1e-12)


def test_oriented_box_containment():
    # A box at (10, 5, 0) turned 90 deg (its forward is +y), half-extents 1.5 x 0.5 x 1.
    # In the world it spans x 9.5..10.5, y 3.5..6.5, z -1..1.
    box = TriggerBox(Transform(Location(10, 5, 0), Rotation(yaw=90)), Vector3D(1.5, 0.5, 1), 0, 0)
    other = TriggerBox(Transform(Location(0, 0, 0), Rotation(yaw=45)), Vector3D(1, 1, 1), 1, 0)
    boxes = OrientedBoxes([box, other])
    pts = np.array(
        [
            [10.0, 6.4, 0.0],  # in the first
            [10.6, 5.0, 0.0],  # beside it (x past 10.5)
            [10.0, 5.0, 1.2],  # above it
            [1.3, 0.0, 0.0],  # in the second: 1.3 along x is (0.919, -0.919) in its frame
            [1.5, 0.0, 0.0],  # out of it: (1.06, -1.06)
        ]
    )
    inside = boxes.contains(pts)
    assert inside.tolist() == [
        [True, False],
        [False, False],
        [False, False],
        [False, True],
        [False, False],
    ]
    assert 1.3 / math.sqrt(2) < 1.0 < 1.5 / math.sqrt(2)


def test_no_boxes_or_points():
    assert OrientedBoxes([]).contains(np.zeros((3, 3))).shape == (3, 0)
