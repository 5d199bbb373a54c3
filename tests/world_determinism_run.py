"""A seeded drive of many vehicles whose final state is hashed (the determinism suite).

`python tests/world_determinism_run.py VEHICLES TICKS` prints the hash, so two
processes (with different PYTHONHASHSEED) can be compared with one in-process run.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform
from world.map.flat_map import FlatMap
from world.settings import WorldSettings
from world.world import World


def state_hash(world: World) -> str:
    """sha256 over every column of the actor, vehicle and walker tables, in a fixed order."""
    digest = hashlib.sha256()
    for table in (world._actors, world._vehicles, world._walkers):
        for name, column in table.arrays().items():
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(column).tobytes())
    return digest.hexdigest()


def run(vehicles: int, ticks: int, seed: int = 2024) -> str:
    """Cars 8 m apart in rows, driven with seeded random controls; the final state's hash."""
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    car_bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2017")
    cars = [
        world.spawn_actor(
            car_bp,
            Transform(
                Location(8.0 * (i % 10), 8.0 * (i // 10), 0.05), Rotation(0.0, 36.0 * (i % 10), 0.0)
            ),
        )
        for i in range(vehicles)
    ]
    rng = np.random.default_rng(seed)
    for _ in range(ticks):
        throttle, steer, brake = rng.random((3, vehicles))
        for car, th, st, br in zip(cars, throttle, steer, brake, strict=True):
            car.apply_control(VehicleControl(float(th), float(2.0 * st - 1.0), float(br * 0.3)))
        world.tick()
    return state_hash(world)


if __name__ == "__main__":
    print(run(int(sys.argv[1]), int(sys.argv[2])))
