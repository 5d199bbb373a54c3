"""AI walkers on the small town: navigation points, routes on sidewalks, controller calls."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from world import (
    Actor,
    LaneType,
    Map,
    Transform,
    WalkerAIController,
    World,
    WorldError,
    WorldSettings,
)
from world.traffic.scene import TrafficMonitor, TrafficScene
from world.traffic.walkers.navigation import NODE_SPACING, WalkerNavigation

TOWN_SMALL = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"


@pytest.fixture(scope="module")
def town_map() -> Map:
    return Map.from_file(TOWN_SMALL)


def town(world_map: Map) -> World:
    world = World(world_map)
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    return world


def test_navigation_nodes_lie_on_sidewalks_and_crosswalks_join_them(town_map):
    nav = WalkerNavigation(town_map)
    sidewalk = nav.lane_of >= 0
    proj = town_map.project_batch(nav.points[sidewalk], LaneType.Sidewalk)
    assert proj.inside.all()
    # consecutive nodes of one lane are at most NODE_SPACING * 1.5 apart
    same = nav.lane_of[1:] == nav.lane_of[:-1]
    step = np.linalg.norm(np.diff(nav.points[:, :2], axis=0), axis=1)[same & sidewalk[1:]]
    assert step.max() <= 1.5 * NODE_SPACING
    # town_small has 16 crosswalks (docs/towns.md): each one becomes a crossing
    assert len(nav.crossings) == 16
    for a, b in nav.crossings:
        # a crosswalk spans the driving lanes: 2 x 3.5 m on one-lane streets, plus up to
        # 1 m of the sidewalk on each side
        assert 6.5 <= np.linalg.norm(nav.points[a, :2] - nav.points[b, :2]) <= 9.5


def test_random_locations_repeat_for_a_seed_and_lie_on_sidewalks(town_map):
    first, second, other = town(town_map), town(town_map), town(town_map)
    for world in (first, second):
        world.set_pedestrians_seed(5)
    other.set_pedestrians_seed(6)

    def draw(world):
        return [world.get_random_location_from_navigation() for _ in range(10)]

    a, b, c = draw(first), draw(second), draw(other)
    assert a == b
    assert a != c
    pts = np.array([[p.x, p.y, p.z] for p in a])
    assert town_map.project_batch(pts, LaneType.Sidewalk).inside.all()


def test_the_worlds_on_one_map_share_its_navigation(town_map):
    first, second = town(town_map), town(town_map)
    for world in (first, second):
        world.get_random_location_from_navigation()
    shared = first._walker_ai.navigation
    assert second._walker_ai.navigation is shared
    assert WalkerNavigation.of_map(town_map) is shared
    assert WalkerNavigation.of_map(Map.from_file(TOWN_SMALL)) is not shared
    alone = WalkerNavigation(town_map)
    assert np.array_equal(alone.points, shared.points)
    assert alone.crossings == shared.crossings


def _walkers(world, n, cross):
    library = world.get_blueprint_library()
    world.set_pedestrians_seed(2)
    world.set_pedestrians_cross_factor(cross)
    scene = TrafficScene()
    while len(scene.walkers) < n:
        loc = world.get_random_location_from_navigation()
        loc.z += 1.0
        walker = world.try_spawn_actor(library.find("walker.pedestrian.0001"), Transform(loc))
        if walker is None:
            continue
        controller = world.spawn_actor(library.find("controller.ai.walker"), Transform(), walker)
        assert isinstance(controller, WalkerAIController)
        scene.walkers.append(walker)
        scene.controllers.append(controller)
    for controller in scene.controllers:
        controller.start()
        controller.go_to_location(world.get_random_location_from_navigation())
    return scene


def test_walkers_keep_to_sidewalks_except_at_crossings(town_map):
    world = town(town_map)
    scene = _walkers(world, 8, cross=1.0)
    monitor = TrafficMonitor(world, scene)
    start = np.array([[w.get_location().x, w.get_location().y] for w in scene.walkers])
    for _ in range(600):
        world.tick()
        monitor.observe()
    assert monitor.walkers_off == 0
    moved = np.array([[w.get_location().x, w.get_location().y] for w in scene.walkers]) - start
    assert (np.linalg.norm(moved, axis=1) > 5.0).all()
    # they walk at the default 1.4 m/s (or stand while turning at a route point)
    speeds = [np.hypot(w.get_velocity().x, w.get_velocity().y) for w in scene.walkers]
    assert max(speeds) == pytest.approx(1.4, abs=1e-5)


def test_max_speed_stop_and_errors(town_map):
    world = town(town_map)
    scene = _walkers(world, 2, cross=0.0)
    fast, halted = scene.controllers
    fast.set_max_speed(2.5)
    halted.stop()
    for _ in range(20):
        world.tick()
    v = scene.walkers[0].get_velocity()
    assert np.hypot(v.x, v.y) == pytest.approx(2.5, abs=1e-5)
    v = scene.walkers[1].get_velocity()
    assert np.hypot(v.x, v.y) == 0.0
    with pytest.raises(WorldError, match="start"):
        halted.go_to_location(world.get_random_location_from_navigation())
    loose = world.spawn_actor(
        world.get_blueprint_library().find("controller.ai.walker"), Transform()
    )
    with pytest.raises(WorldError, match="attached to a walker"):
        loose.start()
    with pytest.raises(WorldError, match=r"0\.\.1"):
        world.set_pedestrians_cross_factor(1.5)


def test_the_world_hands_out_controllers_as_walker_ai_controllers(town_map):
    world = town(town_map)
    scene = _walkers(world, 2, cross=0.0)
    ids = [c.id for c in scene.controllers]
    # every way of getting an actor back gives the controller handle with its methods
    assert all(type(world.get_actor(i)) is WalkerAIController for i in ids)
    found = [a for a in world.get_actors() if a.type_id == "controller.ai.walker"]
    assert [a.id for a in found] == ids
    assert all(type(a) is WalkerAIController for a in found)
    assert [world.get_actor(i).parent for i in ids] == scene.walkers
    assert repr(world.get_actor(ids[0])) == f"WalkerAIController(id={ids[0]})"
    # a blueprint of another kind with no handle of its own stays a plain Actor
    prop = world.spawn_actor(world.get_blueprint_library().find("util.actor.empty"), Transform())
    assert type(prop) is Actor and type(world.get_actor(prop.id)) is Actor
