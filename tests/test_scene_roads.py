"""The map's static scene: lane surfaces, curbs and road marks against golden geometry and
the rules worked by hand from the OpenDRIVE files.

Town01's road 0 (../shared/maps/carla/Town01.xodr) is a straight 36.36 m road, flat (no
elevation, superelevation, crossfall or <height>), heading 3.1410614 rad, with lanes
(from the left) sidewalk 3 (4.0 m), shoulder 2 (0.3 m), driving 1 (4.0 m), the centre
lane 0 with a broken yellow road mark 0.125 m wide, driving -1, shoulder -2 and sidewalk
-3, mirrored; shoulders carry a "curb" mark. libOpenDRIVE's golden samples of its lanes
are in ../shared/maps/golden/Town01/lanes.csv.
"""

from __future__ import annotations

import csv
import pickle

import numpy as np
import pytest

from world import Map
from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.builder import MeshParts
from world.scene.markings import DASH_GAP, DASH_LENGTH, MARK_LIFT, road_markings
from world.scene.materials import CURB_HEIGHT
from world.scene.road_surface import road_surface
from world.scene.sampling import TOLERANCE
from world.scene.static_scene import SCENE_KEY, static_scene


@pytest.fixture(scope="module")
def town01(shared) -> Map:
    return Map.from_file(shared / "maps" / "carla" / "Town01.xodr")


def _road_mesh(town: Map, road_id: str):
    road = town.opendrive.roads[road_id]
    evaluator = town.road_evaluators()[road_id]
    parts = MeshParts()
    samples = road_surface(parts, road, evaluator, 7)
    surface = parts.mesh()
    marks = MeshParts()
    road_markings(marks, road, evaluator, samples, 7)
    return surface, marks.mesh()


def _golden_borders(shared, road_id: str) -> dict[int, np.ndarray]:
    """(n, 3) golden outer-border points of each lane of the road, CARLA's frame, by s."""
    out: dict[int, list] = {}
    with open(shared / "maps" / "golden" / "Town01" / "lanes.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row["road_id"] == road_id:
                point = (float(row["x_outer"]), -float(row["y_outer"]), float(row["z_outer"]))
                out.setdefault(int(row["lane_id"]), []).append((float(row["s"]), point))
    return {lane: np.array([p for _, p in sorted(rows)]) for lane, rows in out.items()}


def _distance_to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Plan (x, y) distance of each point to a polyline."""
    a, b = line[:-1, None, :2], line[1:, None, :2]
    p = points[None, :, :2]
    ab = b - a
    u = np.clip(((p - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-30), 0.0, 1.0)
    d = p - (a + u[..., None] * ab)
    return np.sqrt((d * d).sum(-1)).min(axis=0)


def _lane_offset(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, t) of CARLA-frame points on road 0: its reference line starts at (384.58999633789062,
    -0.019999999552965164) (OpenDRIVE frame) heading 3.1410614169049995 rad."""
    x0, y0, hdg = 384.58999633789062, -0.019999999552965164, 3.1410614169049995
    c, s = np.cos(hdg), np.sin(hdg)
    dx, dy = points[:, 0] - x0, -points[:, 1] - y0
    return dx * c + dy * s, -dx * s + dy * c


@pytest.mark.parametrize(("road_id", "radius"), [("0", np.inf), ("11", 8.65 - 4.3)])
def test_lane_surfaces_lie_on_the_golden_lane_borders(shared, town01, road_id, radius):
    """Every vertex of the road's Roads triangles (driving lanes and shoulders) lies in plan
    on a golden border of those lanes, and every golden sample of those borders lies on the
    edges of the mesh. Tolerances: the golden samples are 1 m apart, so their polyline cuts
    a border of radius R by at most 1 / (8 R); road 11 is a corner whose reference line is
    an arc of radius 8.65 m (curvature 0.1156 in the file) with these lanes out to 4.3 m
    from it, so R >= 4.35 m: 2.9 cm. The mesh's own chords stray at most about TOLERANCE
    (2 cm) from the borders (world.scene.sampling's rule)."""
    surface, _ = _road_mesh(town01, road_id)
    lines = [line for lane, line in _golden_borders(shared, road_id).items() if abs(lane) <= 2]
    tops = surface.vertices[surface.triangles[surface.tag == Label.Roads]].reshape(-1, 3)
    nearest = np.min([_distance_to_polyline(tops, line) for line in lines], axis=0)
    assert nearest.max() <= 1.0 / (8.0 * radius) + 1e-9
    edges = np.concatenate([tops.reshape(-1, 3, 3)[:, [0, 1]], tops.reshape(-1, 3, 3)[:, [1, 2]],
                            tops.reshape(-1, 3, 3)[:, [2, 0]]])  # fmt: skip
    for line in lines:
        a, b = edges[:, None, 0, :2], edges[:, None, 1, :2]
        ab = b - a
        u = np.clip(((line[None, :, :2] - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-30),
                    0.0, 1.0)  # fmt: skip
        d = line[None, :, :2] - (a + u[..., None] * ab)
        assert np.sqrt((d * d).sum(-1)).min(axis=0).max() < TOLERANCE + 1e-9


def test_each_lane_type_has_its_tag_and_the_sidewalk_stands_on_its_curb(town01):
    """Road 0's flat triangles, by their centroid's t: |t| < 4.3 (driving 4.0 m and shoulder
    0.3 m) are Roads at z = 0, 4.3 < |t| < 8.3 the sidewalk, Sidewalks at z = CURB_HEIGHT
    (Town01 gives sidewalks no <height>, so the curb's 0.15 m stands above the road's 0)."""
    surface, _ = _road_mesh(town01, "0")
    tri = surface.vertices[surface.triangles]
    flat = np.ptp(tri[..., 2], axis=1) < 1e-9
    _, t = _lane_offset(tri[flat].mean(axis=1))
    z = tri[flat][:, 0, 2]
    tags = surface.tag[flat]
    road = np.abs(t) < 4.3
    walk = (np.abs(t) > 4.3) & (np.abs(t) < 8.3)
    assert road.sum() >= 4 and walk.sum() >= 4
    assert set(tags[road].tolist()) == {int(Label.Roads)}
    assert np.abs(z[road]).max() < 1e-9
    assert set(tags[walk].tolist()) == {int(Label.Sidewalks)}
    assert z[walk] == pytest.approx(CURB_HEIGHT, abs=1e-9)
    # the curb's face: vertical triangles at |t| = 4.3 from the road (0) to the top (0.15)
    faces = tri[~flat & (surface.tag == Label.Sidewalks)]
    _, t_face = _lane_offset(faces.reshape(-1, 3))
    assert np.abs(np.abs(t_face) - 4.3).min() < 1e-9
    assert set(np.round(faces[..., 2].ravel(), 9).tolist()) >= {0.0, CURB_HEIGHT}


def test_the_centre_line_is_broken_yellow_with_its_width_and_dashes(town01):
    """Road 0's centre lane: roadMark type broken, colour yellow, width 0.125, from s = 0 to
    the road's end 36.36. Dashes of DASH_LENGTH (6 m) every DASH_LENGTH + DASH_GAP (12 m)
    from the record's start: [0, 6], [12, 18], [24, 30], [36, 36.36]; the paint spans
    t = -0.0625..0.0625 about lane 0's border (t = 0: no laneOffset), MARK_LIFT above
    the road (z = 0). The shoulders' "curb" marks paint nothing."""
    _, marks = _road_mesh(town01, "0")
    assert set(marks.tag.tolist()) == {int(Label.RoadLines)}
    assert {tuple(c) for c in marks.colour.tolist()} == {(236, 190, 40)}
    s, t = _lane_offset(marks.vertices)
    assert sorted(set(np.round(t, 9).tolist())) == [-0.0625, 0.0625]
    assert marks.vertices[:, 2] == pytest.approx(MARK_LIFT, abs=1e-12)
    assert (DASH_LENGTH, DASH_GAP) == (6.0, 6.0)
    painted = np.zeros(3636, dtype=bool)  # centimetres of s painted
    for tri in marks.triangles:
        lo, hi = s[tri].min(), s[tri].max()
        painted[round(lo * 100) : round(hi * 100)] = True
    runs = np.flatnonzero(np.diff(np.concatenate([[0], painted.astype(int), [0]])))
    assert (runs / 100).tolist() == [0.0, 6.0, 12.0, 18.0, 24.0, 30.0, 36.0, 36.36]


def test_the_scene_is_kept_with_the_map_and_the_same_bytes_every_build(town01):
    from world.scene.static_scene import build_static_scene

    scene = static_scene(town01)
    assert static_scene(town01) is scene
    assert SCENE_KEY in town01.derived_keys()
    scene.validate("Town01")
    again = build_static_scene(town01)
    # the map store pickles the map with what it derived: the scene comes back whole
    stored = pickle.loads(pickle.dumps(town01, protocol=pickle.HIGHEST_PROTOCOL))
    kept = stored.derived(SCENE_KEY, lambda: None)
    for name in ("vertices", "triangles", "tag", "instance", "colour"):
        assert getattr(again, name).tobytes() == getattr(scene, name).tobytes()
        assert getattr(kept, name).tobytes() == getattr(scene, name).tobytes()


def test_explicit_lines_double_lines_and_a_line_moved_off_the_curb():
    """tests/test_opendrive_road_marks.py's road: 40 m straight along +x, flat, so a point
    (s, t) is CARLA's (s, -t, 0). Lane 0's "solid solid" (width 0.1) is two lines centred
    one width to either side: t in [0.05, 0.15] and [-0.15, -0.05], all along. Lane -1's
    broken mark has a <type><line length="3" space="9" sOffset="1" width="0.15">: dashes
    [1, 4], [13, 16], [25, 28], [37, 40]; it lies on the border (t = -3.5) with the sidewalk
    -2 beyond, raised CURB_HEIGHT (no <height>), so it moves onto the driving lane by half
    its width and 1 cm: centre t = -3.5 + 0.075 + 0.01 = -3.415, edges -3.49 and -3.34."""
    from test_opendrive_road_marks import ROAD

    town = Map("marks", ROAD)
    _, marks = _road_mesh(town, "1")
    t = -marks.vertices[:, 1]
    s = marks.vertices[:, 0]
    yellow = (marks.colour == [236, 190, 40]).all(axis=1)
    tri_t = t[marks.triangles]
    centre = tri_t.mean(axis=1)
    for lo, hi in ((0.05, 0.15), (-0.15, -0.05)):
        mine = yellow & (centre > lo - 1e-9) & (centre < hi + 1e-9)
        assert sorted(set(np.round(tri_t[mine].ravel(), 9).tolist())) == [lo, hi]
        assert s[marks.triangles[mine]].min() == 0.0 and s[marks.triangles[mine]].max() == 40.0
    white = ~yellow
    assert sorted(set(np.round(tri_t[white].ravel(), 9).tolist())) == [-3.49, -3.34]
    painted = np.zeros(4000, dtype=bool)
    for tri in marks.triangles[white]:
        painted[round(s[tri].min() * 100) : round(s[tri].max() * 100)] = True
    runs = np.flatnonzero(np.diff(np.concatenate([[0], painted.astype(int), [0]])))
    assert (runs / 100).tolist() == [1.0, 4.0, 13.0, 16.0, 25.0, 28.0, 37.0, 40.0]


def test_a_crosswalk_is_striped_inside_its_outline(shared):
    """Town10HD's first crosswalk outline (CARLA's placement of object 1140): corners with
    sides 2.558, 21.409, 2.611 and 20.116 m, flat at z = 0. Its long sides average 20.763 m,
    which holds floor((20.763 + STRIPE_GAP) / (STRIPE_WIDTH + STRIPE_GAP)) = 21 stripes of
    two triangles each, all inside the outline, CROSSWALK_LIFT above it."""
    from world.scene.crosswalks import CROSSWALK_LIFT, STRIPE_GAP, STRIPE_WIDTH, crosswalks

    town = Map.from_file(shared / "maps" / "carla" / "Town10HD.xodr")
    outline = town.crosswalk_polygons()[0]
    sides = np.sqrt(((np.roll(outline, -1, axis=0) - outline) ** 2).sum(axis=1))
    assert sides == pytest.approx([2.558, 21.409, 2.611, 20.116], abs=1e-3)
    assert (STRIPE_WIDTH, STRIPE_GAP) == (0.5, 0.5)
    parts = MeshParts()
    crosswalks(parts, [outline], 9)
    mesh = parts.mesh()
    assert mesh.triangle_count == 2 * 21
    assert set(mesh.tag.tolist()) == {int(Label.RoadLines)}
    assert mesh.vertices[:, 2] == pytest.approx(CROSSWALK_LIFT, abs=1e-12)
    ring = outline[:, :2]
    edge = np.roll(ring, -1, axis=0) - ring
    rel = mesh.vertices[:, None, :2] - ring[None, :, :]
    cross = edge[None, :, 0] * rel[..., 1] - edge[None, :, 1] * rel[..., 0]
    # every vertex on the same side of all four edges (the outline is convex)
    assert ((cross >= -1e-9).all(axis=1) | (cross <= 1e-9).all(axis=1)).all()
