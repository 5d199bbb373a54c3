"""CARLA-style client code driving on CARLA's towns through lockstep's `carla` namespace.

The driver (tests/carla_style_agent.py) plans over `Map.get_topology()` and steers with
PID controllers, as CARLA's BasicAgent does; every drive between seeded spawn-point pairs
must end within 5 m of its goal. The default run drives a few pairs per town; the slow
suite drives 40.
"""

from __future__ import annotations

import numpy as np
import pytest

from runner.carla.binding import bind_carla
from runner.carla.client import configure

GOAL_RADIUS = 5.0
CAR = "vehicle.lincoln.mkz_2017"


def _drive_pairs(shared, town: str, pairs: int, seed: int) -> list[tuple[int, int, float]]:
    from carla_style_agent import Drive, RoutePlanner

    configure([str(shared / "maps" / "carla")])
    bind_carla()
    import carla

    client = carla.Client("localhost", 2000)
    world = client.load_world(town)
    carla_map = world.get_map()
    planner = RoutePlanner(carla_map)
    spawns = carla_map.get_spawn_points()
    rng = np.random.default_rng(seed)
    blueprint = world.get_blueprint_library().find(CAR)
    results = []
    for _ in range(pairs):
        a, b = (int(i) for i in rng.choice(len(spawns), 2, replace=False))
        route = planner.plan(spawns[a].location, spawns[b].location)
        car = world.spawn_actor(blueprint, spawns[a])
        drive = Drive(carla, car, route)
        limit = int(len(route) / (3.0 * 0.05)) + 400  # 3 m/s on average, and 20 s more
        for _tick in range(limit):
            if drive.done():
                break
            car.apply_control(drive.run_step())
            world.tick()
        results.append((a, b, car.get_location().distance(spawns[b].location)))
        car.destroy()
    configure()
    return results


@pytest.mark.parametrize("town", ["Town01", "Town02"])
def test_drives_between_spawn_points_reach_their_goals(shared, town):
    results = _drive_pairs(shared, town, pairs=4, seed=11)
    assert [d < GOAL_RADIUS for _a, _b, d in results] == [True] * 4, results


@pytest.mark.slow
@pytest.mark.parametrize("town", ["Town01", "Town02"])
def test_forty_drives_between_spawn_points_reach_their_goals(shared, town):
    results = _drive_pairs(shared, town, pairs=40, seed=2024)
    assert [d < GOAL_RADIUS for _a, _b, d in results] == [True] * 40, results
