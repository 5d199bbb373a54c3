"""The quickstart evaluation's wall time and its simulated-time / wall-time factor, recording on.

Runs configs/quickstart.yaml (three routes of town_small, 30 autopilot cars, the autopilot
agent, every route recorded to a CARLA log) into a temporary run directory and prints:
the whole evaluation's wall time (loading the map and building the route planner included)
and per route the simulated seconds, the wall seconds and their ratio, with the process CPU
time beside the wall time (the fair figure on a shared machine).

Compared against:
- the goal: >= 200x real time with 30 traffic vehicles (issue 12);
- CARLA's leaderboard: about 0.08x. Its own route summary printed "Duration (System Time)
  4276.92s, Duration (Game Time) 324.25s, Ratio (System Time / Game Time) 0.076" for one
  route on one RTX 3090 (github.com/opendilab/LMDrive/issues/38, 2024-03-26).

    .venv/bin/python benchmarks/bench_runner.py [--config configs/quickstart.yaml]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from runner.config import load_config
from runner.evaluation import evaluate

REPO = Path(__file__).resolve().parent.parent
GOAL = 200.0
CARLA_LEADERBOARD = 0.076  # game s per wall s, LMDrive issue 38 (see the docstring)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=REPO / "configs" / "quickstart.yaml")
    args = parser.parse_args()
    config = load_config(args.config)
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as out:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        outcomes = evaluate(config, Path(out))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        log_bytes = sum(p.stat().st_size for p in Path(out).glob("*.log"))
    game = sum(o.game_seconds for o in outcomes)
    ticks = sum(o.ticks for o in outcomes)
    print(f"config: {args.config.name}, {config.vehicles} traffic vehicles, tick {config.tick} s")
    print(f"{'route':<24} {'ticks':>6} {'sim s':>8} {'wall s':>8} {'sim/wall':>9}")
    for o in outcomes:
        print(
            f"{o.route_id:<24} {o.ticks:>6} {o.game_seconds:>8.2f} {o.wall_seconds:>8.2f} "
            f"{o.game_seconds / o.wall_seconds:>8.1f}x"
        )
    route_wall = sum(o.wall_seconds for o in outcomes)
    print(
        f"evaluation wall time: {wall:.2f} s (CPU {cpu:.2f} s), {ticks} ticks, "
        f"{log_bytes / 1e6:.1f} MB of logs"
    )
    print(
        f"simulated {game:.2f} s: {game / wall:.1f}x real time over the whole evaluation, "
        f"{game / route_wall:.1f}x over the routes, {game / cpu:.1f}x per CPU second"
    )
    factor = game / wall
    print(
        f"goal {GOAL:.0f}x: {factor / GOAL:.2f} of it; CARLA's leaderboard {CARLA_LEADERBOARD}x: "
        f"{factor / CARLA_LEADERBOARD:.0f} times faster"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
