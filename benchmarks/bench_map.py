"""Map benchmarks: load time of each CARLA town, get_waypoint throughput on Town04.

Goals: Town04 loaded (parsed, lane graph and index built) in <= 1 s; 10k batched
get_waypoint in <= 50 ms, for two sets of 10k seeded random points: driving-lane
centre points each moved by a uniform offset of up to 3 m in x and y (points near
roads, as agents and routes ask), and points uniform over the map's bounds (most far
from any road). Also printed: single get_waypoint calls, Waypoint objects for a
batch, route-planner style next(2.0) steps, and the ground query.
Run: .venv/bin/python benchmarks/bench_map.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from world import LaneType, Location, Map

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
TOWNS = SHARED / "maps" / "carla"
LOAD_GOAL = 1.0
BATCH_GOAL = 0.050
N = 10_000


def best_of(repeats: int, fn) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def near_road_points(m: Map, rng: np.random.Generator) -> np.ndarray:
    wps = m.generate_waypoints(2.0)
    pick = rng.integers(0, len(wps), N)
    base = np.array([[*wps[i].transform.location] for i in pick])
    base[:, :2] += rng.uniform(-3.0, 3.0, (N, 2))
    return base


def main() -> int:
    if not TOWNS.is_dir():
        print(f"CARLA towns not found at {TOWNS}")
        return 1
    for path in sorted(TOWNS.glob("*.xodr")):
        t = best_of(3, lambda p=path: Map.from_file(p).project_batch(np.zeros((1, 3))))
        note = (
            f"  goal {LOAD_GOAL:.1f} s, ratio {t / LOAD_GOAL:.2f}" if path.stem == "Town04" else ""
        )
        print(f"load {path.stem:10s} {t * 1000:8.1f} ms{note}")
    m = Map.from_file(TOWNS / "Town04.xodr")
    rng = np.random.default_rng(7)
    pts = near_road_points(m, rng)
    m.project_batch(pts[:10])  # build the driving-lane index once
    header = m.opendrive.header
    lo = np.array([header.west, -header.north])
    hi = np.array([header.east, -header.south])
    wide = np.zeros((N, 3))
    wide[:, :2] = lo + rng.uniform(0.0, 1.0, (N, 2)) * (hi - lo)
    for label, points in (("near-road", pts), ("uniform over the bounds", wide)):
        batch = best_of(5, lambda p=points: m.project_batch(p, LaneType.Driving))
        print(
            f"Town04 project_batch {N} points {label}: {batch * 1000:.1f} ms"
            f"  goal {BATCH_GOAL * 1000:.0f} ms, ratio {batch / BATCH_GOAL:.2f}"
        )
    objs = best_of(3, lambda: m.get_waypoints_batch(pts))
    print(f"Town04 get_waypoints_batch {N} (Waypoint objects): {objs * 1000:.1f} ms")
    locs = [Location(*p) for p in pts[:1000]]
    single = best_of(3, lambda: [m.get_waypoint(loc) for loc in locs])
    print(f"Town04 get_waypoint single: {single / len(locs) * 1e6:.1f} us per call")
    starts = [a for a, _ in m.get_topology()]

    def walk() -> int:
        steps = 0
        for start in starts:
            wp = start
            for _ in range(10):
                ahead = wp.next(2.0)
                if not ahead:
                    break
                wp = ahead[0]
                wp.transform  # noqa: B018 - the pose is what a route planner reads
                steps += 1
        return steps

    steps = walk()
    step_time = best_of(3, walk) / steps
    print(f"Town04 waypoint.next(2.0) + transform: {step_time * 1e6:.1f} us per step")
    ground = best_of(5, lambda: m.ground(pts))
    print(f"Town04 ground {N} points: {ground * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
