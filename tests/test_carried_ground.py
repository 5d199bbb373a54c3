"""Ground outside the lanes (world.map.carried_ground) and the world's kill height."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from world import Location, Map, Rotation, Transform, VehicleControl, World, WorldSettings
from world.map.carried_ground import KILL_DEPTH, _height

MAPS = Path(__file__).resolve().parent.parent / "configs" / "maps"
CAR = "vehicle.lincoln.mkz_2017"


def _world(name: str) -> World:
    world = World(Map.from_file(MAPS / f"{name}.xodr"))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    return world


def _off_road_point(world_map: Map, rng: np.random.Generator) -> np.ndarray:
    """A seeded point no lane covers, within 30 m of a road."""
    seg = world_map._ground().segments
    for _ in range(10000):
        k = int(rng.integers(len(seg)))
        p = seg.a[k] + rng.uniform(-30.0, 30.0, 3) * np.array([1.0, 1.0, 0.0])
        if not world_map.ground((p + np.array([0.0, 0.0, 0.5]))[None]).found[0]:
            return p
    raise AssertionError("no off-road point found")


def test_the_carried_height_is_the_nearest_centre_line_height_at_the_corners():
    world_map = Map.from_file(MAPS / "town_medium.xodr")  # hills: heights differ
    ground = world_map.carried_ground()
    grid = world_map._ground()
    rng = np.random.default_rng(3)
    nx, ny = ground.z.shape
    for _ in range(200):
        i, j = int(rng.integers(nx)), int(rng.integers(ny))
        x, y = ground.x0 + i * ground.cell, ground.y0 + j * ground.cell
        # at a corner the bilinear height is the corner's own: the height of the centre
        # line point nearest to it, searched from the lowest road's height, then again
        # from the height that found
        z = min(grid.segments.a[:, 2].min(), grid.segments.b[:, 2].min())
        for _search in range(2):
            seg, u, _ = grid.nearest(np.array([[x, y, z]]))
            a, b = grid.segments.a[seg[0]], grid.segments.b[seg[0]]
            z = a[2] + u[0] * (b[2] - a[2])
        assert _height(ground, x, y) == pytest.approx(z, abs=1e-9)
    assert ground.kill_z == pytest.approx(grid.segments.a[:, 2].min() - KILL_DEPTH)


def test_a_car_set_down_off_the_road_rests_on_the_carried_ground():
    world = _world("town_medium")
    rng = np.random.default_rng(5)
    point = _off_road_point(world.get_map(), rng)
    height = _height(world.get_map().carried_ground(), point[0], point[1])
    car = world.spawn_actor(
        world.get_blueprint_library().find(CAR),
        Transform(Location(point[0], point[1], height + 0.5), Rotation()),
    )
    for _ in range(100):
        world.tick()
    assert car.is_alive
    assert car.get_location().z == pytest.approx(height, abs=0.05)


def test_a_car_driven_off_a_corner_stays_on_the_ground():
    world = _world("town_small")
    spawn = world.get_map().get_spawn_points()[0]
    car = world.spawn_actor(world.get_blueprint_library().find(CAR), spawn)
    car.apply_control(VehicleControl(throttle=0.6, steer=0.35))  # off the road to the right
    lowest = np.inf
    left_the_lanes = False
    for _ in range(600):
        world.tick()
        here = car.get_location()
        lowest = min(lowest, here.z)
        probe = np.array([[here.x, here.y, here.z + 0.5]])
        left_the_lanes |= not world.get_map().ground(probe).found[0]
    assert left_the_lanes
    assert lowest > -0.2  # town_small is flat at z = 0: the car never falls below it


def test_a_body_below_the_kill_height_is_destroyed_with_a_warning():
    world = _world("town_small")
    spawn = world.get_map().get_spawn_points()[0]
    car = world.spawn_actor(world.get_blueprint_library().find(CAR), spawn)
    car.set_location(Location(spawn.location.x, spawn.location.y, -KILL_DEPTH - 1.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        world.tick()
    assert not car.is_alive
    assert any("kill height" in str(w.message) for w in caught)


def test_a_body_placed_below_with_physics_or_gravity_off_stays():
    # CARLA's logs hold actors 500 m down (the replayer places them there with gravity
    # off): nothing makes them fall, so the kill height leaves them be
    world = _world("town_small")
    spawns = world.get_map().get_spawn_points()
    cars = [world.spawn_actor(world.get_blueprint_library().find(CAR), p) for p in spawns[:2]]
    cars[0].set_simulate_physics(False)
    cars[1].set_enable_gravity(False)
    for car, spawn in zip(cars, spawns, strict=False):
        car.set_location(Location(spawn.location.x, spawn.location.y, -KILL_DEPTH - 400.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        world.tick()
    assert all(car.is_alive for car in cars)
    assert not any("kill height" in str(w.message) for w in caught)
