"""CARLA's geometry conventions, worked by hand."""

import math

import pytest

from world import BoundingBox, Location, Rotation, Transform, Vector3D


def test_forward_vector_yaw_90_points_to_plus_y():
    f = Rotation(yaw=90.0).get_forward_vector()
    assert f.x == pytest.approx(0.0, abs=1e-12)
    assert f.y == pytest.approx(1.0)


def test_right_vector_at_zero_is_plus_y_and_up_is_plus_z():
    r = Rotation().get_right_vector()
    u = Rotation().get_up_vector()
    assert (r.x, r.y, r.z) == (0.0, 1.0, -0.0)
    assert (u.x, u.y, u.z) == (-0.0, 0.0, 1.0)


def test_pitch_up_lifts_forward():
    f = Rotation(pitch=30.0).get_forward_vector()
    assert f.z == pytest.approx(0.5)
    assert f.x == pytest.approx(math.sqrt(3) / 2)


def test_transform_and_inverse_round_trip():
    t = Transform(Location(10.0, -5.0, 1.0), Rotation(pitch=10.0, yaw=-30.0, roll=5.0))
    p = Location(1.0, 2.0, 3.0)
    w = t.transform(Location(p.x, p.y, p.z))
    back = t.inverse_transform(w)
    assert back.x == pytest.approx(1.0)
    assert back.y == pytest.approx(2.0)
    assert back.z == pytest.approx(3.0)


def test_transform_yaw_90_moves_forward_to_plus_y():
    t = Transform(Location(1.0, 1.0, 0.0), Rotation(yaw=90.0))
    w = t.transform(Location(2.0, 0.0, 0.0))
    assert (w.x, w.y) == (pytest.approx(1.0), pytest.approx(3.0))


def test_world_vertices_in_carla_order():
    box = BoundingBox(Location(0, 0, 0), Vector3D(2.0, 1.0, 0.5))
    v = box.get_world_vertices(Transform(Location(10, 0, 0)))
    assert [(p.x, p.y, p.z) for p in v[:3]] == [
        (8.0, -1.0, -0.5),
        (8.0, -1.0, 0.5),
        (8.0, 1.0, -0.5),
    ]
    assert (v[7].x, v[7].y, v[7].z) == (12.0, 1.0, 0.5)


def test_box_contains():
    box = BoundingBox(Location(0, 0, 1), Vector3D(2.0, 1.0, 1.0))
    t = Transform(Location(5, 5, 0), Rotation(yaw=90.0))
    assert box.contains(Location(5.5, 6.5, 1.0), t)
    assert not box.contains(Location(6.5, 5.0, 1.0), t)


def test_location_arithmetic_keeps_type():
    a = Location(1, 2, 3) + Location(1, 1, 1)
    assert isinstance(a, Location)
    assert a.distance(Location(2, 3, 4)) == 0.0
