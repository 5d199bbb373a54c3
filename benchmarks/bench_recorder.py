"""Recording overhead: tick time with and without the Recorder on the medium town's traffic.

Two worlds made alike (same map, same seed: autopilot vehicles on the streets, AI walkers
on the sidewalks) tick side by side, one with `world.tick()`, one with `world.tick()` then
`Recorder.record(world)` streaming a log with additional data to a file; which goes first
alternates tick by tick, so both see the same load on a shared machine, and tick k of one
is the same simulated tick as tick k of the other. The recorder starts before the warm-up
(its compiled pass loads and the first frame, every existing actor's EventAdd, is written
then; that one-off cost is printed on its own). Then `--rounds` rounds of `--ticks` ticks.

Every tick is timed on its own, in this process's CPU seconds (time.process_time: other
processes do not count; wall-clock figures beside them), and the verdict takes medians
over all ticks, which a burst of load on the machine, a garbage collection or a page fault
in a few ticks does not move: the overhead is the median of (recorded tick - plain tick) of
the same simulated tick over the median plain tick, against issue 11's goal of at most
10 %; `record` alone is timed inside the recorded tick (its figure holds one reading of the
clock, whose cost after a tick is printed too). Last, the write the recorder makes each
frame is timed alone: after each of `--ticks` more plain ticks, one write of a frame's bytes
and the previous frame's again (what the recorder hands the OS) at the end of a scratch
file; and, for comparison, the frame's bytes alone.

    .venv/bin/python benchmarks/bench_recorder.py [--vehicles 100] [--walkers 50]
        [--rounds 7] [--ticks 200] [--no-additional-data]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from recorder import Recorder
from world import Map, World, WorldSettings
from world.traffic.scene import populate_traffic

TOWN = Path(__file__).resolve().parent.parent / "configs" / "maps" / "town_medium.xodr"
GOAL = 0.10  # (recorded tick time - tick time) / tick time (issue 11)
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def _world(args: argparse.Namespace) -> tuple[World, int, int]:
    world = World(Map.from_file(args.map))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, args.vehicles, args.walkers, args.seed)
    return world, len(scene.vehicles), len(scene.walkers)


def _round(plain: World, recorded: World, recorder: Recorder, ticks: int, first: int) -> dict:
    """One round: each tick's CPU and wall seconds, plain, recorded and `record` alone."""
    out = {clock: {"plain": [], "recorded": [], "record": []} for clock in CLOCKS}
    cpu, wall = out["cpu"], out["wall"]
    for k in range(ticks):
        for which in ("plain", "recorded") if (first + k) % 2 == 0 else ("recorded", "plain"):
            c0, t0 = time.process_time(), time.perf_counter()
            if which == "plain":
                plain.tick()
                c2, t2 = time.process_time(), time.perf_counter()
            else:
                recorded.tick()
                c1, t1 = time.process_time(), time.perf_counter()
                recorder.record(recorded)
                c2, t2 = time.process_time(), time.perf_counter()
                cpu["record"].append(c2 - c1)
                wall["record"].append(t2 - t1)
            cpu[which].append(c2 - c0)
            wall[which].append(t2 - t0)
    return out


def _clock_reading(world: World, ticks: int) -> float:
    """CPU seconds of one process_time reading right after a tick (median)."""
    spans = []
    for _ in range(ticks):
        world.tick()
        c0 = time.process_time()
        spans.append(time.process_time() - c0)
    return statistics.median(spans)


def _write_alone(world: World, folder: Path, frame: int, ticks: int, again: bool) -> float:
    """CPU seconds of the recorder's write done alone after a tick (median): `frame` new
    bytes appended to a scratch file in one write that starts `frame` bytes back, at the
    last frame's duration, as the recorder writes the last frame again with its own (or,
    not `again`, the new bytes alone)."""
    data = np.full(2 * frame, 7, np.uint8)
    spans = []
    fd = os.open(folder / "scratch.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.pwrite(fd, data[:frame], 0)
        for k in range(ticks):
            world.tick()
            c0 = time.process_time()
            if again:
                os.pwrite(fd, data, k * frame)
            else:
                os.pwrite(fd, data[:frame], (k + 1) * frame)
            spans.append(time.process_time() - c0)
    finally:
        os.close(fd)
    return statistics.median(spans)


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
        clock = _clock_reading(plain, args.ticks)
        write = _write_alone(plain, Path(tmp), round(size / frames), args.ticks, True)
        append = _write_alone(plain, Path(tmp), round(size / frames), args.ticks, False)

    n = args.ticks
    print(
        f"map {args.map.name}: {vehicles} autopilot vehicles, {walkers} AI walkers, "
        f"additional data {'off' if args.no_additional_data else 'on'}; "
        f"{args.rounds} rounds of {n} ticks after {args.warmup} warm-up ticks"
    )
    print(f"  start and first frame (every actor added): {1e3 * first_frame:.1f} ms CPU")
    print("  per round, median CPU us per tick: plain / recorded (record alone) -> overhead")
    for k, r in enumerate(rounds):
        cpu = r["cpu"]
        plain_us = 1e6 * statistics.median(cpu["plain"])
        extra = 1e6 * statistics.median(np.subtract(cpu["recorded"], cpu["plain"]))
        print(
            f"    {k + 1}: {plain_us:.0f} / {1e6 * statistics.median(cpu['recorded']):.0f} "
            f"({1e6 * statistics.median(cpu['record']):.1f}) -> {100 * extra / plain_us:+.1f} %"
        )
    figures = {}
    for name in CLOCKS:
        every = {key: np.concatenate([r[name][key] for r in rounds]) for key in rounds[0][name]}
        figures[name] = {
            "plain": float(np.median(every["plain"])),
            "extra": float(np.median(every["recorded"] - every["plain"])),
            "record": float(np.median(every["record"])),
        }
        f = figures[name]
        label = "CPU (process_time)" if name == "cpu" else "wall (perf_counter)"
        print(
            f"  all {len(every['plain'])} ticks, medians, {label}: plain tick "
            f"{1e3 * f['plain']:.3f} ms, recorded - plain {1e6 * f['extra']:.1f} us, "
            f"record alone {1e6 * f['record']:.1f} us"
        )
    cpu = figures["cpu"]
    overhead = cpu["extra"] / cpu["plain"]
    print(f"  log: {size / 1e6:.2f} MB, {size / frames / 1e3:.1f} kB per frame")
    print(
        f"  record alone, median CPU: {1e6 * cpu['record']:.1f} us per tick "
        f"({100 * cpu['record'] / cpu['plain']:.1f} % of the plain tick), of which: one clock "
        f"reading {1e6 * clock:.1f} us; its write alone (the OS taking "
        f"{2 * size / frames / 1e3:.1f} kB, {size / frames / 1e3:.1f} kB of them new) "
        f"{1e6 * write:.1f} us (the new bytes alone: {1e6 * append:.1f} us)"
    )
    print(
        f"  overhead (recorded - plain) / plain, median CPU: {100 * overhead:.1f} % "
        f"(goal <= {100 * GOAL:.0f} %, issue 11): {overhead / GOAL:.2f} of the budget"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
