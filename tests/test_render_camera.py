"""The renderer's pinhole camera: CARLA's projection, planar depth, clipping, watertight edges.

CARLA's camera: f = W / (2 tan(fov / 2)); a point at camera coordinates (x forward, y right,
z up) lands at u = f y / x + W / 2, v = -f z / x + H / 2; pixel (i, j) sees the ray through
its centre (i + 0.5, j + 0.5). The expected pixels below are worked from these by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.render_scenes import box, mesh, quad
from world.errors import WorldError
from world.render import (
    FAR,
    MeshIndex,
    PinholeCamera,
    RasterWork,
    SceneView,
    cast_rays,
    visibility,
)
from world.scene.mesh import Mesh

AXES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))  # forward +x, right +y, up +z


def _camera(width=800, height=600, fov=90.0, origin=(0.0, 0.0, 0.0), axes=AXES, **kw):
    return PinholeCamera(origin, *axes, width, height, fov, **kw)


def _see(static: Mesh, camera: PinholeCamera, dynamic: Mesh | None = None):
    return visibility(SceneView(MeshIndex.build(static), dynamic), camera)


def _rectangle(shape, columns, rows) -> np.ndarray:
    mask = np.zeros(shape, bool)
    mask[rows[0] : rows[1] + 1, columns[0] : columns[1] + 1] = True
    return mask


def test_a_box_covers_the_pixels_worked_from_the_focal_length():
    # fov 90, W 800: f = 800 / (2 tan 45) = 400. The front face x = 10, y in [-2, 3],
    # z in [-1, 1.5] spans u = 400 y / 10 + 400 in [320, 520], v = -400 z / 10 + 300 in
    # [240, 340]; centres i + 0.5 inside: columns 320..519, rows 240..339. The box's other
    # faces lie behind the front one.
    seen = _see(box((10.0, -2.0, -1.0), (12.0, 3.0, 1.5)), _camera())
    covered = seen.number >= 0
    assert (covered == _rectangle((600, 800), (320, 519), (240, 339))).all()
    assert set(np.unique(seen.number[covered])) == {0, 1}  # the front face's triangles
    assert (seen.depth[covered] == np.float32(10.0)).all()
    assert (seen.depth[~covered] == np.float32(FAR)).all()


def test_the_focal_length_of_a_100_degree_camera():
    # CARLA's benchmark camera: fov 100, W 800: f = 400 / tan(50 deg) = 335.6398.
    # Front face x = 10, y in [-1, 2], z in [-0.5, 1]: u from 400 - 33.564 = 366.436 to
    # 400 + 67.128 = 467.128, columns 366..466; v from 300 - 33.564 = 266.436 to
    # 300 + 16.782 = 316.782, rows 266..316.
    camera = _camera(fov=100.0)
    assert camera.focal == pytest.approx(335.6398, abs=1e-4)
    seen = _see(box((10.0, -1.0, -0.5), (11.0, 2.0, 1.0)), camera)
    assert ((seen.number >= 0) == _rectangle((600, 800), (366, 466), (266, 316))).all()


def _axes(yaw: float, pitch: float):
    """Forward, right and up of a camera turned by yaw then pitched (degrees, CARLA's)."""
    y, p = math.radians(yaw), math.radians(pitch)
    forward = (math.cos(p) * math.cos(y), math.cos(p) * math.sin(y), math.sin(p))
    right = (-math.sin(y), math.cos(y), 0.0)
    up = (-math.sin(p) * math.cos(y), -math.sin(p) * math.sin(y), math.cos(p))
    return forward, right, up


def test_a_wall_10_m_ahead_has_depth_10_in_every_pixel():
    origin = np.array([3.25, -7.5, 1.75])
    forward, right, up = (np.array(a) for a in _axes(30.0, 10.0))
    centre = origin + 10.0 * forward
    wall = quad(
        *(
            centre + s * 30.0 * right + t * 30.0 * up
            for s, t in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        )
    )
    seen = _see(wall, _camera(320, 240, 90.0, origin, (forward, right, up)))
    assert (seen.number >= 0).all()  # the wall fills the view (10 m each side at fov 90)
    assert (seen.depth == np.float32(10.0)).all()


def _ground_triangle_seen(corners: np.ndarray, work: RasterWork | None = None) -> None:
    """A triangle of the ground z = -1 (`corners` (x, y) in metres) under a camera at the
    origin (fov 90, 800 x 600: f = 400) covers the pixels worked by hand: the ray of pixel
    (u, v) below the horizon meets the ground at x = f / (v - 300), y = x (u - 400) / f,
    and the pixel is covered exactly where that point lies in the triangle."""
    seen = visibility(
        SceneView(MeshIndex.build(mesh([[x, y, -1.0] for x, y in corners], [[0, 1, 2]]))),
        _camera(),
        work,
    )
    f = 400.0
    u = np.arange(800) + 0.5
    v = np.arange(600) + 0.5
    below = v > 300.0
    x = np.full((600, 800), 1e9)  # rows at or above the horizon: marked outside below
    x[below] = (f / (v[below] - 300.0))[:, None]
    y = x * (u[None, :] - 400.0) / f
    # signed distances to the three edges (positive inside, whichever way the corners run)
    (ax, ay), (bx, by), (cx, cy) = corners
    turn = 1.0 if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) > 0 else -1.0
    inside = np.full(x.shape, np.inf)
    for a, b in ((0, 1), (1, 2), (2, 0)):
        (ax, ay), (bx, by) = corners[a], corners[b]
        length = math.hypot(bx - ax, by - ay)
        side = ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / length
        inside = np.minimum(inside, turn * side)
    inside[~below] = -np.inf
    sure = np.abs(inside) > 1e-3 * np.maximum(x, 1.0)  # not within a hair of an edge
    covered = seen.number == 0
    assert (covered[sure] == (inside[sure] > 0)).all()
    assert covered.sum() > 50_000  # most of the lower half
    assert np.allclose(seen.depth[covered], x[covered], rtol=2e-6)


def test_a_triangle_through_the_camera_plane_is_clipped_at_the_near_plane():
    # from 5 m behind to 20 m ahead: two corners behind the camera, one ahead
    _ground_triangle_seen(np.array([[-5.0, -5.0], [-5.0, 5.0], [20.0, 0.0]]))


def test_a_clipped_triangle_needing_more_room_than_the_view_has_triangles_is_drawn_whole():
    # one corner behind, two ahead: clipped at the near plane it is a quadrilateral, a fan
    # of two primitives, more than the work's table holds at first (a row per triangle), so
    # the view is drawn again with a larger table
    work = RasterWork(800, 600)
    _ground_triangle_seen(np.array([[-5.0, 0.0], [20.0, -20.0], [20.0, 20.0]]), work)
    assert len(work.ints) > 1


def _pixel_point(u: float, v: float, depth: float = 10.0, f: float = 400.0):
    """The point at `depth` that a camera at the origin (fov 90, 800 x 600) sees at (u, v)."""
    return [depth, (u - 400.0) * depth / f, -(v - 300.0) * depth / f]


def _coverage(triangles_of_points, camera) -> list[np.ndarray]:
    """Each triangle rendered alone: its covered pixels."""
    return [
        _see(mesh([_pixel_point(*p) for p in corners], [[0, 1, 2]]), camera).number >= 0
        for corners in triangles_of_points
    ]


@pytest.mark.parametrize(
    "triangulation",
    [
        # the diagonal (100.5, 100.5)-(300.5, 300.5) runs through 200 pixel centres
        [
            ((100.5, 100.5), (300.5, 100.5), (300.5, 300.5)),
            ((100.5, 100.5), (300.5, 300.5), (100.5, 300.5)),
        ],
        [
            ((300.5, 100.5), (300.5, 300.5), (100.5, 300.5)),
            ((300.5, 100.5), (100.5, 300.5), (100.5, 100.5)),
        ],
        # a fan of 8 around the centre (200.5, 200.5), spokes through centres
        [
            ((200.5, 200.5), a, b)
            for a, b in zip(
                [
                    (100.5, 100.5),
                    (200.5, 100.5),
                    (300.5, 100.5),
                    (300.5, 200.5),
                    (300.5, 300.5),
                    (200.5, 300.5),
                    (100.5, 300.5),
                    (100.5, 200.5),
                ],
                [
                    (200.5, 100.5),
                    (300.5, 100.5),
                    (300.5, 200.5),
                    (300.5, 300.5),
                    (200.5, 300.5),
                    (100.5, 300.5),
                    (100.5, 200.5),
                    (100.5, 100.5),
                ],
                strict=True,
            )
        ],
    ],
    ids=["diagonal", "other-diagonal", "fan"],
)
def test_triangles_sharing_edges_cover_each_centre_once(triangulation):
    # The square's corners are pixel centres: by the fill rule its left and top edges are
    # in, its right and bottom edges out, so any triangulation covers exactly columns and
    # rows 100..299, every centre by one triangle.
    covers = _coverage(triangulation, _camera())
    total = np.sum(covers, axis=0)
    assert total.max() == 1
    assert ((total == 1) == _rectangle((600, 800), (100, 299), (100, 299))).all()


def test_equal_depths_go_to_the_lower_triangle_number():
    a, b, c = [10.0, -5.0, -5.0], [10.0, 5.0, -5.0], [10.0, 0.0, 5.0]
    static = mesh([a, b, c, c, b, a], [[3, 4, 5], [0, 1, 2]])  # two copies, wound both ways
    dynamic = mesh([a, b, c], [[0, 1, 2]])  # a third copy, numbered 2
    seen = _see(static, _camera(), dynamic)
    assert set(np.unique(seen.number)) == {-1, 0}


def test_nothing_beyond_the_far_distance_is_seen():
    near_wall = quad([999.0, -2e3, -2e3], [999.0, 2e3, -2e3], [999.0, 2e3, 2e3], [999.0, -2e3, 2e3])
    far_wall = quad(
        [1001.0, -2e3, -2e3], [1001.0, 2e3, -2e3], [1001.0, 2e3, 2e3], [1001.0, -2e3, 2e3]
    )
    assert (_see(near_wall, _camera(64, 48)).depth == np.float32(999.0)).all()
    seen = _see(far_wall, _camera(64, 48))
    assert (seen.number == -1).all() and (seen.depth == np.float32(FAR)).all()
    assert (_see(far_wall, _camera(64, 48, far=2000.0)).depth == np.float32(1001.0)).all()


def test_the_actors_are_numbered_after_the_static_scene_and_looked_up():
    static = box((20.0, -10.0, -10.0), (21.0, 10.0, 10.0), tag=3, first_instance=1 << 24)
    car = box((10.0, -1.0, -1.0), (11.0, 1.0, 1.0), tag=14, first_instance=42)
    view = SceneView(MeshIndex.build(static), car)
    seen = visibility(view, _camera(160, 120))
    numbers = np.unique(seen.number)
    assert {12, 13} <= set(numbers) and {0, 1} <= set(numbers)  # car's front, wall's front
    tags = view.tag(seen.number)
    assert (tags[seen.number >= 12] == 14).all() and (
        tags[(seen.number >= 0) & (seen.number < 12)] == 3
    ).all()
    instance = view.instance(np.array([12, 13, 0, -1]))
    assert instance.tolist() == [42, 43, 1 << 24, 0]
    assert view.colour(np.array([[13, -1]])).tolist() == [[[1, 2, 3], [0, 0, 0]]]
    normals = view.normal(np.array([0, 12, -1]))
    assert np.allclose(np.abs(normals), [[1, 0, 0], [1, 0, 0], [0, 0, 0]])


def test_the_camera_agrees_with_rays_through_the_pixel_centres():
    # two independent ways to the same answer: the rasterizer and the ray caster, on
    # random boxes; they may differ only at pixels whose centre is within a fraction of a
    # pixel of an edge (the rasterizer snaps vertices to 1/256 pixel)
    rng = np.random.default_rng(7)
    boxes = []
    for k in range(40):
        lo = rng.uniform([5.0, -20.0, -5.0], [60.0, 20.0, 3.0])
        boxes.append(box(lo, lo + rng.uniform(0.5, 6.0, 3), first_instance=100 * k))
    view = SceneView(MeshIndex.build(Mesh.concatenate(boxes)))
    origin, axes = np.array([1.0, 0.5, 0.25]), _axes(5.0, -3.0)
    camera = PinholeCamera(tuple(origin), *axes, 200, 150, 100.0)
    seen = visibility(view, camera)
    f = camera.focal
    j, i = np.mgrid[0:150, 0:200]
    forward, right, up = (np.array(a) for a in axes)
    rays = (
        forward[None, None, :]
        + ((i + 0.5 - 100.0) / f)[..., None] * right
        - ((j + 0.5 - 75.0) / f)[..., None] * up
    ).reshape(-1, 3)
    scale = np.sqrt((rays * rays).sum(axis=1))
    hits = cast_rays(view, origin, rays / scale[:, None], 1000.0)
    same = hits.number.reshape(150, 200) == seen.number
    assert same.mean() > 0.99
    hit = same & (seen.number >= 0)
    assert hit.sum() > 5000
    planar = (hits.distance / scale).reshape(150, 200)  # along forward: t / |ray|
    assert np.allclose(seen.depth[hit], planar[hit], rtol=1e-5)


def test_buffers_kept_from_frame_to_frame_give_a_fresh_frame_s_bytes():
    near = SceneView(MeshIndex.build(box((5.0, -1.0, -1.0), (6.0, 1.0, 1.0))))
    far = SceneView(MeshIndex.build(box((30.0, -10.0, -3.0), (31.0, 4.0, 2.0))))
    camera = _camera(160, 120)
    work = RasterWork(160, 120)
    visibility(near, camera, work)  # leaves the near box's depths in the work buffers
    kept = visibility(far, camera, work)
    fresh = visibility(far, camera)
    # f = 80 at 160 px and fov 90: 14 m x 5 m at 30 m is about 37 x 13 = 490 pixels
    assert (kept.number >= 0).sum() > 400
    assert kept.number.tobytes() == fresh.number.tobytes()
    assert kept.depth.tobytes() == fresh.depth.tobytes()
    other = visibility(far, _camera(80, 60), work)  # another size: buffers of its own
    assert other.number.shape == (60, 80) and (other.number >= 0).sum() > 100


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"fov": 0.0}, "fov"),
        ({"fov": 180.0}, "fov"),
        ({"width": 0}, "image size"),
        ({"width": 100_000, "height": 100_000}, "image size"),
        ({"width": 8.5}, "integers"),
        ({"near": 2.0, "far": 1.0}, "near"),
        ({"origin": (0.0, float("nan"), 0.0)}, "finite"),
    ],
)
def test_bad_cameras_are_refused_by_name(changes, words):
    fields = {
        "origin": (0.0, 0.0, 0.0),
        "forward": AXES[0],
        "right": AXES[1],
        "up": AXES[2],
        "width": 64,
        "height": 48,
        "fov": 90.0,
    }
    fields.update(changes)
    with pytest.raises(WorldError, match=words):
        PinholeCamera(**fields)
