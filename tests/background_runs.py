"""Runs the background activity alone around an ego driven by the autopilot along a route,
on the main loop, tracing every background vehicle each tick (for the background suites;
the runner adds background traffic only to routes with scenarios)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from runner.agents.autopilot import junction_exits
from runner.loop import MainLoop
from runner.planner import GlobalRoutePlanner, interpolate_trajectory
from scenarios.background import BackgroundActivity
from scenarios.route_scenario import RouteProgress
from scenarios.tasks import tick
from world import Location, Map, Transform, World, WorldSettings
from world.traffic.autopilot.manager import TrafficManager

REPO = Path(__file__).resolve().parent.parent
TICK = 0.05
_MAPS: dict[str, tuple[Map, GlobalRoutePlanner]] = {}


@dataclass
class Seen:
    """A background vehicle at one tick."""

    id: int
    x: float
    y: float
    yaw: float
    speed: float


@dataclass
class BackgroundRun:
    world: Any
    ego: Any
    plan: list
    background: BackgroundActivity
    progress: RouteProgress
    ego_trace: list[tuple[float, float, int, float]] = field(default_factory=list)
    """The ego each tick: x, y, its route point (plan index), speed (m/s)."""
    frames: list[dict[int, Seen]] = field(default_factory=list)
    log: Path | None = None


def map_and_planner(path: str) -> tuple[Map, GlobalRoutePlanner]:
    if path not in _MAPS:
        world_map = Map.from_file(path)
        _MAPS[path] = (world_map, GlobalRoutePlanner(world_map, 1.0))
    return _MAPS[path]


def run_background(
    map_path: str,
    waypoints: list,
    ticks: int,
    *,
    seed: int = 5,
    on_tick: Callable[[BackgroundRun, int], None] | None = None,
    log: Path | None = None,
) -> BackgroundRun:
    """Drives the ego (the autopilot at 80 % of the limit, the route's junction exits as
    its path) for `ticks` ticks with the background around it; `on_tick(run, k)` runs in
    a task after the background's each tick (to turn knobs); `log` records the run."""
    world_map, planner = map_and_planner(map_path)
    world = World(world_map)
    world.apply_settings(WorldSettings(fixed_delta_seconds=TICK))
    plan = interpolate_trajectory(world_map, [Location(*p) for p in waypoints], planner=planner)
    first = plan[0][0]
    where = Transform(
        Location(first.location.x, first.location.y, first.location.z + 0.5), first.rotation
    )
    bp = world.get_blueprint_library().find("vehicle.lincoln.mkz_2017").copy()
    bp.set_attribute("role_name", "hero")
    ego = world.spawn_actor(bp, where)
    driver = TrafficManager(world, -1)
    driver.set_random_device_seed(seed)
    driver.register_vehicles([ego])
    driver.auto_lane_change(ego, False)
    driver.vehicle_percentage_speed_difference(ego, 20.0)
    driver.set_path(ego, junction_exits(world_map, plan))
    progress = RouteProgress(plan)
    rng = np.random.Generator(np.random.PCG64(seed))
    background = BackgroundActivity(world, ego, plan, rng, lambda: progress.index)
    background.spawn()
    run = BackgroundRun(world, ego, plan, background, progress, log=log)
    recorder = None
    if log is not None:
        from recorder.live.recorder import Recorder

        recorder = Recorder()
        recorder.start(world, str(log), "town", additional_data=False)

    def monitor() -> None:
        while True:
            progress.update(ego.get_location())
            if tick().stopping:
                return

    def trace() -> None:
        k = 0
        while True:
            loc = ego.get_location()
            v = ego.get_velocity()
            speed = float(np.sqrt(v.x * v.x + v.y * v.y))
            run.ego_trace.append((loc.x, loc.y, progress.index, speed))
            seen = {}
            for actor in background.fleet.actors:
                if actor.is_alive:
                    tf = actor.get_transform()
                    v = actor.get_velocity()
                    speed = float(np.sqrt(v.x * v.x + v.y * v.y))
                    seen[actor.id] = Seen(
                        actor.id, tf.location.x, tf.location.y, tf.rotation.yaw, speed
                    )
            run.frames.append(seen)
            if on_tick is not None:
                on_tick(run, k)
            k += 1
            if tick().stopping:
                return

    def agent_step(_info: Any) -> Any:
        driver.step(TICK)
        return ego.get_control()

    loop = MainLoop(world, ego=ego, agent_step=agent_step, recorder=recorder)
    loop.start(monitor, name="route")
    loop.start(background.run, name="background")
    loop.start(trace, name="trace")
    result = loop.run(ticks)
    if recorder is not None:
        recorder.stop()
    assert result.failure is None, result.failure
    return run
