"""World tick speed: ticks/s for 10, 100 and 300 vehicles (+50 walkers), collisions on.

Vehicles stand on a grid on flat ground (10 m apart) and drive with seeded random
controls; walkers walk between them. Each tick is 0.05 s (5 physics substeps of
0.01 s). Goal: >= 1500 ticks/s at 100 vehicles + 50 walkers on one core.

The first tick of a process loads the compiled substeps from numba's cache
(world/__pycache__), or compiles them when the cache is missing or a kernel's source
changed; the warm-up line prints how long that took. The figures after it are steady
ticks: the best of ROUNDS runs, timed in this process's CPU seconds (one core; time the
process waited for a core on a shared machine is not counted), wall-clock ticks/s after.

    python benchmarks/bench_world.py [TICKS]
    python benchmarks/bench_world.py --determinism   # 1000 ticks of 100 vehicles, twice
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from world.controls import VehicleControl, WalkerControl
from world.flat_map import FlatMap
from world.geometry import Location, Rotation, Transform, Vector3D
from world.settings import WorldSettings
from world.world import World

GOAL_TICKS_PER_S = 1500.0
ROUNDS = 3


def build(vehicles: int, walkers: int, seed: int = 7) -> tuple[World, list, list]:
    """A flat world with `vehicles` cars on a 10 m grid and `walkers` walkers between them."""
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    side = int(np.ceil(np.sqrt(vehicles)))
    library = world.get_blueprint_library()
    cars = [
        world.spawn_actor(
            library.find("vehicle.lincoln.mkz_2017"),
            Transform(
                Location(10.0 * (i % side), 10.0 * (i // side), 0.1), Rotation(0.0, 0.0, 0.0)
            ),
        )
        for i in range(vehicles)
    ]
    people = [
        world.spawn_actor(
            library.find("walker.pedestrian.0001"),
            Transform(Location(10.0 * (i % side) + 5.0, 10.0 * (i // side) + 5.0, 1.0)),
        )
        for i in range(walkers)
    ]
    rng = np.random.default_rng(seed)
    for person in people:
        angle = rng.uniform(0.0, 2.0 * np.pi)
        person.apply_control(WalkerControl(Vector3D(np.cos(angle), np.sin(angle), 0.0), 1.4))
    return world, cars, people


def drive(world: World, cars: list, ticks: int, seed: int = 11) -> None:
    """Ticks `ticks` times, new seeded random controls for every car every 20 ticks."""
    rng = np.random.default_rng(seed)
    for t in range(ticks):
        if t % 20 == 0:
            throttle, steer, brake = rng.random((3, len(cars)))
            for car, th, st, br in zip(cars, throttle, steer, brake, strict=True):
                car.apply_control(
                    VehicleControl(float(th), float(2 * st - 1), float(br * (br > 0.8)))
                )
        world.tick()


def determinism() -> int:
    """Drives 100 vehicles for 1000 seeded ticks twice and compares the state hashes."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from world_determinism_run import run

    start = time.perf_counter()
    first, second = run(100, 1000), run(100, 1000)
    seconds = time.perf_counter() - start
    print(
        f"determinism: 1000 ticks of 100 vehicles twice in {seconds:.1f} s: {first[:16]} "
        f"{second[:16]} {'identical' if first == second else 'DIFFERENT'}"
    )
    return 0 if first == second else 1


WARM_UP = """
import sys, time
start = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from bench_world import build, drive
imported = time.perf_counter()
world, cars, _ = build(2, 1)
ticking = time.perf_counter()
drive(world, cars, 1)
print(imported - start, time.perf_counter() - ticking)
"""


def warm_up() -> tuple[float, float]:
    """A fresh process's import time (numba included) and first tick (the compiled substeps
    loaded from numba's cache, or compiled), in seconds."""
    here = str(Path(__file__).resolve().parent)
    out = subprocess.run(
        [sys.executable, "-c", WARM_UP, here], capture_output=True, text=True, check=True
    )
    imported, first_tick = (float(x) for x in out.stdout.split())
    return imported, first_tick


def main(argv: list[str]) -> int:
    if "--determinism" in argv:
        return determinism()
    ticks = int(argv[1]) if len(argv) > 1 else 400
    imported, first_tick = warm_up()
    print(
        f"warm-up (a fresh process): import {imported:.2f} s (numba included), first tick "
        f"{first_tick:.2f} s (the compiled substeps loaded from the cache, or compiled)"
    )
    for vehicles, walkers in ((10, 50), (100, 50), (300, 50)):
        world, cars, _ = build(vehicles, walkers)
        drive(world, cars, 20)  # settle
        cpu = wall = np.inf
        for _ in range(ROUNDS):
            start, start_cpu = time.perf_counter(), time.process_time()
            drive(world, cars, ticks)
            cpu = min(cpu, time.process_time() - start_cpu)
            wall = min(wall, time.perf_counter() - start)
        rate = ticks / cpu
        line = (
            f"{vehicles:4d} vehicles + {walkers:2d} walkers: {rate:8.1f} ticks/s, "
            f"{rate * vehicles:10.0f} vehicle-updates/s (wall clock {ticks / wall:.0f} ticks/s)"
        )
        if (vehicles, walkers) == (100, 50):
            line += f"  (goal {GOAL_TICKS_PER_S:.0f} ticks/s, ratio {rate / GOAL_TICKS_PER_S:.2f})"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
