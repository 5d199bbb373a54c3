"""Times the background activity (scenarios/background) around an autopilot ego: its
upkeep (every 0.5 s of simulated time) less the spawns it asks of the world (a spawn and
its autopilot registration, timed apart), and the whole tick with and without it (the
world then drives the background's cars too; the world's first autopilot vehicle builds
its lane paths once, about 0.1 s, counted in the run with the background).

Two routes: town_medium's top road and east side (four junctions with choices, one lane
each way) and Town04's highway (four lanes each way, no junction; needs ../shared).
CPU time (time.process_time), the median of --repeats runs. The runner's speed goal is
about 0.25 ms per tick all in; the background's own share should be a few tens of
microseconds per tick.

    python benchmarks/bench_background.py [--ticks N] [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from background_runs import run_background  # noqa: E402

from scenarios.background import activity, vehicles  # noqa: E402

ROUTES = {
    "town_medium": (
        str(ROOT / "configs" / "maps" / "town_medium.xodr"),
        [[20, 1.75, 0], [390, 1.75, 0], [401.75, -200, 0], [401.75, -380, 0]],
    ),
    "Town04 highway": (
        str(ROOT.parent / "shared" / "maps" / "carla" / "Town04.xodr"),
        [[-390.8, 422.6, 0], [-277.3, 435.9, 0], [-146.1, 429.2, 0], [-82.2, 401.6, 0]],
    ),
}


class Clock:
    """CPU seconds spent in a wrapped method; with `within`, only while that clock runs."""

    def __init__(self, owner: type, name: str, within: Clock | None = None) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.running = False
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            if within is not None and not within.running:
                return inner(*args, **kwargs)
            began = time.process_time()
            self.running = True
            try:
                return inner(*args, **kwargs)
            finally:
                self.running = False
                self.seconds += time.process_time() - began
                self.calls += 1

        setattr(owner, name, timed)
        self._restore = lambda: setattr(owner, name, inner)

    def stop(self) -> None:
        self._restore()


def one_run(path: str, waypoints: list, ticks: int, background: bool) -> dict[str, float]:
    upkeep = Clock(activity.BackgroundActivity, "update")
    spawns = Clock(vehicles.Fleet, "spawn", within=upkeep)
    if not background:  # the same ego, the background made but never run
        original = activity.BackgroundActivity.run
        activity.BackgroundActivity.run = lambda self: None
        original_spawn = activity.BackgroundActivity.spawn
        activity.BackgroundActivity.spawn = lambda self: []
    began = time.process_time()
    try:
        run_background(path, waypoints, ticks)
    finally:
        spent = time.process_time() - began
        upkeep.stop()
        spawns.stop()
        if not background:
            activity.BackgroundActivity.run = original
            activity.BackgroundActivity.spawn = original_spawn
    return {
        "total": spent / ticks,
        "upkeep": (upkeep.seconds - spawns.seconds) / ticks,
        "upkeep_each": (upkeep.seconds - spawns.seconds) / max(upkeep.calls, 1),
        "spawn": spawns.seconds / ticks,
        "spawns": float(spawns.calls),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ticks", type=int, default=1200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for name, (path, waypoints) in ROUTES.items():
        if not Path(path).is_file():
            print(f"{name}: {path} not found, skipped")
            continue
        run_background(path, waypoints, 20)  # maps, planner and kernels loaded
        rows = {True: [], False: []}
        for _ in range(args.repeats):
            for background in (True, False):
                rows[background].append(one_run(path, waypoints, args.ticks, background))

        def median(key: str, background: bool = True, rows: dict = rows) -> float:
            return statistics.median(r[key] for r in rows[background])

        print(f"{name}: {args.ticks} ticks, median of {args.repeats} runs (CPU)")
        print(f"  whole tick with the background    {1e3 * median('total'):8.3f} ms")
        print(f"  whole tick without it             {1e3 * median('total', False):8.3f} ms")
        print(f"  background upkeep per tick        {1e6 * median('upkeep'):8.1f} us")
        print(f"  one upkeep (every 10 ticks)       {1e6 * median('upkeep_each'):8.1f} us")
        print(f"  its spawns per tick               {1e6 * median('spawn'):8.1f} us")
        print(f"  cars it spawned per run           {median('spawns'):8.0f}")


if __name__ == "__main__":
    main()
