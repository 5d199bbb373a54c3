"""Trigger-box centres by the seed's offset-direction rules, and the box-overlap test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from world.geometry import Location, Rotation, Transform, Vector3D, rotation_matrices
from world.traffic.signals.trigger_boxes import (
    OrientedBoxes,
    TriggerBox,
    lane_travels_with_s,
    trigger_s,
)


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


def overlap_table(boxes: OrientedBoxes, rows: np.ndarray, *columns) -> np.ndarray:
    """`boxes.overlapping`'s pairs as an (N, B) table; the pairs come sorted, each once."""
    n, b = boxes.overlapping(rows, *columns)
    keys = n * len(boxes) + b
    assert (np.diff(keys) > 0).all()
    table = np.zeros((len(rows), len(boxes)), dtype=bool)
    table[n, b] = True
    return table


def actor_boxes(boxes: OrientedBoxes, *actors) -> np.ndarray:
    """The overlap table for actors given as (pos, (pitch, yaw, roll), box_loc, extent)."""
    pos, rot, loc, ext = (np.array([a[k] for a in actors], dtype=np.float64) for k in range(4))
    return overlap_table(
        boxes, np.arange(len(actors)), pos, rot, loc, ext, np.ones(len(actors), bool)
    )


def point(x, y, z):
    """An actor box of zero size at (x, y, z): overlapping is then containment."""
    return (x, y, z), (0, 0, 0), (0, 0, 0), (0, 0, 0)


def test_points_are_contained_borders_included():
    # A box at (10, 5, 0) turned 90 deg (its forward is +y), half-extents 1.5 x 0.5 x 1.
    # In the world it spans x 9.5..10.5, y 3.5..6.5, z -1..1.
    box = TriggerBox(Transform(Location(10, 5, 0), Rotation(yaw=90)), Vector3D(1.5, 0.5, 1), 0, 0)
    other = TriggerBox(Transform(Location(0, 0, 0), Rotation(yaw=45)), Vector3D(1, 1, 1), 1, 0)
    boxes = OrientedBoxes([box, other])
    inside = actor_boxes(
        boxes,
        point(10.0, 6.4, 0.0),  # in the first
        point(10.6, 5.0, 0.0),  # beside it (x past 10.5)
        point(10.0, 5.0, 1.2),  # above it
        point(1.3, 0.0, 0.0),  # in the second: 1.3 along x is (0.919, -0.919) in its frame
        point(1.5, 0.0, 0.0),  # out of it: (1.06, -1.06)
        point(10.0, 5.0, 1.0),  # on the first's top face: touching counts
    )
    assert inside.tolist() == [
        [True, False],
        [False, False],
        [False, False],
        [False, True],
        [False, False],
        [True, False],
    ]
    assert 1.3 / math.sqrt(2) < 1.0 < 1.5 / math.sqrt(2)


# A light box like CARLA's on a 3.5 m lane: 3 m long, half the lane wide, 2 m high, at the
# origin along +x; and a car 4.8 m x 2 m x 1.5 m standing on its origin (box centre 0.75 m up),
# the seed's car box.
LANE_BOX = TriggerBox(Transform(Location(0, 0, 0), Rotation()), Vector3D(1.5, 0.875, 1.0), 0, 0)
CAR_EXTENT, CAR_CENTRE = (2.4, 1.0, 0.75), (0.0, 0.0, 0.75)


def car(x, y, yaw, centre=CAR_CENTRE):
    return (x, y, 0.0), (0.0, yaw, 0.0), centre, CAR_EXTENT


def test_a_car_whose_origin_is_outside_but_whose_front_is_in():
    # Origin 2 m behind the box's back face (x = -1.5): at x = -3.5, the front at -3.5 + 2.4 =
    # -1.1 is 0.4 m into the box. Origin 4 m behind: the front at -3.1 is 1.6 m short of it.
    # z: the car spans 0..1.5, the box -1..1. The origin alone (-3.5, 0, 0) is outside.
    boxes = OrientedBoxes([LANE_BOX])
    inside = actor_boxes(boxes, car(-3.5, 0.0, 0.0), car(-5.5, 0.0, 0.0), point(-3.5, 0, 0))
    assert inside[:, 0].tolist() == [True, False, False]


def test_a_car_turned_90_degrees_beside_a_box():
    # Yaw 90: the car's length lies along y and its width along x, so it spans x +-1 and
    # y +-2.4 about its origin. The box spans x +-1.5, y +-0.875.
    # (2.4, 0): x 1.4..3.4, 0.1 m into the box; (2.6, 0): x 1.6..3.6, 0.1 m clear of it,
    # although the same car along x there (yaw 0, x 0.2..5.0) would be in.
    # (0, 3.2): y 0.8..5.6, 0.075 m in; (0, 3.3): y 0.9..5.7, 0.025 m clear.
    # The box centre turns with the car: 1 m ahead of the origin is +y at yaw 90 (centre
    # y = 4.2 + 1 = 5.2, spanning 2.8..7.6: clear) and -y at yaw -90 (3.2: in).
    boxes = OrientedBoxes([LANE_BOX])
    inside = actor_boxes(
        boxes,
        car(2.4, 0.0, 90.0),
        car(2.6, 0.0, 90.0),
        car(2.6, 0.0, 0.0),
        car(0.0, 3.2, 90.0),
        car(0.0, 3.3, 90.0),
        car(0.0, 4.2, 90.0, centre=(1.0, 0.0, 0.75)),
        car(0.0, 4.2, -90.0, centre=(1.0, 0.0, 0.75)),
    )
    assert inside[:, 0].tolist() == [True, False, True, True, False, False, True]


def test_faces_touching_count_as_overlap():
    # Half-lengths 1.5 and 2.5, centres 4 m apart along x: the faces meet at x = 1.5.
    boxes = OrientedBoxes([LANE_BOX])
    flat = ((0.0, 0.0, 0.0), (2.5, 1.0, 0.75))
    inside = actor_boxes(
        boxes, ((4.0, 0.0, 0.0), (0, 0, 0), *flat), ((4.0 + 1e-9, 0.0, 0.0), (0, 0, 0), *flat)
    )
    assert inside[:, 0].tolist() == [True, False]


def test_separation_along_an_edge_cross_axis_only():
    # Two sticks 20 m long, 0.2 m square, each rolled 45 deg about its length: A along x at the
    # origin, B along y (yaw 90) h metres above. With c = s = sqrt(1/2), A's axes are x,
    # (0, c, -s), (0, s, c); B's are y, (-c, 0, -s), (-s, 0, c).
    # The 6 face normals never separate them: along x and y the centres are 0 apart; along
    # A's two tilted normals the offset is h*s or h*c (< 0.5 for h < 0.7) against a reach of
    # more than 10 * c = 7.07 (B's length seen obliquely), and the same for B's.
    # The cross axis z = x (A's length) x y (B's length) does: the centres are h apart and
    # each stick reaches 0.1 * (s + c) = 0.1414 up or down, 0.2828 together. So h = 0.35 is
    # apart (a faces-only test would call it an overlap), h = 0.2 overlaps.
    stick = TriggerBox(Transform(Location(), Rotation(roll=45)), Vector3D(10, 0.1, 0.1), 0, 0)
    boxes = OrientedBoxes([stick])
    other = ((0.0, 0.0, 0.0), (10.0, 0.1, 0.1))
    inside = actor_boxes(
        boxes,
        ((0.0, 0.0, 0.35), (0.0, 90.0, 45.0), *other),
        ((0.0, 0.0, 0.2), (0.0, 90.0, 45.0), *other),
        ((0.0, 0.0, 0.2828), (0.0, 90.0, 45.0), *other),
        ((0.0, 0.0, 0.2829), (0.0, 90.0, 45.0), *other),
    )
    assert inside[:, 0].tolist() == [False, True, True, False]
    assert 0.2828 < 0.4 * math.sqrt(0.5) < 0.2829


def reference_overlap(ca, ra, ha, cb, rb, hb):
    """A plain separating-axis test: margin of the least-overlapping of the 15 axes, each
    normalised, in the world frame (negative: apart)."""
    axes = [ra[:, k] for k in range(3)] + [rb[:, k] for k in range(3)]
    for i in range(3):
        for j in range(3):
            cross = np.cross(ra[:, i], rb[:, j])
            norm = np.linalg.norm(cross)
            if norm > 1e-6:
                axes.append(cross / norm)
    d = cb - ca
    return min(
        sum(ha[k] * abs(ra[:, k] @ axis) + hb[k] * abs(rb[:, k] @ axis) for k in range(3))
        - abs(d @ axis)
        for axis in axes
    )


def test_grid_and_kernel_agree_with_a_plain_separating_axis_test():
    # Random boxes and actors in full 3D rotation over 30 m x 30 m (the grid's cells are
    # twice the largest box radius, here about 10 m, so many boxes and actors straddle
    # cells), every pair compared with the plain test above; none is within 1e-9 m of
    # touching, where rounding could fall either way.
    rng = np.random.default_rng(7)
    n_boxes, n_actors = 40, 60
    centres = rng.uniform([-15, -15, -2], [15, 15, 2], (n_boxes, 3))
    angles = rng.uniform(-180, 180, (n_boxes, 3))
    halves = rng.uniform(0.1, 3.0, (n_boxes, 3))
    boxes = OrientedBoxes(
        [
            TriggerBox(Transform(Location(*c), Rotation(*a)), Vector3D(*h), k, 0)
            for k, (c, a, h) in enumerate(zip(centres, angles, halves, strict=True))
        ]
    )
    pos = rng.uniform([-15, -15, -2], [15, 15, 2], (n_actors, 3))
    rot = rng.uniform(-180, 180, (n_actors, 3))
    loc = rng.uniform(-1.0, 1.0, (n_actors, 3))
    ext = rng.uniform(0.0, 3.0, (n_actors, 3))
    assert 3 * boxes._grid[2] < 30.0 < 4 * boxes._grid[2]
    alive = np.ones(n_actors, dtype=bool)
    got = overlap_table(boxes, np.arange(n_actors), pos, rot, loc, ext, alive)
    box_axes = rotation_matrices(angles[:, 0], angles[:, 1], angles[:, 2])
    actor_axes = rotation_matrices(rot[:, 0], rot[:, 1], rot[:, 2])
    actor_centres = pos + np.einsum("nij,nj->ni", actor_axes, loc)
    margin = np.array(
        [
            [
                reference_overlap(
                    centres[b], box_axes[b], halves[b], actor_centres[n], actor_axes[n], ext[n]
                )
                for b in range(n_boxes)
            ]
            for n in range(n_actors)
        ]
    )
    clear = np.abs(margin) > 1e-9
    assert clear.all()
    assert 50 < (margin >= 0).sum() < n_boxes * n_actors - 50  # both outcomes well represented
    assert (got == (margin >= 0)).all()


def test_no_boxes_or_no_actors():
    none = OrientedBoxes([])
    columns = (*np.zeros((4, 3, 3)), np.ones(3, dtype=bool))
    assert overlap_table(none, np.arange(3), *columns).shape == (3, 0)
    boxes = OrientedBoxes([LANE_BOX])
    assert overlap_table(boxes, np.zeros(0, dtype=int), *columns).shape == (0, 1)


def test_a_dead_actor_overlaps_nothing():
    # Two points at the lane box's centre, the second's row marked dead.
    boxes = OrientedBoxes([LANE_BOX])
    zeros = np.zeros((2, 3))
    inside = overlap_table(boxes, np.arange(2), zeros, zeros, zeros, zeros, np.array([True, False]))
    assert inside[:, 0].tolist() == [True, False]


def test_the_ticks_test_keeps_its_answers_for_actors_far_from_every_box():
    """`changes` (the tick's test) skips an actor that moved less than half the room its last
    test found to every box's sphere: the pairs are `overlapping`'s, tick after tick, for 80
    cars wandering among 60 seeded boxes, and stopping now and then; and the skip is taken
    (a car given a planted room and moved into a box, within half that room, is in none)."""
    rng = np.random.default_rng(5)
    boxes = OrientedBoxes(
        [
            TriggerBox(
                Transform(
                    Location(*rng.uniform(0.0, 200.0, 2), 0.0),
                    Rotation(yaw=float(rng.uniform(-180.0, 180.0))),
                ),
                Vector3D(1.5, float(rng.uniform(0.8, 2.0)), 1.0),
                k,
                0,
            )
            for k in range(60)
        ]
    )
    n = 80
    pos = np.column_stack([rng.uniform(0.0, 200.0, (n, 2)), np.zeros(n)])
    rot = np.column_stack([np.zeros(n), rng.uniform(-180.0, 180.0, n), np.zeros(n)])
    box_loc = np.tile(CAR_CENTRE, (n, 1))
    extent = np.tile(CAR_EXTENT, (n, 1))
    alive = np.ones(n, dtype=bool)
    rows = np.arange(n, dtype=np.int32)
    inside = np.zeros(0, dtype=np.int64)
    entered = 0
    for _ in range(200):
        columns = (pos, rot, box_loc, extent, alive)
        inside, _, _, came = boxes.changes(inside, rows, n, columns)
        vehicle, box = boxes.overlapping(rows, *columns)
        assert inside.tolist() == (vehicle * len(boxes) + box).tolist()
        entered += int(came.sum())
        step = rng.normal(0.0, 0.4, n) * (rng.random(n) < 0.7)
        heading = np.radians(rot[:, 1])
        pos[:, 0] += step * np.cos(heading)
        pos[:, 1] += step * np.sin(heading)
        rot[:, 1] += rng.normal(0.0, 3.0, n)
    assert entered > 20
    # plant: car 0 beyond every box (the boxes lie in 0..200 m) with a room of 800 m; moved
    # onto box 0's centre (less than 400 m away), it is in no box, though it overlaps box 0
    kept_at, _, room = boxes._clear
    far = np.array([230.0, 230.0, 0.0])
    pos[0] = far
    inside, _, _, _ = boxes.changes(inside, rows, n, (pos, rot, box_loc, extent, alive))
    assert kept_at[0].tolist() == far.tolist()
    room[0] = 800.0
    pos[0] = boxes.centre[0]
    columns = (pos, rot, box_loc, extent, alive)
    vehicle, box = boxes.overlapping(rows, *columns)
    assert 0 in box[vehicle == 0]
    inside, _, _, _ = boxes.changes(inside, rows, n, columns)
    assert not (inside // len(boxes) == 0).any()
