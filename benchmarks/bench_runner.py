"""The quickstart evaluation's wall time and its simulated-time / wall-time factor, recording on.

Times the whole `lockstep run CONFIG` command as a user runs it, in a fresh process:
Python's start-up and imports, the compiled kernels' load, the map load, the route
planner's build, every route (world, traffic, agent, criteria, recorder) and results.json.
One untimed run first (it writes Python's bytecode cache, as a user's first run does, and
says whether it had to compile kernels), then `--repeat` timed runs: prints the median
run's wall time, the fastest and slowest, the simulated seconds of all routes
(results.json's duration_game), their ratio, and the process CPU time beside the wall time
(the fair figure on a shared machine). Then, unless --no-breakdown, a second run in this process
with a CPU stopwatch around each stage: planner build, route trace (with the lane index's
first query, which loads its compiled kernel), world tick (the first loads the physics
kernels), agent, criteria, recorder; the rest is the world's and the traffic's start-up,
scoring and files.

Compared against:
- the goal: >= 200x real time with 30 traffic vehicles (issue 12);
- CARLA's leaderboard: about 0.08x. Its own route summary printed "Duration (System Time)
  4276.92s, Duration (Game Time) 324.25s, Ratio (System Time / Game Time) 0.076" for one
  route on one RTX 3090 (github.com/opendilab/LMDrive/issues/38, 2024-03-26).

The kernels compile once per install (`lockstep warmup`); a run that compiled them says
so, and its figure is not the steady one.

    .venv/bin/python benchmarks/bench_runner.py [--config configs/quickstart.yaml]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOAL = 200.0
CARLA_LEADERBOARD = 0.076  # game s per wall s, LMDrive issue 38 (see the docstring)
COMPILING = "compiling lockstep's kernels"


def run_cli(config: Path, out: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one `lockstep run` process, and its stderr."""
    paths = [str(REPO), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # Python keeps its bytecode, as by default
    command = [sys.executable, "-m", "runner.cli", "run", str(config), "-o", str(out)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"lockstep run failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr


def simulated(out: Path) -> tuple[list[tuple[str, float, float]], float]:
    """(route id, simulated s, route wall s) per route from results.json, and the total."""
    checkpoint = json.loads((out / "results.json").read_text())["_checkpoint"]
    routes = [
        (r["route_id"], float(r["meta"]["duration_game"]), float(r["meta"]["duration_system"]))
        for r in checkpoint["records"]
    ]
    return routes, sum(game for _, game, _ in routes)


def breakdown(config_path: Path) -> dict[str, float]:
    """CPU seconds per stage of one in-process evaluation (stopwatches around each stage)."""
    import recorder.live.recorder as recorder_module
    import runner.criteria as criteria_module
    import runner.execution.driver as driver
    import runner.map_store as map_store
    import runner.planner as planner
    import runner.route as route_module
    import world.world as world_module
    from runner.config import load_config

    spent: dict[str, float] = {}

    def timed(owner: object, name: str, stage: str) -> None:
        inner: Callable = getattr(owner, name)

        def stopwatch(*args, **kwargs):
            began = time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[stage] = spent.get(stage, 0.0) + time.process_time() - began

        setattr(owner, name, stopwatch)

    timed(planner.GlobalRoutePlanner, "__init__", "planner build")
    timed(planner.GlobalRoutePlanner, "trace_route", "route trace")
    timed(world_module.World, "tick", "world tick")
    load_agent_class = route_module.load_agent_class

    def timed_agent_class(entry: str) -> type:
        cls = load_agent_class(entry)
        if not getattr(cls, "_bench_timed", False):
            timed(cls, "run_step", "agent")
            cls._bench_timed = True
        return cls

    route_module.load_agent_class = timed_agent_class
    timed(criteria_module.RouteCriteria, "update", "criteria")
    timed(recorder_module.Recorder, "record", "recorder")
    map_store.clear()  # the map and planner come again from the disk store, as in a fresh process
    config = load_config(config_path)
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as out:
        began = time.process_time()
        driver.evaluate(config, Path(out))
        spent["evaluation"] = time.process_time() - began
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=REPO / "configs" / "quickstart.yaml")
    parser.add_argument("--no-breakdown", action="store_true", help="skip the staged run")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (default 5)")
    args = parser.parse_args()
    config = args.config.resolve()
    from runner.config import load_config

    loaded = load_config(config)
    vehicles, tick = loaded.vehicles, loaded.tick
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as tmp:
        _, _, first_stderr = run_cli(config, Path(tmp) / "first")
        timed = []
        for k in range(max(1, args.repeat)):
            out = Path(tmp) / f"run{k}"
            timed.append((*run_cli(config, out), out))
        timed.sort(key=lambda t: t[0])
        wall, cpu, stderr, out = timed[len(timed) // 2]
        routes, game = simulated(out)
        log_bytes = sum(p.stat().st_size for p in out.glob("*.log"))
        spread = f"fastest {timed[0][0]:.2f} s, slowest {timed[-1][0]:.2f} s of {len(timed)}"
    print(f"config: {config.name}, {vehicles} traffic vehicles, tick {tick} s, recording on")
    print(f"{'route':<24} {'sim s':>8} {'wall s':>8} {'sim/wall':>9}")
    for route_id, route_game, route_wall in routes:
        print(
            f"{route_id:<24} {route_game:>8.2f} {route_wall:>8.2f} {route_game / route_wall:>8.1f}x"
        )
    if COMPILING in first_stderr:
        print("(the untimed first run compiled the kernels: run `lockstep warmup` first)")
    print(
        f"`lockstep run` process, the median run: {wall:.2f} s wall (CPU {cpu:.2f} s; "
        f"{spread}), {log_bytes / 1e6:.1f} MB of logs"
        + ("  [includes a kernel compile]" if COMPILING in stderr else "")
    )
    factor = game / wall
    print(
        f"simulated {game:.2f} s: {factor:.1f}x real time over the whole process, "
        f"{game / sum(r[2] for r in routes):.1f}x over the routes, {game / cpu:.1f}x per CPU s"
    )
    print(
        f"goal {GOAL:.0f}x (issue 12): {factor / GOAL:.2f} of it; CARLA's leaderboard "
        f"{CARLA_LEADERBOARD}x (LMDrive issue 38's route summary): "
        f"{factor / CARLA_LEADERBOARD:.0f} times faster"
    )
    if not args.no_breakdown:
        spent = breakdown(config)
        total = spent.pop("evaluation")
        staged = ("planner build", "route trace", "world tick", "agent", "criteria", "recorder")
        print(f"stages of an in-process evaluation ({total:.2f} CPU s, imports excluded):")
        for stage in staged:
            seconds = spent.get(stage, 0.0)
            print(f"  {stage:<14} {seconds:>6.2f} s  {100 * seconds / total:>5.1f} %")
        rest = total - sum(spent.get(s, 0.0) for s in staged)
        print(f"  {'the rest':<14} {rest:>6.2f} s  {100 * rest / total:>5.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
