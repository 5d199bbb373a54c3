"""Runs the seeded traffic scene and prints its per-tick state hashes as one JSON object.

The cross-CPU determinism test runs this in subprocesses whose environment makes numpy and
numba pick other code paths (fewer SIMD features, a generic CPU), then compares the hashes:

    python tests/cross_cpu_scene.py MAP.xodr VEHICLES WALKERS SEED TICKS
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

from world import Map, World, WorldSettings
from world.traffic.scene import TrafficMonitor, populate_traffic


def main(argv: list[str]) -> int:
    town, vehicles, walkers, seed, ticks = Path(argv[0]), *map(int, argv[1:5])
    world = World(Map.from_file(town))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    scene = populate_traffic(world, vehicles, walkers, seed)
    monitor = TrafficMonitor(world, scene)
    monitor.observe()  # the spawned state, before the first tick
    for _ in range(ticks):
        world.tick()
        monitor.observe()
    from numba.core import config as numba_config

    print(
        json.dumps(
            {
                "vehicles": len(scene.vehicles),
                "walkers": len(scene.walkers),
                "numpy_dispatch_on": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
                "numba_cpu": numba_config.CPU_NAME or "host",
                "hashes": monitor.hashes,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
