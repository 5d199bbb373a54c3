"""Recording overhead: ticks/s with and without the Recorder on the medium town's traffic.

Two worlds made alike (same map, same seed, same traffic) tick in turn, one with
`world.tick()`, one with `Recorder.tick(world)` writing a log with additional data, so both
see the same load on a shared machine. Prints both rates, the share of each recorded tick
spent in `record` (timed alone), and the ratio to the goal: recording at most 10 % of tick
time (issue 11's acceptance). Rates also count only this process's CPU seconds.

    .venv/bin/python benchmarks/bench_recorder.py [--vehicles 100] [--walkers 50] [--ticks 600]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from recorder import Recorder
from world import Map, World, WorldSettings
from world.traffic.scene import populate_traffic

TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
GOAL = 0.10  # recording time / tick time (issue 11)


def _world(args: argparse.Namespace) -> tuple[World, int, int]:
    world = World(Map.from_file(args.map))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, args.vehicles, args.walkers, args.seed)
    return world, len(scene.vehicles), len(scene.walkers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=100)
    parser.add_argument("--walkers", type=int, default=50)
    parser.add_argument("--ticks", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--map", type=Path, default=TOWN)
    parser.add_argument("--no-additional-data", action="store_true")
    args = parser.parse_args()

    plain, vehicles, walkers = _world(args)
    recorded, _, _ = _world(args)
    for _ in range(args.warmup):
        plain.tick()
        recorded.tick()
    recorder = Recorder()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.log"
        recorder.start(recorded, log, args.map.stem, not args.no_additional_data)
        wall = {"plain": 0.0, "recorded": 0.0, "record": 0.0}
        cpu = {"plain": 0.0, "recorded": 0.0, "record": 0.0}
        for _ in range(args.ticks):
            t0, c0 = time.perf_counter(), time.process_time()
            plain.tick()
            t1, c1 = time.perf_counter(), time.process_time()
            recorded.tick()
            t2, c2 = time.perf_counter(), time.process_time()
            recorder.record(recorded)
            t3, c3 = time.perf_counter(), time.process_time()
            wall["plain"] += t1 - t0
            wall["recorded"] += t3 - t1
            wall["record"] += t3 - t2
            cpu["plain"] += c1 - c0
            cpu["recorded"] += c3 - c1
            cpu["record"] += c3 - c2
        recorder.stop()
        size = log.stat().st_size
    n = args.ticks
    share = cpu["record"] / (cpu["recorded"] - cpu["record"])
    print(
        f"map {args.map.name}: {vehicles} autopilot vehicles, {walkers} AI walkers, "
        f"additional data {'off' if args.no_additional_data else 'on'}, {n} ticks"
    )
    print(
        f"  without recording: {n / wall['plain']:.1f} ticks/s ({1e3 * wall['plain'] / n:.2f} ms)"
    )
    print(
        f"  with recording:    {n / wall['recorded']:.1f} ticks/s "
        f"({1e3 * wall['recorded'] / n:.2f} ms; record alone {1e3 * wall['record'] / n:.3f} ms)"
    )
    print(
        f"  CPU seconds only:  {n / cpu['plain']:.1f} vs {n / cpu['recorded']:.1f} ticks/s "
        f"(ratio {cpu['plain'] / cpu['recorded']:.3f}; "
        f"record alone {1e3 * cpu['record'] / n:.3f} ms)"
    )
    print(f"  log: {size / 1e6:.2f} MB, {size / n / 1e3:.1f} kB per frame")
    print(
        f"  record / tick time (CPU): {100 * share:.1f} % (goal <= {100 * GOAL:.0f} %, issue 11): "
        f"{share / GOAL:.2f} of the budget"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
