"""Traffic step speed on Town04: light groups, sign timers and the trigger-box test per tick.

100 vehicles stand at Town04's spawn points (every other one that is free) and
move 0.5 m along their heading each tick, so boxes are entered and left; the
traffic steps (sign timers, light groups, trigger boxes) run alone, without
physics, and their ticks/s and vehicle-box tests/s are printed. Goal: the
traffic steps cost under 10 % of a 1000 ticks/s budget (>= 10,000 ticks/s).

    python benchmarks/bench_traffic_boxes.py [TICKS] [SHARED_DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from world.map.map import Map
from world.settings import WorldSettings
from world.world import World

GOAL_TRAFFIC_TICKS_PER_S = 10_000.0


class _Blueprint:
    def __init__(self, blueprint_id: str) -> None:
        self.id = blueprint_id

    def __iter__(self):
        return iter(())


def main() -> None:
    ticks = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    shared = (
        Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[2] / "shared"
    )
    world = World(Map.from_file(shared / "maps/carla/Town04.xodr"))
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    cars, points = [], []
    for p in world.get_map().get_spawn_points()[::2]:
        car = world.try_spawn_actor(_Blueprint("vehicle.lincoln.mkz_2017"), p)
        if car is not None:
            cars.append(car)
            points.append(p)
        if len(cars) == 100:
            break
    traffic = world.traffic_signals(required=True)
    system = traffic.system
    rows = np.array([c.id - 1 for c in cars])
    step = np.array(
        [
            [
                0.5 * np.cos(np.radians(p.rotation.yaw)),
                0.5 * np.sin(np.radians(p.rotation.yaw)),
                0.0,
            ]
            for p in points
        ]
    )
    start = time.perf_counter()
    for _ in range(ticks):
        world.state_tables().actors.pos[rows] += step
        system.tick_sign_timers(world, 0.05)
        system.tick_lights(world, 0.05)
        system.tick_boxes(world, 0.05)
    elapsed = time.perf_counter() - start
    rate = ticks / elapsed
    tests = ticks * len(cars) * len(traffic.boxes) / elapsed
    print(
        f"Town04: {len(traffic.light_ids)} lights, {len(traffic.sign_ids)} signs, "
        f"{len(traffic.boxes)} boxes, {len(cars)} vehicles"
    )
    print(
        f"traffic steps: {rate:,.0f} ticks/s ({1e6 / rate:.1f} us/tick), "
        f"{tests / 1e6:.1f} M vehicle-box tests/s"
    )
    print(
        f"goal {GOAL_TRAFFIC_TICKS_PER_S:,.0f} ticks/s: ratio {rate / GOAL_TRAFFIC_TICKS_PER_S:.2f}"
    )


if __name__ == "__main__":
    main()
