"""Evaluations at scale: tasks/s with one route after another in one process, with a pool
of 2 worker processes, and on a local Ray instance, the speedup (goal >= 1.8x on 2 cores),
and what each costs per task beyond the route itself.

    PYTHONPATH=. python benchmarks/bench_scale.py [--tasks-per-route 4] [--no-ray]

The routes are configs/quickstart.yaml's three (160 m of town_small, among 30 autopilot
cars in the quickstart; 10 here) cut at 30 s of simulated time, so a task is about a
second of work. For each mode: the wall time of the whole evaluation (start-up included:
spawning a worker imports lockstep, Ray starts its processes), and the steady rate, from
the first finished task to the last, which is what a long evaluation sees. Overhead per
task = workers / steady rate - the in-process time per task (CPU seconds a task costs
beyond running its route). "route wall s" is the median wall time of a route inside its
task: when it grows with the workers, the cores were not free (another load on the
machine), not the pool's doing. Results on a shared machine vary; run it on idle cores.
The last line is the in-process evaluation's simulated time over this process's CPU time
(set-up included), against issue 27's goal of 200x per core: on a busy machine it moves
less than the wall-time rates above.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from runner.config import load_config  # noqa: E402
from runner.execution.driver import evaluate  # noqa: E402
from runner.execution.scheduling import InlineScheduler, ProcessPoolScheduler  # noqa: E402

GOAL_SPEEDUP = 1.8
GOAL_PER_CORE = 200  # x real time per core, routes of 10 autopilot cars (issue 27)
WORKERS = 2


def _config(folder: Path, repetitions: int) -> Path:
    quickstart = yaml.safe_load((REPO / "configs" / "quickstart.yaml").read_text())
    data = {
        "name": "bench-scale",
        "seed": 7,
        "map": str(REPO / "configs" / "maps" / "town_small.xodr"),
        "tick": 0.05,
        "repetitions": repetitions,
        "agent": {"entry": "runner.agents.autopilot"},
        "traffic": {"vehicles": 10},
        "limits": {"route_seconds": 30.0},
        "routes": quickstart["routes"],
    }
    path = folder / "bench-scale.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


GAME_SECONDS: list[float] = []  # simulated seconds of each route, from the in-process run
CPU_SECONDS: list[float] = []  # this process's CPU time over the in-process evaluation


def _measure(config, out: Path, scheduler) -> tuple[float, float, int, float]:
    """(wall s of the whole evaluation, steady tasks/s, tasks, median wall s of a route
    inside its task: what contention for the cores does to each route)."""
    stamps: list[float] = []
    began, cpu = time.perf_counter(), time.process_time()
    outcomes = evaluate(
        config, out, scheduler=scheduler, on_progress=lambda c: stamps.append(time.perf_counter())
    )
    wall = time.perf_counter() - began
    if not CPU_SECONDS:
        CPU_SECONDS.append(time.process_time() - cpu)
    done = stamps[1:]  # the first call comes before any task
    steady = (len(done) - 1) / (done[-1] - done[0]) if len(done) > 1 else len(done) / wall
    if not GAME_SECONDS:
        GAME_SECONDS.extend(o.game_seconds for o in outcomes)
    route_walls = sorted(o.wall_seconds for o in outcomes)
    return wall, steady, len(outcomes), route_walls[len(route_walls) // 2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks-per-route", type=int, default=6, help="repetitions of each")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray measurement")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, workers: {WORKERS}, load average: {os.getloadavg()[0]:.2f}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
        folder = Path(scratch)
        config = load_config(_config(folder, args.tasks_per_route))
        modes = [("1 process", 1, InlineScheduler()), ("2 workers", WORKERS, None)]
        for name, workers, scheduler in modes:
            scheduler = scheduler or ProcessPoolScheduler(workers)
            rows.append((name, workers, *_measure(config, folder / name, scheduler)))
        if not args.no_ray:
            try:
                import ray

                from runner.execution.ray_scheduler import RayScheduler
            except ImportError:
                print("ray is not installed: no Ray figures (pip install 'lockstep[ray]')")
            else:
                t0 = time.perf_counter()
                ray.init(num_cpus=WORKERS, include_dashboard=False, log_to_driver=False)
                init = time.perf_counter() - t0
                noop = ray.remote(lambda: None)
                ray.get(noop.remote())
                t0 = time.perf_counter()
                ray.get([noop.remote() for _ in range(200)])
                round_trip = (time.perf_counter() - t0) / 200
                measured = _measure(config, folder / "ray", RayScheduler())
                rows.append((f"Ray ({WORKERS} CPUs)", WORKERS, *measured))
                ray.shutdown()
                print(
                    f"ray.init (local): {init:.1f} s; an empty remote call: "
                    f"{round_trip * 1000:.2f} ms each (200 in flight)"
                )
    per_task = 1 / rows[0][3]  # in-process steady time per task
    print(
        f"{'mode':<16} {'tasks':>5} {'wall s':>7} {'tasks/s':>8} {'speedup':>8} "
        f"{'steady/s':>9} {'speedup':>8} {'overhead/task':>14} {'route wall s':>13}"
    )
    for name, workers, wall, steady, tasks, route_wall in rows:
        overhead = workers / steady - per_task
        print(
            f"{name:<16} {tasks:>5} {wall:>7.2f} {tasks / wall:>8.2f} {rows[0][2] / wall:>7.2f}x "
            f"{steady:>9.2f} {steady / rows[0][3]:>7.2f}x {overhead * 1000:>11.0f} ms "
            f"{route_wall:>13.2f}"
        )
    speedup = rows[1][3] / rows[0][3]
    verdict = "meets" if speedup >= GOAL_SPEEDUP else "misses"
    print(
        f"2-worker steady speedup: {speedup:.2f}x ({verdict} the {GOAL_SPEEDUP}x goal); "
        f"in-process steady time per task: {per_task:.2f} s"
    )
    game = sum(GAME_SECONDS) / len(GAME_SECONDS)
    print(f"simulated time per route: {game:.1f} s, {game / per_task:.0f}x real time per core")
    print(
        f"in one process, by CPU time (the figure a busy machine disturbs least): "
        f"{sum(GAME_SECONDS):.1f} simulated s in {CPU_SECONDS[0]:.2f} CPU s, set-up included: "
        f"{sum(GAME_SECONDS) / CPU_SECONDS[0]:.0f}x real time per CPU second "
        f"(goal {GOAL_PER_CORE}x, issue 27)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
