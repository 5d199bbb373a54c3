"""Times the whole `lockstep render` command (a fresh process: imports, map, log, drawing,
GIF encoding) on a 1-minute log of town_small with traffic.

A run of 1200 ticks at 0.05 s (an autopilot hero, N autopilot cars and M AI walkers, a
debug line every second) is recorded into a temporary folder first, not timed. Then the
command draws it: a GIF at 10 fps (600 pictures), a GIF of every frame (20 fps: 1200
pictures), a GIF following the hero, and a PNG. Printed: seconds of each command (wall
clock, and CPU time, which a busy machine disturbs less), pictures per second, and how
much faster than the run's own minute it is.
The goal (issue 11) is a 1-minute log in a few seconds.

    python benchmarks/bench_render.py [--vehicles N] [--walkers N] [--ticks N] [--size PX]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from recorder import Recorder  # noqa: E402
from world import Map, World, WorldSettings  # noqa: E402
from world.actors.blueprints import Color  # noqa: E402
from world.geometry import Location  # noqa: E402
from world.traffic.autopilot.manager import street_spawn_points  # noqa: E402
from world.traffic.scene import populate_traffic  # noqa: E402

TOWN = ROOT / "configs" / "maps" / "town_small.xodr"
DT = 0.05


def record(
    path: Path, ticks: int, vehicles: int, walkers: int, town: Path = TOWN, debug: bool = True
) -> int:
    """Records the run (an autopilot hero among the traffic, with additional data; with
    `debug`, a debug line every second); returns the hero's id."""
    world = World(Map.from_file(town))
    world.apply_settings(WorldSettings(fixed_delta_seconds=DT))
    bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2017")
    bp.set_attribute("role_name", "hero")
    hero = world.spawn_actor(bp, street_spawn_points(world.get_map())[0])
    hero.set_autopilot(True)
    populate_traffic(world, vehicles, walkers, 7)
    recorder = Recorder()
    recorder.start(world, path, town.stem, True, date=0)
    for tick in range(ticks):
        if debug and tick % 20 == 0:
            at = hero.get_location()
            end = Location(at.x + 5.0, at.y, at.z)
            world.debug.draw_line(at, end, color=Color(0, 255, 0), life_time=1.0)
        recorder.tick(world)
    recorder.stop()
    return hero.id


def timed(args: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, the figure a busy machine disturbs least) of one
    `lockstep render` process, and what it printed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "runner.cli", "render", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode:
        raise SystemExit(f"render failed: {done.stderr.strip()}")
    return seconds, cpu, done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=30)
    parser.add_argument("--walkers", type=int, default=20)
    parser.add_argument("--ticks", type=int, default=1200)
    parser.add_argument("--size", type=int, default=640)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "minute.log"
        begin = time.perf_counter()
        hero = record(log, args.ticks, args.vehicles, args.walkers)
        run_seconds = args.ticks * DT
        print(
            f"recorded {args.ticks} ticks ({run_seconds:g} s of run, {args.vehicles} cars, "
            f"{args.walkers} walkers) in {time.perf_counter() - begin:.1f} s (not timed); "
            f"log {log.stat().st_size / 1e6:.1f} MB"
        )
        common = [str(log), "--map", str(TOWN), "--size", str(args.size)]
        cases = [
            ("GIF, 10 fps", ["-o", f"{folder}/a.gif", "--fps", "10"]),
            ("GIF, 20 fps (every frame)", ["-o", f"{folder}/b.gif", "--fps", "20"]),
            ("GIF, 10 fps, --follow hero", ["-o", f"{folder}/c.gif", "--follow", str(hero)]),
            ("PNG, last frame", ["-o", f"{folder}/d.png"]),
        ]
        for name, extra in cases:
            seconds, cpu, text = timed(common + extra)
            pictures = int(text.split(": ", 1)[1].split(" ", 1)[0])
            size = Path(extra[1]).stat().st_size / 1e6
            print(
                f"{name:28s} {seconds:6.2f} s ({cpu:5.2f} s CPU)  {pictures:5d} pictures  "
                f"{pictures / seconds:6.1f} pictures/s  {run_seconds / seconds:5.1f}x the run's "
                f"time  ({size:.1f} MB)"
            )


if __name__ == "__main__":
    main()
