"""The leaderboard's failure mode, inverted: a scenario setup that spawns a batch, ticks, and is
slowed by a real time.sleep (test code only) triggers on the same frame and writes the same
log as without the delay, because the loop resumes it exactly once per tick."""

from __future__ import annotations

import time

from runner_helpers import write_config

from runner.config import load_config
from runner.log_compare import compare_logs
from runner.route import run_route
from scenarios.tasks import tick, wait_until
from world.geometry import Location, Rotation, Transform


def _tasks(delay: float, seen: dict):
    def install(loop, world, ego):
        library = world.get_blueprint_library()

        def spawn_batch(xs):
            for x in xs:  # parked cars on the other lane, facing west
                where = Transform(Location(x, -1.75, 0.5), Rotation(0.0, 180.0, 0.0))
                world.spawn_actor(library.find("vehicle.audi.a2"), where)

        def scenario_setup():
            wait_until(lambda: ego.get_location().x > 30.0)
            seen["trigger"] = world.get_snapshot().timestamp.frame
            spawn_batch([70.0, 78.0, 86.0])
            tick()
            began = time.perf_counter()
            time.sleep(delay)  # a slow setup: wall time passes, simulated time does not
            seen["slept"] = time.perf_counter() - began
            spawn_batch([40.0, 48.0])
            tick()
            seen["done"] = world.get_snapshot().timestamp.frame

        def counter():
            while True:
                info = tick() if seen["count"] else None
                if info is not None and info.stopping:
                    return
                seen["count"] += 1

        loop.start(scenario_setup, name="setup")
        loop.start(counter, name="counter")

    return install


def _run(tmp_path, delay: float) -> tuple[dict, object]:
    config = load_config(write_config(tmp_path, name=f"delay{delay}", traffic={"vehicles": 4}))
    seen = {"count": 0}
    log = tmp_path / f"delay{delay}.log"
    outcome = run_route(config, config.routes[0], 0, log, setup_tasks=_tasks(delay, seen))
    return seen, outcome


def test_a_slow_setup_changes_nothing(tmp_path):
    fast, fast_outcome = _run(tmp_path, 0.0)
    slow, slow_outcome = _run(tmp_path, 0.5)
    assert fast_outcome.stop_reason == slow_outcome.stop_reason == "completed"
    assert fast["trigger"] == slow["trigger"] > 0
    assert fast["done"] == slow["done"] == fast["trigger"] + 2
    assert compare_logs(tmp_path / "delay0.0.log", tmp_path / "delay0.5.log") is None
    # the counting task was resumed once per tick of the route: its count is the tick count
    assert fast["count"] == fast_outcome.loop_ticks == slow["count"]
    assert slow["slept"] >= 0.5  # the sleep really happened
    # both tasks had returned by the stop: no drain tick, nothing killed
    assert slow_outcome.killed_tasks == [] and slow_outcome.ticks == slow_outcome.loop_ticks
