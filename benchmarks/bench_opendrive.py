"""OpenDRIVE reader and geometry speed: parse time per CARLA town, and evaluation throughput.

Run: .venv/bin/python benchmarks/bench_opendrive.py [SHARED_DIR]
Goal: Town04 (3.4 MB) parsed, with every road's evaluator built, well under 1 s
(the whole map load, map API included, must stay <= 1 s).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from world.map.opendrive import load_opendrive, road_evaluators

REPO = Path(__file__).resolve().parent.parent
TOWNS = ["Town01", "Town02", "Town04", "Town10HD"]
PARSE_GOAL_S = 1.0


def best_of(n: int, fn) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(n):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    shared = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared"
    maps = shared / "maps" / "carla"
    if not maps.is_dir():
        print(f"no CARLA maps at {maps}; pass the shared folder as the first argument")
        return 1
    print(f"{'map':10s} {'MB':>6s} {'parse s':>8s} {'evaluators s':>13s} {'goal ratio':>10s}")
    for town in TOWNS:
        path = maps / f"{town}.xodr"
        t_parse, doc = best_of(3, lambda p=path: load_opendrive(p))
        t_eval, _ = best_of(3, lambda d=doc: road_evaluators(d))
        mb = path.stat().st_size / 1e6
        ratio = (t_parse + t_eval) / PARSE_GOAL_S
        print(f"{town:10s} {mb:6.2f} {t_parse:8.3f} {t_eval:13.3f} {ratio:10.2f}")

    doc = load_opendrive(maps / "Town04.xodr")
    evaluators = road_evaluators(doc)
    rng = np.random.default_rng(0)
    road_ids = list(evaluators)
    n = 100_000
    pick = rng.integers(0, len(road_ids), n)
    frac = rng.random(n)
    t_lat = rng.uniform(-8, 8, n)
    groups = [(evaluators[road_ids[k]], pick == k) for k in np.unique(pick)]

    def surface():
        for ev, m in groups:
            ev.surface_point(frac[m] * ev.length, t_lat[m])

    def lanes():
        for ev, m in groups:
            ev.lane(frac[m] * ev.length, -1)

    t_surf, _ = best_of(3, surface)
    t_lane, _ = best_of(3, lanes)
    print(f"Town04 surface_point: {n / t_surf / 1e6:.2f} M points/s ({len(groups)} roads)")
    print(f"Town04 lane(-1) t/width: {n / t_lane / 1e6:.2f} M points/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
