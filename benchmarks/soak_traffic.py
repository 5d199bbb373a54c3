"""The full autopilot soak: 100 vehicles and 50 AI walkers on the medium town, 20,000 ticks.

Counts what must not happen (vehicles off the road, red lights run, collisions between
autopilot vehicles, walkers off the sidewalks away from a crossing), then runs the same seed
again and compares the per-tick state hashes, and a second seed for its first ticks.

    .venv/bin/python benchmarks/soak_traffic.py [--vehicles 100] [--walkers 50] [--ticks 20000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from world import Map, World, WorldSettings
from world.traffic.scene import TrafficMonitor, populate_traffic

TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"


def run(world_map: Map, vehicles: int, walkers: int, ticks: int, seed: int) -> TrafficMonitor:
    world = World(world_map)
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    monitor = TrafficMonitor(world, populate_traffic(world, vehicles, walkers, seed))
    t0 = time.perf_counter()
    for tick in range(1, ticks + 1):
        world.tick()
        monitor.observe()
        if tick % 2000 == 0 or tick == ticks:
            rate = tick / (time.perf_counter() - t0)
            print(
                f"  seed {seed} tick {tick}: off-road {monitor.off_road}, red runs "
                f"{monitor.red_runs}, collisions {len(monitor.collisions)}, walkers off "
                f"{monitor.walkers_off} ({rate:.0f} ticks/s)",
                flush=True,
            )
    return monitor


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=100)
    parser.add_argument("--walkers", type=int, default=50)
    parser.add_argument("--ticks", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--map", type=Path, default=TOWN)
    args = parser.parse_args()
    world_map = Map.from_file(args.map)
    first = run(world_map, args.vehicles, args.walkers, args.ticks, args.seed)
    again = run(world_map, args.vehicles, args.walkers, args.ticks, args.seed)
    short = min(args.ticks, 200)
    other = run(world_map, args.vehicles, args.walkers, short, args.seed + 1)
    same = again.hashes == first.hashes
    differs = other.hashes != first.hashes[:short]
    print(f"vehicle-ticks off the road: {first.off_road}")
    print(f"red lights run: {first.red_runs}")
    print(f"autopilot collision pairs: {len(first.collisions)} {sorted(first.collisions)}")
    print(f"walker-ticks off the sidewalks away from crossings: {first.walkers_off}")
    print(f"same seed, identical state at every tick: {same}")
    print(f"other seed, different traffic: {differs}")
    return 0 if same and differs else 1


if __name__ == "__main__":
    raise SystemExit(main())
