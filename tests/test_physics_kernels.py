"""The compiled pieces of the physics tick against the numpy forms they replaced, on seeded
inputs: the merge of a tick's collision records and the ground planes from a map's surface
samples bit for bit; the attachments' poses to 1e-9 (and by hand)."""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.actors.attachments import compose, relative_pose, update_attached
from world.geometry import rotation_matrices
from world.map.ground import sample_ground
from world.map.map import GroundSample
from world.physics import tick as physics
from world.state import ActorTable


def _same(got: tuple, want: tuple) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(w).tobytes()


def numpy_merge(i: np.ndarray, j: np.ndarray, imp: np.ndarray) -> tuple:
    """The numpy merge: unique (i, j) keys, impulses summed in record order by np.add.at."""
    keys, inverse = np.unique(i << 32 | j, return_inverse=True)
    total = np.zeros((len(keys), 3))
    np.add.at(total, inverse, imp)
    return keys >> 32, keys & 0xFFFFFFFF, total


def test_merging_collision_records():
    rng = np.random.default_rng(31)
    for records in (1, 2, 7, 40, 300):
        i = rng.integers(0, 12, records)
        j = i + rng.integers(1, 5, records)
        imp = rng.normal(0.0, 1e3, (records, 3))
        imp[:, 2] = 0.0
        imp[::3, 0] = -0.0  # sums start at +0.0, as np.add.at's do
        _same(physics._merge_pairs(i, j, imp), numpy_merge(i, j, imp))
    # five substeps of the same two pairs, then one more pair: three events, sums by hand
    i = np.array([4, 1, 4, 1, 4, 0])
    j = np.array([9, 2, 9, 2, 9, 3])
    imp = np.zeros((6, 3))
    imp[:, 0] = [1.0, 2.0, 0.5, 0.25, 0.125, -1.0]
    rows_i, rows_j, total = physics._merge_pairs(i, j, imp)
    assert rows_i.tolist() == [0, 1, 4] and rows_j.tolist() == [3, 2, 9]
    assert total[:, 0].tolist() == [-1.0, 2.25, 1.625]
    empty = physics._merge_pairs(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3)))
    assert [len(x) for x in empty] == [0, 0, 0] and empty[2].shape == (0, 3)


def numpy_planes(points: np.ndarray, sample: GroundSample) -> tuple:
    normal = np.asarray(sample.normal, dtype=np.float64)
    found = np.asarray(sample.found, dtype=bool) & (normal[:, 2] > 1e-6)
    nz = np.where(found, normal[:, 2], 1.0)
    grad = np.where(found[:, None], -normal[:, :2] / nz[:, None], 0.0)
    z = np.where(found, np.asarray(sample.z, dtype=np.float64), -np.inf)
    return points[:, :2].copy(), z, grad, found


class _Sampled:
    """A map whose ground answer is given."""

    def __init__(self, sample: GroundSample) -> None:
        self.sample = sample

    def ground(self, points: np.ndarray) -> GroundSample:
        return self.sample


def test_ground_planes_from_surface_samples():
    rng = np.random.default_rng(32)
    n = 5000
    points = rng.normal(0.0, 100.0, (n, 3))
    normal = rng.normal(0.0, 1.0, (n, 3))
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    normal[::7, 2] = 0.0  # vertical walls, NaN and barely tilted-up normals are no ground
    normal[::11, 2] = np.nan
    normal[::13, 2] = 1e-7
    sample = GroundSample(rng.normal(0.0, 10.0, n), normal, rng.random(n) < 0.8)
    want = numpy_planes(points, sample)
    assert 0.2 < want[3].mean() < 0.6  # both answers are exercised
    _same(tuple(sample_ground(_Sampled(sample), points)), want)
    # a flat answer (FlatMap's): no slope, the height everywhere
    flat = GroundSample(np.full(3, 2.0), np.tile([0.0, 0.0, 1.0], (3, 1)), np.ones(3, bool))
    planes = sample_ground(_Sampled(flat), points[:3])
    assert planes.z.tolist() == [2.0] * 3 and not planes.grad.any() and planes.found.all()


def numpy_compose(parent_pos, parent_rot, rel_pos, rel_rot) -> tuple:
    """The numpy form: CARLA's matrices, rotated offsets by einsum, product by matmul."""
    rp = rotation_matrices(parent_rot[:, 0], parent_rot[:, 1], parent_rot[:, 2])
    rr = rotation_matrices(rel_rot[:, 0], rel_rot[:, 1], rel_rot[:, 2])
    pos = parent_pos + np.einsum("nij,nj->ni", rp, rel_pos)
    m = rp @ rr
    pitch = np.degrees(el.asin_v(np.clip(m[:, 2, 0], -1.0, 1.0)))
    yaw = np.degrees(el.atan2_v(m[:, 1, 0], m[:, 0, 0]))
    roll = np.degrees(el.atan2_v(-m[:, 2, 1], m[:, 2, 2]))
    return pos, np.stack([pitch, yaw, roll], axis=1)


def _close(got: tuple, want: tuple) -> None:
    """Positions to 1e-9 m, angles to 1e-9 degrees (across +-180): the compiled loops round
    in another order than numpy's vectorised loops and BLAS, by an ulp or so."""
    (gp, gr), (wp, wr) = got, want
    assert np.abs(gp - wp).max() < 1e-9
    assert np.abs((gr - wr + 180.0) % 360.0 - 180.0).max() < 1e-9


def _seeded_poses(seed: int, n: int) -> tuple:
    rng = np.random.default_rng(seed)
    parent_pos = rng.uniform(-500.0, 500.0, (n, 3))
    parent_rot = rng.uniform(-180.0, 180.0, (n, 3))
    rel_pos = rng.normal(0.0, 3.0, (n, 3))
    rel_rot = rng.uniform(-180.0, 180.0, (n, 3))
    parent_rot[:, 0] = rng.uniform(-89.0, 89.0, n)  # pitch within +-90: angles read back as set
    rel_rot[:, 0] = rng.uniform(-89.0, 89.0, n)
    rel_rot[::3] = 0.0  # a controller's relative pose: none
    rel_pos[::5] = 0.0
    return parent_pos, parent_rot, rel_pos, rel_rot


def test_compose_by_hand_and_against_the_numpy_form():
    # a parent at (10, 20, 1) facing +y (yaw 90); 2 m ahead and 0.5 m up of it, turned 30
    # degrees more: CARLA's forward at yaw 90 is +y, so the child stands at (10, 22, 1.5)
    pos, rot = compose(
        np.array([[10.0, 20.0, 1.0]]),
        np.array([[0.0, 90.0, 0.0]]),
        np.array([[2.0, 0.0, 0.5]]),
        np.array([[0.0, 30.0, 0.0]]),
    )
    assert np.allclose(pos, [[10.0, 22.0, 1.5]], atol=1e-12)
    assert np.allclose(rot, [[0.0, 120.0, 0.0]], atol=1e-12)
    poses = _seeded_poses(33, 20000)
    got = compose(*poses)
    _close(got, numpy_compose(*poses))
    # relative_pose undoes compose
    back_pos, back_rot = relative_pose(poses[0], poses[1], *got)
    _close((back_pos, back_rot), (poses[2], poses[3]))


def _attached_table(seed: int) -> ActorTable:
    """300 seeded rows, a tenth dead, attached in chains up to several deep."""
    rng = np.random.default_rng(seed)
    t = ActorTable(8)
    for _ in range(300):
        t.add_row()
    n = t.n
    t.alive[:n] = rng.random(n) < 0.9
    t.pos[:n] = rng.uniform(-100.0, 100.0, (n, 3))
    t.rot[:n] = rng.uniform(-180.0, 180.0, (n, 3))
    t.rel_pos[:n] = rng.normal(0.0, 2.0, (n, 3))
    t.rel_rot[:n] = rng.uniform(-90.0, 90.0, (n, 3))
    for r in range(10, n):
        if rng.random() < 0.6:
            parent = int(rng.integers(0, r))
            t.parent[r], t.depth[r] = parent, t.depth[parent] + 1
    return t


def test_update_attached_depth_by_depth():
    got, numpy_form, by_compose = (_attached_table(34) for _ in range(3))
    n = got.n
    assert got.depth[:n].max() >= 3
    for t, how in ((numpy_form, numpy_compose), (by_compose, compose)):
        for d in range(1, int(t.depth[:n].max()) + 1):  # each depth after its parents'
            rows = np.flatnonzero((t.depth[:n] == d) & t.alive[:n])
            parents = t.parent[rows]
            t.pos[rows], t.rot[rows] = how(
                t.pos[parents], t.rot[parents], t.rel_pos[rows], t.rel_rot[rows]
            )
    update_attached(got)
    _same((got.pos, got.rot), (by_compose.pos, by_compose.rot))  # one loop in row order
    _close((got.pos[:n], got.rot[:n]), (numpy_form.pos[:n], numpy_form.rot[:n]))
    # a dead child stays where it was
    dead = np.flatnonzero(~got.alive[:n] & (got.depth[:n] > 0))
    assert len(dead) and (got.pos[dead] == _attached_table(34).pos[dead]).all()
