"""The renderer's ray casts: analytic distances, misses, shared edges, ties, and agreement
with a brute-force ray-triangle test on random boxes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.render_scenes import box, mesh, quad
from world.errors import WorldError
from world.render import MeshIndex, RayBundle, SceneView, cast_rays
from world.scene.mesh import Mesh

GROUND = quad([-1e3, -1e3, 0.0], [1e3, -1e3, 0.0], [1e3, 1e3, 0.0], [-1e3, 1e3, 0.0])


def _cast(static: Mesh, origin, directions, max_range=1000.0, dynamic: Mesh | None = None):
    view = SceneView(MeshIndex.build(static), dynamic)
    return cast_rays(view, np.asarray(origin, float), np.asarray(directions, float), max_range)


def _directions(elevations, azimuths) -> np.ndarray:
    """Unit vectors at the given elevations and azimuths (degrees), every pair."""
    e, a = np.meshgrid(np.radians(elevations), np.radians(azimuths), indexing="ij")
    d = np.stack([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)], axis=-1)
    return d.reshape(-1, 3)


def test_rays_meet_the_ground_at_the_analytic_distances():
    # a sensor 2 m above flat ground: a ray at elevation -e travels 2 / sin(e) metres
    elevations = [-1.0, -2.5, -5.0, -10.0, -24.8, -45.0, -89.0]
    directions = _directions(elevations, np.arange(0.0, 360.0, 7.5))
    hits = _cast(GROUND, [0.0, 0.0, 2.0], directions)
    assert (hits.number >= 0).all()
    expected = 2.0 / -directions[:, 2]
    assert np.allclose(hits.distance, expected, rtol=1e-12, atol=0.0)


def test_rays_that_miss_or_reach_too_far_hit_nothing():
    up = _directions([0.5, 10.0, 60.0, 90.0], [0.0, 90.0, 200.0])
    hits = _cast(GROUND, [0.0, 0.0, 2.0], up)
    assert (hits.number == -1).all() and np.isinf(hits.distance).all()
    # at elevation -1 degree the ground is 2 / sin(1 deg) = 114.6 m away: beyond 100 m
    down = _directions([-1.0], [0.0, 45.0])
    assert (_cast(GROUND, [0.0, 0.0, 2.0], down, max_range=100.0).number == -1).all()
    assert (_cast(GROUND, [0.0, 0.0, 2.0], down, max_range=115.0).number >= 0).all()


def test_rays_along_a_shared_edge_hit_exactly_one_of_its_triangles():
    # a square at x = 10 split along its diagonal (10, -1, -1)-(10, 1, 1); the plane through
    # the origin and that edge is y = z, and a direction (a, b, b) lies on it exactly
    a, b, c, d = [10.0, -1.0, -1.0], [10.0, 1.0, -1.0], [10.0, 1.0, 1.0], [10.0, -1.0, 1.0]
    t = np.linspace(-0.099, 0.099, 37)
    directions = np.stack([np.ones_like(t), t, t], axis=1)
    directions /= np.sqrt((directions * directions).sum(axis=1))[:, None]
    assert (directions[:, 1] == directions[:, 2]).all()
    first = _cast(mesh([a, b, c], [[0, 1, 2]]), [0, 0, 0], directions).number >= 0
    second = _cast(mesh([a, c, d], [[0, 1, 2]]), [0, 0, 0], directions).number >= 0
    assert (first ^ second).all()  # each ray by one triangle, none by both, none by neither
    both = _cast(quad(a, b, c, d), [0, 0, 0], directions)
    assert (both.number >= 0).all()
    assert np.allclose(both.distance, 10.0 / directions[:, 0], rtol=1e-12)


def test_equal_distances_go_to_the_lower_triangle_number():
    a, b, c = [10.0, -5.0, -5.0], [10.0, 5.0, -5.0], [10.0, 0.0, 5.0]
    static = mesh([a, b, c, c, b, a], [[3, 4, 5], [0, 1, 2]])
    directions = _directions([-10.0, 0.0, 5.0], [-5.0, 0.0, 5.0])  # all through the triangle
    hits = _cast(static, [0, 0, 0], directions, dynamic=mesh([a, b, c], [[0, 1, 2]]))
    assert (hits.number == 0).all()


def _brute_force(triangles: np.ndarray, origin: np.ndarray, directions: np.ndarray):
    """Nearest hit of each ray by the Moller-Trumbore test against every triangle."""
    p0, p1, p2 = triangles[:, 0] - origin, triangles[:, 1] - origin, triangles[:, 2] - origin
    e1, e2 = p1 - p0, p2 - p0
    best = np.full(len(directions), np.inf)
    number = np.full(len(directions), -1)
    for k, d in enumerate(directions):
        h = np.cross(d, e2)
        det = (e1 * h).sum(axis=1)
        ok = np.abs(det) > 1e-12
        inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
        s = -p0
        u = (s * h).sum(axis=1) * inv
        q = np.cross(s, e1)
        v = (q * d).sum(axis=1) * inv
        t = (e2 * q).sum(axis=1) * inv
        good = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0)
        if good.any():
            t = np.where(good, t, np.inf)
            number[k] = int(np.argmin(t))
            best[k] = t[number[k]]
    return best, number


def test_casts_agree_with_a_brute_force_test_of_every_triangle():
    rng = np.random.default_rng(11)
    boxes = [GROUND]
    for k in range(60):
        lo = rng.uniform([-60.0, -60.0, 0.0], [60.0, 60.0, 3.0])
        boxes.append(box(lo, lo + rng.uniform(0.3, 8.0, 3), first_instance=100 * k))
    scene = Mesh.concatenate(boxes)
    origin = np.array([0.5, -0.25, 1.8])
    directions = rng.normal(size=(3000, 3))
    directions /= np.sqrt((directions * directions).sum(axis=1))[:, None]
    hits = _cast(scene, origin, directions, max_range=80.0)
    best, number = _brute_force(scene.vertices[scene.triangles], origin, directions)
    best[best > 80.0], number[best > 80.0] = np.inf, -1
    assert (hits.number >= 0).sum() > 1000
    # the two tests may disagree only on a ray grazing an edge (a different but equally
    # near triangle) or exactly at a corner
    agree = hits.number == number
    assert agree.mean() > 0.995
    finite = np.isfinite(best)
    assert (np.isfinite(hits.distance) == finite)[agree].all()
    assert np.allclose(hits.distance[finite & agree], best[finite & agree], rtol=1e-9)


def test_a_bundle_cast_in_a_turned_frame_hits_what_its_world_directions_hit():
    # a LiDAR's directions binned once in its own frame, cast with the frame turned by
    # yaw 30 and pitch -5 degrees: the hits of the same rays given in the world's frame
    yaw, pitch = math.radians(30.0), math.radians(-5.0)
    forward = [math.cos(pitch) * math.cos(yaw), math.cos(pitch) * math.sin(yaw), math.sin(pitch)]
    right = [-math.sin(yaw), math.cos(yaw), 0.0]
    up = [-math.sin(pitch) * math.cos(yaw), -math.sin(pitch) * math.sin(yaw), math.cos(pitch)]
    frame = np.array([forward, right, up])
    local = _directions(np.linspace(10.0, -30.0, 16), np.arange(0.0, 360.0, 2.0))
    rng = np.random.default_rng(5)
    boxes = [GROUND]
    for k in range(40):
        lo = rng.uniform([-40.0, -40.0, 0.0], [40.0, 40.0, 2.0])
        boxes.append(box(lo, lo + rng.uniform(0.5, 6.0, 3), first_instance=100 * k))
    view = SceneView(MeshIndex.build(Mesh.concatenate(boxes)))
    origin = np.array([0.5, -1.5, 1.8])
    turned = cast_rays(view, origin, RayBundle.of(local), 60.0, frame)
    plain = cast_rays(view, origin, local @ frame, 60.0)
    assert (turned.number >= 0).sum() > 400
    assert (turned.number == plain.number).mean() > 0.99  # a grazed edge may differ
    same = (turned.number == plain.number) & (turned.number >= 0)
    assert np.allclose(turned.distance[same], plain.distance[same], rtol=1e-9)


@pytest.mark.parametrize(
    "origin, directions, max_range, words",
    [
        ([0.0, 0.0], [[1.0, 0.0, 0.0]], 10.0, "origin"),
        ([0.0, 0.0, math.nan], [[1.0, 0.0, 0.0]], 10.0, "origin"),
        ([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 10.0, r"\(N, 3\)"),
        ([0.0, 0.0, 0.0], [[2.0, 0.0, 0.0]], 10.0, "unit"),
        ([0.0, 0.0, 0.0], [[1.0, 0.0, 0.0]], 0.0, "range"),
    ],
)
def test_bad_casts_are_refused_by_name(origin, directions, max_range, words):
    with pytest.raises(WorldError, match=words):
        _cast(GROUND, origin, directions, max_range)


def test_bad_axes_are_refused_by_name():
    view = SceneView(MeshIndex.build(GROUND))
    with pytest.raises(WorldError, match="axes"):
        cast_rays(view, np.zeros(3), np.array([[1.0, 0.0, 0.0]]), 10.0, np.eye(2))
