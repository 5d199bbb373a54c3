"""No permanent gridlock: traffic left running keeps moving, window after window.

Two scenes, as a user leaves traffic running: 30 autopilot cars and 10 AI walkers on
town_small set up as CARLA's generate_traffic.py does (the map's spawn points shuffled,
random vehicle blueprints, 2.5 m to the leader, 30 % below the limit, walkers that never
cross), and 1,000 cars on the 6x6 town of 200 m blocks (street spawn points). For every
window of 10,000 ticks it prints the share of the spawned vehicles that moved (faster than
0.5 m/s at some tick of the window), the live ones, and how many the traffic manager
removed as stuck (CARLA's rule: docs/autopilot.md); it exits 1 when a window has less than
half of the spawned vehicles moving (a town emptied by the removals fails too).

    .venv/bin/python benchmarks/soak_gridlock.py [--ticks 1000000] [--scene small|grid|both]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from world import Map, Transform, World, WorldSettings  # noqa: E402
from world.actors.vehicle_state import ActorType  # noqa: E402
from world.map.towngen import TownSpec, render_town  # noqa: E402
from world.traffic.scene import populate_traffic  # noqa: E402

WINDOW = 10_000
MOVING = 0.5  # m/s
TOWN_SMALL = REPO / "configs" / "maps" / "town_small.xodr"


def generate_traffic_scene(world: World, vehicles: int, walkers: int, seed: int) -> None:
    """generate_traffic.py's set-up, with a seeded generator of its own."""
    rng = np.random.Generator(np.random.PCG64(seed))
    library = world.get_blueprint_library()
    tm = world.get_trafficmanager(8000)
    tm.set_global_distance_to_leading_vehicle(2.5)
    tm.set_random_device_seed(seed)
    tm.global_percentage_speed_difference(30.0)
    blueprints = sorted(library.filter("vehicle.*"), key=lambda bp: bp.id)
    spots = world.get_map().get_spawn_points()
    for index in rng.permutation(len(spots))[:vehicles].tolist():
        car = world.try_spawn_actor(blueprints[int(rng.integers(len(blueprints)))], spots[index])
        if car is not None:
            car.set_autopilot(True, 8000)
    world.set_pedestrians_seed(seed)
    people = library.filter("walker.pedestrian.*")
    brain = library.find("controller.ai.walker")
    controllers = []
    for _ in range(walkers):
        loc = world.get_random_location_from_navigation()
        walker = world.try_spawn_actor(people[int(rng.integers(len(people)))], Transform(loc))
        if walker is not None:
            controllers.append(world.spawn_actor(brain, Transform(), walker))
    world.tick()
    world.set_pedestrians_cross_factor(0.0)
    for controller in controllers:
        controller.start()
        controller.go_to_location(world.get_random_location_from_navigation())
        controller.set_max_speed(1.4)


def soak(world: World, ticks: int, label: str) -> float:
    """Ticks `ticks` times; the least share of the spawned vehicles moving in a window."""
    worst, moved, t0 = 1.0, None, time.process_time()
    start = len(world.traffic_managers()[0].fleet)
    for tick in range(1, ticks + 1):
        world.tick()
        a = world.state_tables().actors
        n = a.n
        cars = np.flatnonzero(a.alive[:n] & (a.kind[:n] == int(ActorType.Vehicle)))
        if moved is None:
            moved = np.zeros(n, dtype=bool)
        if len(moved) < n:
            moved = np.concatenate([moved, np.zeros(n - len(moved), dtype=bool)])
        speed = np.sqrt(a.vel[cars, 0] ** 2 + a.vel[cars, 1] ** 2)
        moved[cars[speed > MOVING]] = True
        if tick % WINDOW == 0:
            share = float(moved[cars].sum()) / start if start else 1.0
            of_live = float(moved[cars].sum()) / len(cars) if len(cars) else 1.0
            worst = min(worst, share)
            removed = start - len(cars)
            rate = tick / (time.process_time() - t0)
            print(
                f"{label} ticks {tick - WINDOW + 1}-{tick}: {share:.0%} of the {start} spawned "
                f"vehicles moved ({of_live:.0%} of the {len(cars)} live), {removed} removed "
                f"as stuck so far ({rate:.0f} ticks/s)",
                flush=True,
            )
            moved[:] = False
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=1_000_000)
    parser.add_argument("--scene", choices=("small", "grid", "both"), default="both")
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    worst = 1.0
    if args.scene in ("small", "both"):
        world = World(Map.from_file(TOWN_SMALL))
        world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
        generate_traffic_scene(world, 30, 10, args.seed)
        worst = min(worst, soak(world, args.ticks, "town_small 30+10"))
    if args.scene in ("grid", "both"):
        path = Path(tempfile.mkdtemp()) / "grid6.xodr"
        spec = TownSpec(seed=5, blocks_x=6, blocks_y=6, block_size=200.0, lanes=2, name="grid6")
        path.write_text(render_town(spec), encoding="utf-8")
        world = World(Map.from_file(path))
        world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
        populate_traffic(world, 1000, 0, args.seed)
        worst = min(worst, soak(world, args.ticks, "6x6 town 1000"))
    print(f"least share of the spawned vehicles moving in a window: {worst:.0%} (goal >= 50%)")
    return 0 if worst >= 0.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
