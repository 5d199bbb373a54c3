"""The ground of the static scene: junction floors and the terrain never rise above a road,
and the floors close the gaps between a junction's lanes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scene_geometry import height_on as _height_on

from world import Map
from world.actors.vehicle_state import CityObjectLabel as Label
from world.scene.junction_fill import FILL_DROP, convex_hull
from world.scene.static_scene import build_static_scene
from world.scene.terrain import TERRAIN_DROP, TERRAIN_REACH

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def medium():
    """town_medium has hills: its crossings stand at seeded heights up to 6 m."""
    town = Map.from_file(REPO / "configs" / "maps" / "town_medium.xodr")
    return town, build_static_scene(town)


def test_the_terrain_stays_below_every_road_and_reaches_past_the_map(medium):
    """Under 600 vertices of the road's surfaces (lane tops, floors and paint: tags Roads,
    Sidewalks, RoadLines, less the upright faces) spread over the town, the terrain is at
    least TERRAIN_DROP lower; and the terrain reaches TERRAIN_REACH past the roads on every side."""
    _, scene = medium
    grid = scene.vertices[scene.triangles[scene.tag == Label.Terrain]]
    grid = grid[np.ptp(grid[..., 2], axis=1) < 5.0]  # the grid, not the roads' skirts
    road = np.isin(scene.tag, [Label.Roads, Label.Sidewalks, Label.RoadLines])
    tops = scene.vertices[scene.triangles[road]]
    u, v = tops[:, 1] - tops[:, 0], tops[:, 2] - tops[:, 0]
    up = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    tops = tops[np.abs(up) > 1e-9]  # not the curbs' faces and skirts, which stand upright
    points = np.unique(tops.reshape(-1, 3), axis=0)
    sample = points[:: max(1, len(points) // 600)]
    under = _height_on(grid, sample[:, :2])
    assert np.isfinite(under).all()
    assert (under <= sample[:, 2] - TERRAIN_DROP + 1e-9).all()
    lo, hi = points[:, :2].min(axis=0), points[:, :2].max(axis=0)
    assert (grid.reshape(-1, 3)[:, :2].min(axis=0) <= lo - TERRAIN_REACH + 1e-9).all()
    assert (grid.reshape(-1, 3)[:, :2].max(axis=0) >= hi + TERRAIN_REACH - 1e-9).all()


def test_junction_floors_close_the_gaps_and_stay_under_the_lanes(shared):
    """Town01's junction 110 (a T of eight connecting roads, road 117 among them): plan
    points every 0.5 m over the hull of its lanes, 1 m inside it; without the floor some lie
    in no lane (the slivers between turns), with it every one is covered; and the floor
    stays FILL_DROP under the lanes over it."""
    town = Map.from_file(shared / "maps" / "carla" / "Town01.xodr")
    scene = build_static_scene(town)
    middle = town.get_waypoint_xodr("117", 1, 10.0).transform.location
    roads = scene.tag == Label.Roads
    corners = scene.vertices[scene.triangles[roads]]
    here = np.isfinite(_height_on(corners, np.array([[middle.x, middle.y]]))[None, :])
    holding = [
        i for i in np.unique(scene.instance[roads]).tolist()
        if np.isfinite(_height_on(corners[scene.instance[roads] == i],
                                  np.array([[middle.x, middle.y]])))[0]
    ]  # fmt: skip
    assert here.all() and len(holding) == 1  # one instance: the junction's
    mine = corners[scene.instance[roads] == holding[0]]
    floor_mask = _floor(mine)
    floor, lane_tops = mine[floor_mask], mine[~floor_mask]
    assert len(floor) and len(lane_tops)
    points = lane_tops.reshape(-1, 3)
    hull = points[convex_hull(points)][:, :2]
    lo, hi = hull.min(axis=0), hull.max(axis=0)
    gx, gy = np.meshgrid(np.arange(lo[0], hi[0], 0.5), np.arange(lo[1], hi[1], 0.5))
    probe = np.stack([gx.ravel(), gy.ravel()], axis=1)
    probe = probe[_inside_ring(hull, probe, margin=1.0)]
    on_lane = _height_on(lane_tops, probe)
    on_floor = _height_on(floor, probe)
    assert (~np.isfinite(on_lane)).sum() > 10  # the lanes alone leave gaps
    assert (np.isfinite(on_lane) | np.isfinite(on_floor)).all()
    both = np.isfinite(on_lane) & np.isfinite(on_floor)
    assert (on_floor[both] <= on_lane[both] - FILL_DROP + 1e-9).all()


def _floor(triangles: np.ndarray) -> np.ndarray:
    """The floor's triangles: axis-aligned grid cells (two corners share x, two share y)."""
    xs, ys = triangles[..., 0], triangles[..., 1]
    same_x = (xs[:, 0] == xs[:, 1]) | (xs[:, 1] == xs[:, 2]) | (xs[:, 0] == xs[:, 2])
    same_y = (ys[:, 0] == ys[:, 1]) | (ys[:, 1] == ys[:, 2]) | (ys[:, 0] == ys[:, 2])
    return same_x & same_y


def _inside_ring(ring: np.ndarray, points: np.ndarray, margin: float) -> np.ndarray:
    a, b = ring, np.roll(ring, -1, axis=0)
    edge = b - a
    length = np.sqrt((edge * edge).sum(axis=1))
    rel = points[:, None, :] - a[None, :, :]
    cross = edge[None, :, 0] * rel[..., 1] - edge[None, :, 1] * rel[..., 0]
    return (cross >= margin * length[None, :]).all(axis=1)
