"""Times the leaderboard's route criteria per tick on town_small with background traffic,
against the world's own tick, and the scoring of a results file.

The ego (on the world's autopilot, so it keeps to its lanes) starts on a route of ~1 m
points along its lane while N autopilot cars drive around; each tick the world ticks, then
RouteCriteria.update runs (MinSpeedTest compares with the cars' role "autopilot").
Printed: ms per tick of each, and the criteria's share.
The goal (issue 12) is a whole route at >= 200x real time at 0.05 s ticks, i.e. <= 0.25 ms
of everything per tick; no CARLA figure exists for the criteria alone.

    python benchmarks/bench_criteria.py [--vehicles N] [--ticks N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from runner.criteria import RouteCriteria
from runner.statistics import results_from_spec
from world import Map, World, WorldSettings
from world.geometry import Location, Rotation, Transform
from world.traffic.scene import populate_traffic

ROOT = Path(__file__).resolve().parent.parent
TOWN = ROOT / "configs" / "maps" / "town_small.xodr"
GOLDEN = ROOT.parent / "shared" / "leaderboard-golden"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vehicles", type=int, default=30)
    parser.add_argument("--ticks", type=int, default=2000)
    args = parser.parse_args()

    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, vehicles=args.vehicles, walkers=0, seed=7)
    bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2017").copy()
    bp.set_attribute("role_name", "hero")
    ego = world.try_spawn_actor(bp, Transform(Location(56.0, -98.25, 0.5), Rotation()))
    wp = world.get_map().get_waypoint(Location(56.0, -98.25, 0.0))
    route = [wp]
    while len(route) < 400:
        following = route[-1].next(1.0)
        if not following:
            break
        route.append(following[0])
    criteria = RouteCriteria(world, ego, [w.transform for w in route], traffic_role="autopilot")
    ego.set_autopilot(True)

    world_s = criteria_s = 0.0
    for _ in range(args.ticks):
        t0 = time.perf_counter()
        world.tick()
        t1 = time.perf_counter()
        criteria.update(world, ego)
        t2 = time.perf_counter()
        world_s += t1 - t0
        criteria_s += t2 - t1
    n = args.ticks
    print(f"vehicles {len(scene.vehicles)}, ticks {n}, route points {len(route)}")
    print(f"world.tick        {1000 * world_s / n:8.3f} ms/tick")
    print(f"criteria.update   {1000 * criteria_s / n:8.3f} ms/tick")
    print(f"criteria share    {100 * criteria_s / (world_s + criteria_s):8.1f} %")
    for c in criteria.all():
        print(f"  {c.name:24s} {len(c.events)} events")

    if GOLDEN.is_dir():
        specs = [json.loads(p.read_text()) for p in sorted(GOLDEN.glob("*/spec.json"))]
        t0 = time.perf_counter()
        for spec in specs:
            results_from_spec(spec)
        spent = time.perf_counter() - t0
        print(f"golden specs      {1000 * spent / len(specs):8.3f} ms/case ({len(specs)} cases)")


if __name__ == "__main__":
    main()
