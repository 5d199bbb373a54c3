"""Recording overhead: tick time with and without the Recorder on the medium town's traffic.

Two worlds made alike (same map, same seed: autopilot vehicles on the streets, AI walkers
on the sidewalks) tick side by side, one with `world.tick()`, one with `Recorder.tick(world)`
streaming a log with additional data to a file; which goes first alternates tick by tick,
so both see the same load on a shared machine. The recorder starts before the warm-up
(its compiled passes load and the first frame, every existing actor's EventAdd, is
written then; that one-off cost is printed on its own). Then `--rounds` rounds of
`--ticks` ticks: per round the overhead (recorded tick time - plain tick time) / plain tick
time, and the share of `record` alone, timed inside the recorded tick. Prints the median of
the rounds against the goal: recording at most 10 % of tick time (issue 11's acceptance).
Times are this process's CPU seconds (time.process_time: other processes on the machine
do not count); wall-clock figures are printed beside them.

    .venv/bin/python benchmarks/bench_recorder.py [--vehicles 100] [--walkers 50]
        [--rounds 7] [--ticks 200] [--no-additional-data]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from recorder import Recorder
from world import Map, World, WorldSettings
from world.traffic.scene import populate_traffic

TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
GOAL = 0.10  # (recorded tick time - tick time) / tick time (issue 11)


def _world(args: argparse.Namespace) -> tuple[World, int, int]:
    world = World(Map.from_file(args.map))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, args.vehicles, args.walkers, args.seed)
    return world, len(scene.vehicles), len(scene.walkers)


def _round(plain: World, recorded: World, recorder: Recorder, ticks: int, first: int) -> dict:
    """One round: CPU and wall seconds of the plain ticks, the recorded ticks and `record`."""
    cpu = dict.fromkeys(("plain", "recorded", "record"), 0.0)
    wall = dict.fromkeys(("plain", "recorded", "record"), 0.0)
    for k in range(ticks):
        for which in ("plain", "recorded") if (first + k) % 2 == 0 else ("recorded", "plain"):
            c0, t0 = time.process_time(), time.perf_counter()
            if which == "plain":
                plain.tick()
                c1, t1 = c0, t0
            else:
                recorded.tick()
                c1, t1 = time.process_time(), time.perf_counter()
                recorder.record(recorded)
            c2, t2 = time.process_time(), time.perf_counter()
            cpu[which] += c2 - c0
            wall[which] += t2 - t0
            if which == "recorded":
                cpu["record"] += c2 - c1
                wall["record"] += t2 - t1
    return {"cpu": cpu, "wall": wall}


def _overhead(times: dict) -> float:
    return (times["recorded"] - times["plain"]) / times["plain"]


def _share(times: dict) -> float:
    return times["record"] / (times["recorded"] - times["record"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=100)
    parser.add_argument("--walkers", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ticks", type=int, default=200, help="ticks per round")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--map", type=Path, default=TOWN)
    parser.add_argument("--no-additional-data", action="store_true")
    args = parser.parse_args()

    plain, vehicles, walkers = _world(args)
    recorded, _, _ = _world(args)
    recorder = Recorder()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.log"
        c0 = time.process_time()
        recorder.start(recorded, log, args.map.stem, not args.no_additional_data)
        recorder.tick(recorded)
        first_frame = time.process_time() - c0
        plain.tick()
        for _ in range(args.warmup):
            plain.tick()
            recorder.tick(recorded)
        rounds = [
            _round(plain, recorded, recorder, args.ticks, r * args.ticks)
            for r in range(args.rounds)
        ]
        recorder.stop()
        size = log.stat().st_size
        frames = 2 + args.warmup + args.rounds * args.ticks

    n = args.ticks
    print(
        f"map {args.map.name}: {vehicles} autopilot vehicles, {walkers} AI walkers, "
        f"additional data {'off' if args.no_additional_data else 'on'}; "
        f"{args.rounds} rounds of {n} ticks after {args.warmup} warm-up ticks"
    )
    print(f"  start and first frame (every actor added): {1e3 * first_frame:.1f} ms CPU")
    print("  per round, CPU ms per tick: plain / recorded (record alone) -> overhead")
    for k, r in enumerate(rounds):
        cpu = r["cpu"]
        print(
            f"    {k + 1}: {1e3 * cpu['plain'] / n:.3f} / {1e3 * cpu['recorded'] / n:.3f} "
            f"({1e3 * cpu['record'] / n:.3f}) -> {100 * _overhead(cpu):+.1f} %"
        )
    for clock in ("cpu", "wall"):
        plain_ms = statistics.median(1e3 * r[clock]["plain"] / n for r in rounds)
        recorded_ms = statistics.median(1e3 * r[clock]["recorded"] / n for r in rounds)
        record_ms = statistics.median(1e3 * r[clock]["record"] / n for r in rounds)
        name = "CPU (process_time)" if clock == "cpu" else "wall (perf_counter)"
        print(
            f"  median {name}: plain {plain_ms:.3f} ms, recorded {recorded_ms:.3f} ms, "
            f"record alone {record_ms:.3f} ms per tick"
        )
    overhead = statistics.median(_overhead(r["cpu"]) for r in rounds)
    share = statistics.median(_share(r["cpu"]) for r in rounds)
    print(f"  log: {size / 1e6:.2f} MB, {size / frames / 1e3:.1f} kB per frame")
    print(
        f"  overhead (recorded - plain) / plain, median CPU: {100 * overhead:.1f} % "
        f"(goal <= {100 * GOAL:.0f} %, issue 11): {overhead / GOAL:.2f} of the budget"
    )
    print(f"  record alone / the recorded world's tick, median CPU: {100 * share:.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
