"""World tick speed: ticks/s for 10, 100 and 300 vehicles (+50 walkers), collisions on.

Vehicles stand on a grid on flat ground (10 m apart) and drive with seeded random
controls; walkers walk between them. A last line puts 100 vehicles and 50 walkers on
the medium town (configs/maps/town_medium.xodr) as `lockstep` runs them: the cars on the
traffic manager's autopilot and the walkers led by AI controllers
(world.traffic.scene.populate_traffic), the traffic lights ticking, every body's ground
from the map's road surface query. Each tick is 0.05 s (5 physics substeps of 0.01 s).
Goal: >= 1500 ticks/s at 100 vehicles + 50 walkers on one core.

Every body must stand on a surface before and after the timed rounds: the ground under
it found, and the foot of its box between 0.25 m below and 0.5 m above that ground. A body
that left the road (and fell, costing the physics nothing) fails the run: the reason is
printed and the exit status is 1, so no figure of falling bodies is ever reported.

CARLA's figures compared against are from CARLA's Docs/adv_benchmarking.md, "CARLA
performance report" (average FPS of its performance_benchmark.py, whose defaults are
synchronous mode and no rendering; CARLA 0.9.x, the dev branch of 2021-01-29, commit
198fa38c, on a Xeon E5-1620 v3 at 3.50 GHz with a GeForce GTX 1080 Ti): 100 vehicles,
physics on and traffic manager off, 34 FPS; physics and traffic manager on, 15 FPS.

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

from world.actors.controls import VehicleControl, WalkerControl
from world.geometry import Location, Rotation, Transform, Vector3D
from world.map.flat_map import FlatMap
from world.map.map import Map
from world.settings import WorldSettings
from world.traffic.scene import populate_traffic
from world.world import World

GOAL_TICKS_PER_S = 1500.0
# CARLA's Docs/adv_benchmarking.md, "CARLA performance report", 100 vehicles (FPS).
CARLA_PHYSICS_100 = 34.0  # physics on, traffic manager off
CARLA_PHYSICS_TM_100 = 15.0  # physics on, traffic manager on
ROUNDS = 3
TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
# The foot of a body's box may lie this far below / above the ground under it (m).
BELOW_GROUND = 0.25
ABOVE_GROUND = 0.5


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


def build_town(vehicles: int, walkers: int, seed: int = 7) -> tuple[World, list, list]:
    """The medium town as `lockstep` runs it: autopilot cars and AI-led walkers."""
    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, vehicles, walkers, seed)
    return world, scene.vehicles, scene.walkers


def drive(world: World, cars: list, ticks: int, seed: int = 11, steer: float | None = 1.0) -> None:
    """Ticks `ticks` times, new seeded random controls for every car every 20 ticks (steering
    up to `steer`); with `steer` None the cars keep their own controllers (the autopilot)."""
    rng = np.random.default_rng(seed)
    for t in range(ticks):
        if steer is not None and t % 20 == 0:
            throttle, turn, brake = rng.random((3, len(cars)))
            for car, th, st, br in zip(cars, throttle, turn, brake, strict=True):
                car.apply_control(
                    VehicleControl(float(th), float(steer * (2 * st - 1)), float(br * (br > 0.8)))
                )
        world.tick()


def off_surface(world: World, bodies: list) -> list[str]:
    """Why bodies are not on a surface: no ground under the foot of its box, or the foot
    more than BELOW_GROUND under or ABOVE_GROUND over it. Empty when all stand on one."""
    if not bodies:
        return []
    feet = []
    for body in bodies:
        location, box = body.get_location(), body.bounding_box
        feet.append((location.x, location.y, location.z + box.location.z - box.extent.z))
    feet = np.array(feet)
    # The query finds surfaces at most 1 m above the point: ask from ABOVE_GROUND up.
    ground = world.get_map().ground(feet + np.array([0.0, 0.0, ABOVE_GROUND]))
    height = feet[:, 2] - ground.z
    reasons = []
    for body, foot, found, dz in zip(bodies, feet, ground.found, height, strict=True):
        if not found:
            reasons.append(f"{body.type_id} {body.id} at z {foot[2]:.2f}: no ground under it")
        elif dz < -BELOW_GROUND or dz > ABOVE_GROUND:
            reasons.append(f"{body.type_id} {body.id}: foot {dz:+.2f} m from the ground")
    return reasons


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
    for vehicles, walkers, town in (
        (10, 50, False),
        (100, 50, False),
        (300, 50, False),
        (100, 50, True),
    ):
        world, cars, people = (build_town if town else build)(vehicles, walkers)
        steer = None if town else 1.0
        drive(world, cars, 20, steer=steer)  # settle
        label = f"{vehicles:4d} vehicles + {walkers:2d} walkers{' on town_medium' if town else ''}"
        if not _on_surface(world, cars + people, label, "before the timed rounds"):
            return 1
        cpu = wall = np.inf
        for _ in range(ROUNDS):
            start, start_cpu = time.perf_counter(), time.process_time()
            drive(world, cars, ticks, steer=steer)
            cpu = min(cpu, time.process_time() - start_cpu)
            wall = min(wall, time.perf_counter() - start)
        if not _on_surface(world, cars + people, label, "after the timed rounds"):
            return 1
        rate = ticks / cpu
        line = (
            f"{label}: {rate:8.1f} ticks/s, "
            f"{rate * vehicles:10.0f} vehicle-updates/s (wall clock {ticks / wall:.0f} ticks/s)"
        )
        if (vehicles, walkers, town) == (100, 50, False):
            line += (
                f"  (goal {GOAL_TICKS_PER_S:.0f} ticks/s, ratio {rate / GOAL_TICKS_PER_S:.2f}; "
                f"CARLA, physics on, {CARLA_PHYSICS_100:.0f} FPS: {rate / CARLA_PHYSICS_100:.0f}x)"
            )
        if town:
            line += (
                f"  (autopilot and AI walkers; CARLA, physics and traffic manager on, "
                f"{CARLA_PHYSICS_TM_100:.0f} FPS: {rate / CARLA_PHYSICS_TM_100:.0f}x)"
            )
        print(line)
    print(
        "CARLA's figures: its Docs/adv_benchmarking.md, 'CARLA performance report', 100 "
        "vehicles (0.9.x dev branch of 2021-01-29, Xeon E5-1620 v3 + GTX 1080 Ti; the "
        "benchmark script's defaults: synchronous, no rendering)"
    )
    return 0


def _on_surface(world: World, bodies: list, label: str, when: str) -> bool:
    """True when every body stands on a surface; else prints why (the run then fails)."""
    reasons = off_surface(world, bodies)
    if reasons:
        print(f"{label}: {len(reasons)} of {len(bodies)} bodies off the road {when}; failing:")
        for reason in reasons[:10]:
            print(f"  {reason}")
    return not reasons


if __name__ == "__main__":
    sys.exit(main(sys.argv))
