"""Ticks per second with autopilot vehicles, AI walkers and traffic lights on the medium town.

Prints the whole tick rate (wall clock, and counting only this process's CPU seconds, the
fair figure on a shared machine), the share of each tick phase (traffic manager and walkers,
physics, the rest; the traffic manager phase also split into autopilot and walkers), and the
ratios to the goal (1000 ticks/s) and to CARLA with its traffic manager: 15 FPS at 100
vehicles with physics and traffic manager on, from CARLA's Docs/adv_benchmarking.md, "CARLA
performance report" (average FPS of its performance_benchmark.py, whose defaults are
synchronous mode and no rendering; CARLA 0.9.x, the dev branch of 2021-01-29, commit
198fa38c, on a Xeon E5-1620 v3 at 3.50 GHz with a GeForce GTX 1080 Ti).

    .venv/bin/python benchmarks/bench_traffic.py [--vehicles 100] [--walkers 50] [--ticks 2000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from world import Map, World, WorldSettings
from world.traffic.scene import populate_traffic

TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
GOAL = 1000.0
# CARLA's Docs/adv_benchmarking.md, "CARLA performance report": 100 vehicles, physics and
# traffic manager on (FPS).
CARLA_WITH_TM = 15.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=100)
    parser.add_argument("--walkers", type=int, default=50)
    parser.add_argument("--ticks", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--map", type=Path, default=TOWN)
    args = parser.parse_args()

    world = World(Map.from_file(args.map))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, args.vehicles, args.walkers, args.seed)
    spent: dict[str, float] = {}
    systems = []
    for phase, system in world.tick_systems:

        def timed(w, dt, system=system, phase=phase):
            t0 = time.perf_counter()
            system(w, dt)
            spent[phase] = spent.get(phase, 0.0) + time.perf_counter() - t0

        systems.append((phase, timed))
    world.tick_systems = systems
    parts: dict[str, float] = {}
    owners = [("autopilot", manager) for manager in world.traffic_managers()]
    if scene.walkers:
        owners.append(("walkers", world.walker_ai()))
    for name, owner in owners:
        method = "step" if name == "autopilot" else "tick"
        call = getattr(owner, method)

        def part(dt, call=call, name=name):
            t0 = time.perf_counter()
            call(dt)
            parts[name] = parts.get(name, 0.0) + time.perf_counter() - t0

        setattr(owner, method, part)
    for _ in range(args.warmup):
        world.tick()
    spent.clear()
    parts.clear()
    t0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(args.ticks):
        world.tick()
    total = time.perf_counter() - t0
    cpu_rate = args.ticks / (time.process_time() - cpu0)
    rate = args.ticks / total
    lights = len(world.traffic_signals(required=True).light_ids)
    print(
        f"map {args.map.name}: {len(scene.vehicles)} autopilot vehicles, "
        f"{len(scene.walkers)} AI walkers, {lights} traffic lights"
    )
    print(f"{args.ticks} ticks in {total:.2f} s: {rate:.1f} ticks/s ({1000.0 / rate:.2f} ms/tick)")
    print(f"  counting this process's CPU seconds only (one core): {cpu_rate:.1f} ticks/s")
    for phase, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {phase:16s} {1000.0 * seconds / args.ticks:7.3f} ms/tick  {seconds / total:6.1%}")
        if phase == "traffic_manager":
            for name, part in parts.items():
                share = part / total
                print(f"    {name:14s} {1000.0 * part / args.ticks:7.3f} ms/tick  {share:6.1%}")
    print(f"goal {GOAL:.0f} ticks/s: ratio {rate / GOAL:.3f}")
    ratio = rate / CARLA_WITH_TM
    print(
        f"CARLA with traffic manager, 100 vehicles: {CARLA_WITH_TM:.0f} FPS (its "
        f"Docs/adv_benchmarking.md, CARLA performance report): ratio {ratio:.1f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
