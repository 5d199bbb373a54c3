"""The autopilot's lane paths are built once per Map and shared by every traffic manager on it;
each world's lights and signs are marked on paths of its own. The street spawn points are
worked out once per Map too, and handed out as fresh Transforms."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from world import Map, World
from world.traffic.autopilot.lane_paths import LanePaths
from world.traffic.autopilot.manager import street_spawn_points

TOWN_SMALL = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"


def _fleet_paths(world: World):
    """The lane paths of the fleet of the world's traffic manager."""
    return world.get_trafficmanager().fleet.paths


def test_the_paths_of_a_map_are_built_once():
    town = Map.from_file(TOWN_SMALL)
    assert LanePaths.of_map(town) is LanePaths.of_map(town)
    assert LanePaths.of_map(Map.from_file(TOWN_SMALL)) is not LanePaths.of_map(town)


def test_two_worlds_share_the_geometry_and_mark_their_own_lights():
    town = Map.from_file(TOWN_SMALL)
    first, second = _fleet_paths(World(town)), _fleet_paths(World(town))
    shared = LanePaths.of_map(town)
    for paths in (first, second):
        assert paths.points is shared.points and paths.conflict_flat is shared.conflict_flat
        assert paths.light is not shared.light
    assert (shared.light == -1).all() and not shared.give_way.any()
    assert (first.light >= 0).any() and first.give_way.any()


def test_shared_paths_equal_paths_built_alone():
    town = Map.from_file(TOWN_SMALL)
    world = World(town)
    cached = _fleet_paths(world)
    alone = LanePaths(town, *_signal_boxes(world))
    for name, value in vars(alone).items():
        mine = getattr(cached, name)
        if isinstance(value, np.ndarray):
            assert np.array_equal(mine, value), name
        else:
            assert mine == value, name


def _signal_boxes(world: World):
    """The (centre, owner) boxes of lights and of signs, as the fleet reads them."""
    from world.traffic.signals.system import BOX_EFFECT, BOX_LIGHT

    lights, signs = [], []
    for box in world._traffic.boxes:
        loc = box.transform.location
        centre = np.array([loc.x, loc.y, loc.z])
        if box.kind == BOX_LIGHT:
            lights.append((centre, box.owner))
        elif box.kind == BOX_EFFECT:
            signs.append((centre, box.owner))
    return lights, signs


def test_street_spawn_points_are_fresh_transforms_of_the_same_points():
    town = Map.from_file(TOWN_SMALL)
    first = street_spawn_points(town)
    first[0].location.x += 100.0  # a caller's change stays its own
    again = street_spawn_points(town)
    fresh = street_spawn_points(Map.from_file(TOWN_SMALL))
    assert again == fresh and again[0] != first[0] and again[1] == first[1]
    assert all(a is not b for a, b in zip(first, again, strict=True))
    wider = street_spawn_points(town, spacing=24.0)
    assert len(fresh) > len(wider) > 0


def test_closest_approaches_are_the_least_point_distances():
    paths = LanePaths.of_map(Map.from_file(TOWN_SMALL))
    junction = int(np.bincount(paths.junction[paths.junction >= 0]).argmax())  # the busiest
    members = np.flatnonzero(paths.junction == junction).tolist()
    gaps = paths._closest_approaches(members)
    for x, p in enumerate(members):
        a = paths.points[paths.first[p] : paths.first[p] + paths.count[p], :2]
        for y in range(x + 1, len(members)):
            q = members[y]
            b = paths.points[paths.first[q] : paths.first[q] + paths.count[q], :2]
            assert gaps[x, y] == np.min(np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1))
    crossing = paths.conflict_matrix(members)
    assert crossing.any() and not crossing.all()


def test_conflicts_are_kept_per_junction_and_follow_the_rule():
    # the rule, pair by pair over all the map's paths: two paths of one junction conflict
    # when some point of one comes within CONFLICT_DISTANCE of a point of the other and they
    # leave from no common lane; paths of two junctions, or outside any, never do
    paths = LanePaths.of_map(Map.from_file(TOWN_SMALL))
    n = len(paths)
    junction_paths = np.flatnonzero(paths.junction >= 0).tolist()
    seen = 0
    for p in junction_paths:
        a = paths.points[paths.first[p] : paths.first[p] + paths.count[p], :2]
        for q in junction_paths:
            b = paths.points[paths.first[q] : paths.first[q] + paths.count[q], :2]
            near = (
                p != q
                and paths.junction[p] == paths.junction[q]
                and len(a) > 0
                and len(b) > 0
                and np.min(np.linalg.norm(a[:, None, :] - b[None, :, :], axis=-1)) < 2.5
                and not set(paths.predecessors[p]) & set(paths.predecessors[q])
            )
            assert paths.conflict(p, q) == near
            seen += near
    assert seen > 0
    outside = int(np.flatnonzero(paths.junction < 0)[0])
    assert not any(paths.conflict(outside, q) for q in range(n))
    # one small matrix per junction: the table holds the sum of their squares, not n * n
    sizes = np.bincount(paths.junction[paths.junction >= 0])
    assert len(paths.conflict_flat) == int((sizes * sizes).sum()) < n * n // 4
