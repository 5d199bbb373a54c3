"""The rendering sensors' scene: how big the map's static scene is and how long it takes.

For Town01, Town04, Town10HD (../shared/maps/carla, or $LOCKSTEP_SHARED) and town_medium
(configs/maps), each in a fresh process, as a user's first camera pays it: the imports,
reading and building the map (Map.from_file), then building its static scene
(world.scene.build_static_scene). Printed:
the scene's triangles (and how many are road, paint, ground, props), the Mesh's bytes, the
process's peak resident memory, and the wall and CPU seconds of each step. Goals (issue 23):
Town04's scene in at most 1 GiB of memory, a CARLA town's scene built in a few seconds
(taken as 3 s). Then the actors' shapes of one frame of 100 cars, 50 walkers, 40 lights and
20 signs posed from the state tables (ActorShapes.mesh), in microseconds, the median of 200.

    python benchmarks/bench_scene.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("LOCKSTEP_SHARED") or ROOT.parent / "shared") / "maps" / "carla"
MAPS = {
    "Town01": SHARED / "Town01.xodr",
    "Town04": SHARED / "Town04.xodr",
    "Town10HD": SHARED / "Town10HD.xodr",
    "town_medium": ROOT / "configs" / "maps" / "town_medium.xodr",
}
MEMORY_GOAL = 1 << 30  # bytes: Town04's scene (issue 23)
BUILD_GOAL = 3.0  # s: "a few seconds at most" for a CARLA town's scene

CHILD = r"""
import json, resource, sys, time
w0, c0 = time.perf_counter(), time.process_time()
import numpy as np
from world.map.map import Map
from world.scene import build_static_scene
from world.actors.vehicle_state import CityObjectLabel as L
w1, c1 = time.perf_counter(), time.process_time()
town = Map.from_file(sys.argv[1])
w2, c2 = time.perf_counter(), time.process_time()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
scene = build_static_scene(town)
w3, c3 = time.perf_counter(), time.process_time()
groups = {
    "road": [L.Roads, L.Sidewalks], "paint": [L.RoadLines], "ground": [L.Terrain, L.Ground],
    "props": [L.Buildings, L.Walls, L.Fences, L.Vegetation, L.Poles],
}
print(json.dumps({
    "triangles": scene.triangle_count,
    "groups": {k: int(np.isin(scene.tag, v).sum()) for k, v in groups.items()},
    "bytes": sum(a.nbytes for a in (scene.vertices, scene.triangles, scene.tag,
                                    scene.instance, scene.colour)),
    "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "before_kib": before,
    "import": [w1 - w0, c1 - c0], "map": [w2 - w1, c2 - c1], "scene": [w3 - w2, c3 - c2],
}))
"""


def build(name: str, path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"{name}: {done.stderr.strip().splitlines()[-1]}")
    return json.loads(done.stdout.splitlines()[-1])


def actor_frame() -> tuple[float, float]:
    """Median microseconds (wall, CPU) of one frame's ActorShapes.mesh over 210 actors."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from world.actors.vehicle_state import ActorType
    from world.scene import ActorShapes
    from world.state import ActorTable

    rng = np.random.default_rng(7)
    table = ActorTable()
    ids, attributes = [], []
    kinds = [("vehicle.tesla.model3", ActorType.Vehicle, (2.4, 1.1, 0.75), 100),
             ("walker.pedestrian.0001", ActorType.Walker, (0.19, 0.19, 0.93), 50),
             ("traffic.traffic_light", ActorType.TrafficLight, (0.3, 0.3, 2.5), 40),
             ("traffic.stop", ActorType.TrafficSign, (0.1, 0.4, 1.2), 20)]  # fmt: skip
    for type_id, kind, extent, count in kinds:
        for _ in range(count):
            r = table.add_row()
            table.alive[r], table.kind[r] = True, int(kind)
            table.pos[r] = rng.uniform(-200, 200, 3)
            table.rot[r] = (0.0, rng.uniform(-180, 180), 0.0)
            table.extent[r] = extent
            ids.append(type_id)
            attributes.append({})
    state = rng.integers(0, 3, table.n).astype(np.int8)
    shapes = ActorShapes()
    shapes.mesh(table, ids, attributes, state)
    walls, cpus = [], []
    for _ in range(200):
        table.pos[: table.n, 0] += 0.1
        t0, c0 = time.perf_counter(), time.process_time()
        shapes.mesh(table, ids, attributes, state)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls) * 1e6, statistics.median(cpus) * 1e6


def main() -> int:
    print(f"{'map':12s} {'triangles':>9s} {'road':>7s} {'paint':>7s} {'ground':>7s} "
          f"{'props':>7s} {'MiB':>6s} {'peak MiB':>8s} {'map s':>6s} {'scene s':>7s} "
          f"{'cpu s':>6s}")  # fmt: skip
    for name, path in MAPS.items():
        if not path.is_file():
            print(f"{name}: {path} not found, skipped")
            continue
        r = build(name, path)
        g = r["groups"]
        print(
            f"{name:12s} {r['triangles']:9d} {g['road']:7d} {g['paint']:7d} {g['ground']:7d} "
            f"{g['props']:7d} {r['bytes'] / 2**20:6.1f} {r['peak_kib'] / 1024:8.0f} "
            f"{r['map'][0]:6.2f} {r['scene'][0]:7.2f} {r['scene'][1]:6.2f}"
        )
        if name == "Town04":
            grown = (r["peak_kib"] - r["before_kib"]) * 1024
            print(f"  Town04 scene: {r['bytes'] / 2**20:.1f} MiB of mesh, the process grew "
                  f"{grown / 2**20:.0f} MiB while building it; goal {MEMORY_GOAL / 2**30:.0f} "
                  f"GiB (issue 23), ratio {max(r['bytes'], grown) / MEMORY_GOAL:.3f}")  # fmt: skip
        if name.startswith("Town"):
            print(f"  build {r['scene'][0]:.2f} s wall; goal {BUILD_GOAL:.0f} s (issue 23: a few "
                  f"seconds at most), ratio {r['scene'][0] / BUILD_GOAL:.2f}")  # fmt: skip
    wall, cpu = actor_frame()
    print(f"actors' shapes, one frame of 210 actors: {wall:.0f} us wall, {cpu:.0f} us CPU "
          "(medians of 200)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
