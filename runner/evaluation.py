"""One evaluation: every route repetition of a config, in the leaderboard evaluator's order,
recorded to the run directory and scored into results.json.

Per route repetition: a fresh World on the route's map, the dense route from the
global planner, the ego ("hero", vehicle.lincoln.mkz_2020) 0.5 m above the
route's first point, seeded background traffic, the agent (made, given the
plan, set up, its sensors checked and attached), the live recorder, then the
main loop until a criterion stops the route, the agent or a task fails, or the
`limits.route_seconds` bound passes. The route is scored through the session it
is given (runner.execution.tasks hands it a stand-in and the driver,
runner.execution.driver, replays it into the evaluation's EvaluationSession, which writes
results.json). When the
agent has world sensors, the first tick runs without it (the sensors have measured
nothing yet), as the leaderboard's warm-up ticks do.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner import map_store, route_scenarios
from runner.agent_sensors import WORLD_SENSORS, AgentSensors, validate_sensor_configuration
from runner.agents.base import AutonomousAgent
from runner.config import Config, RouteSpec
from runner.errors import AgentError, RunnerError
from runner.loop import MainLoop
from runner.planner import GlobalRoutePlanner, gps_plan, interpolate_trajectory
from runner.seeds import consumer_seed
from runner.statistics import EvaluationSession, Failure, RouteEntry, ScoredRoute, route_name
from world.geometry import Location, Transform
from world.map.map import Map
from world.settings import WorldSettings
from world.traffic.scene import populate_traffic
from world.world import World

__all__ = ["EGO_BLUEPRINT", "RouteOutcome", "evaluate", "load_agent_class", "run_route"]

EGO_BLUEPRINT = "vehicle.lincoln.mkz_2020"
SPAWN_LIFT = 0.5  # m above the route's first point, as the leaderboard spawns the ego
SENSOR_ICONS = {
    "sensor.camera.rgb": "carla_camera",
    "sensor.lidar.ray_cast": "carla_lidar",
    "sensor.other.radar": "carla_radar",
    "sensor.other.gnss": "carla_gnss",
    "sensor.other.imu": "carla_imu",
    "sensor.opendrive_map": "carla_opendrive_map",
    "sensor.speedometer": "carla_speedometer",
}

ProgressFn = Callable[[str, int, float, float], None]


@dataclass
class RouteOutcome:
    """How one route repetition went, for the CLI and the tests."""

    route_id: str
    log_path: Path
    failure: Failure = Failure.NONE
    message: str = ""
    traceback: str = ""
    ticks: int = 0
    loop_ticks: int = 0
    game_seconds: float = 0.0
    wall_seconds: float = 0.0
    agent_wall_seconds: float = 0.0
    stop_reason: str | None = None
    killed_tasks: list[str] = field(default_factory=list)
    sensors: list[dict] = field(default_factory=list)
    record: dict | None = None
    ego_final: Location | None = None
    events: list[str] = field(default_factory=list)


# -- pieces ---------------------------------------------------------------------------------------


def _map(path: Path) -> Map:
    return map_store.map_and_planner(path)[0]


def _planner(path: Path) -> GlobalRoutePlanner:
    return map_store.map_and_planner(path)[1]


def load_agent_class(entry: str) -> type:
    """The class an agent module's get_entry_point() names (a module path or a .py file).
    `import carla` and the leaderboard's agent module path are bound to lockstep's first
    (runner.carla.binding), so leaderboard agents import unchanged."""
    from runner.carla.binding import bind_leaderboard

    bind_leaderboard()
    try:
        if entry.endswith(".py"):
            name = f"lockstep_agent_{Path(entry).stem}"
            spec = importlib.util.spec_from_file_location(name, entry)
            if spec is None or spec.loader is None:
                raise AgentError(f"agent {entry}: cannot be imported")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(entry)
    except ModuleNotFoundError as exc:
        raise AgentError(f"agent {entry}: module not found ({exc})") from None
    if not hasattr(module, "get_entry_point"):
        raise AgentError(f"agent {entry}: the module has no get_entry_point()")
    class_name = module.get_entry_point()
    cls = getattr(module, class_name, None)
    if cls is None:
        raise AgentError(f"agent {entry}: get_entry_point() names {class_name!r}, not in module")
    return cls


def _world(config: Config, route: RouteSpec) -> World:
    world = World(_map(route.map_path))
    world.apply_settings(WorldSettings(fixed_delta_seconds=config.tick))
    world.set_weather(route.weather)
    return world


def _spawn_ego(world: World, plan: list) -> Any:
    first = plan[0][0]
    where = Transform(
        Location(first.location.x, first.location.y, first.location.z + SPAWN_LIFT),
        first.rotation,
    )
    blueprint = world.get_blueprint_library().find(EGO_BLUEPRINT).copy()
    blueprint.set_attribute("role_name", "hero")
    return world.spawn_actor(blueprint, where)


def _new_recorder(world: World, path: Path, route: RouteSpec, additional: bool):
    from recorder.live.recorder import Recorder

    recorder = Recorder()
    recorder.start(world, str(path), route.map_path.stem, additional_data=additional)
    return recorder


def _criteria(world: World, ego: Any, plan: list):
    from runner.criteria import RouteCriteria

    return RouteCriteria(world, ego, [tf for tf, _ in plan])


# -- one route ------------------------------------------------------------------------------------


def run_route(
    config: Config,
    route: RouteSpec,
    repetition: int,
    log_path: Path,
    *,
    session: EvaluationSession | None = None,
    entry: RouteEntry | None = None,
    agent_entry: str | None = None,
    agent_config: str | None = None,
    progress: ProgressFn | None = None,
    setup_tasks: Callable[[MainLoop, World, Any], None] | None = None,
    max_ticks: int | None = None,
) -> RouteOutcome:
    """Runs one route repetition, recording it to `log_path`; scores it through `session`."""
    began = time.perf_counter()
    route_id = entry.route_id if entry is not None else f"{route_name(route.id)}_rep{repetition}"
    outcome = RouteOutcome(route_id, log_path)
    agent_entry = agent_entry or config.agent_entry
    agent_config = agent_config if agent_entry != config.agent_entry else config.agent_config
    world = ego = agent = sensors = recorder = criteria = scenarios = None

    def finish(failure: Failure, message: str = "", trace: str = "") -> RouteOutcome:
        outcome.failure, outcome.message, outcome.traceback = failure, message, trace
        outcome.wall_seconds = time.perf_counter() - began
        if session is not None and entry is not None:
            if criteria is not None and scored is not None:
                scored.timed_out = bool(criteria.timeout.timed_out)
            outcome.record = session.route_finished(
                entry, failure, outcome.wall_seconds, outcome.game_seconds
            )
        return outcome

    scored: ScoredRoute | None = None
    # load: world, plan, ego, traffic, criteria
    try:
        world = _world(config, route)
        points = [Location(*p) for p in route.definition.points]
        plan = interpolate_trajectory(world.get_map(), points, planner=_planner(route.map_path))
        if not plan:
            raise RunnerError(f"route {route.id}: the planner found no route through its points")
        ego = _spawn_ego(world, plan)
        if config.vehicles or config.walkers:
            populate_traffic(
                world,
                config.vehicles,
                config.walkers,
                consumer_seed(config.seed, "traffic", route.id, repetition),
            )
        criteria = _criteria(world, ego, plan)
        scenarios = route_scenarios.prepare(config, route, repetition, world, ego, plan, criteria)
        scored = ScoredRoute([(tf.location.x, tf.location.y, tf.location.z) for tf, _ in plan])
        scored.criteria = criteria  # live: scenario criteria join when their scenario asks
    except Exception as exc:
        return finish(Failure.SCENARIO_LOAD, f"{type(exc).__name__}: {exc}", traceback.format_exc())
    if session is not None:
        session.route_loaded(scored)

    # the agent: made, given the plan, set up, sensors checked and attached
    try:
        cls = load_agent_class(agent_entry)
        agent = cls("localhost", 2000, False)
        if isinstance(agent, AutonomousAgent) or hasattr(agent, "world"):
            agent.world, agent.ego = world, ego
            agent.seed = consumer_seed(config.seed, "agent", route.id, repetition)
        agent.set_global_plan(gps_plan(world.get_map(), plan), plan)
        agent.setup(agent_config)
    except Exception as exc:
        return finish(Failure.AGENT_SETUP, f"{type(exc).__name__}: {exc}", traceback.format_exc())
    try:
        specs = list(agent.sensors())
        validate_sensor_configuration(specs, agent.track)
        outcome.sensors = specs
    except Exception as exc:
        _destroy(agent)
        return finish(
            Failure.SENSORS_INVALID, f"{type(exc).__name__}: {exc}", traceback.format_exc()
        )
    sensor_seed = consumer_seed(config.seed, "sensors", route.id, repetition)
    sensors = AgentSensors(world, ego, specs, sensor_seed)
    if session is not None:
        session.agent_ready([SENSOR_ICONS[s["type"]] for s in specs])

    warm_up = any(s["type"] in WORLD_SENSORS for s in specs)

    def agent_step(info) -> Any:
        if warm_up and info.frame == 0:
            return None  # the sensors measure in the first tick; the agent starts after it
        control = agent.run_step(sensors.input_data(info.frame), info.elapsed_seconds)
        control.manual_gear_shift = False
        if scenarios is not None:
            filtered = scenarios.ego_control(control)  # run always: the filters draw noise
            if not getattr(agent, "replays_applied_controls", False):
                control = filtered
        return control

    route_seconds = config.route_seconds

    def after_tick(info) -> str | None:
        criteria.update(world, ego)
        if progress is not None:
            progress(route_id, info.frame, info.elapsed_seconds, _completion(criteria))
        reason = criteria.stop_reason()
        if reason:
            return reason
        if route_seconds is not None and info.elapsed_seconds + 1e-9 >= route_seconds:
            return "route_seconds"
        return None

    try:
        recorder = _new_recorder(world, log_path, route, config.additional_data)
    except Exception as exc:
        _destroy(agent)
        sensors.destroy()
        return finish(Failure.SCENARIO_LOAD, f"{type(exc).__name__}: {exc}", traceback.format_exc())
    if hasattr(agent, "start_frame"):
        agent.start_frame = world.get_snapshot().timestamp.frame
    loop = MainLoop(
        world,
        ego=ego,
        agent_step=agent_step,
        recorder=recorder,
        after_tick=after_tick,
        drain_ticks=config.drain_ticks,
    )
    if scenarios is not None:
        scenarios.attach(loop)
    if setup_tasks is not None:
        setup_tasks(loop, world, ego)
    result = loop.run(max_ticks)
    outcome.ticks = result.ticks
    outcome.loop_ticks = result.ticks - result.drain_ticks
    outcome.game_seconds = world.get_snapshot().timestamp.elapsed_seconds
    outcome.agent_wall_seconds = result.agent_wall_seconds
    outcome.stop_reason = result.reason
    outcome.killed_tasks = list(result.killed)
    failure, message, trace = Failure.NONE, "", ""
    if result.failure is not None:
        kind = result.failure.kind
        failure = Failure.AGENT_RUNTIME if kind == "agent" else Failure.SIMULATION_RUNTIME
        message, trace = result.failure.message, result.failure.traceback
    elif result.killed:
        message = f"tasks killed after {config.drain_ticks} drain ticks: {', '.join(result.killed)}"
    try:
        criteria.terminate()
    except Exception as exc:  # a broken criterion fails the route, never the evaluation file
        if failure is Failure.NONE:
            failure, message = Failure.SIMULATION_RUNTIME, f"criteria: {exc}"
            trace = traceback.format_exc()
    recorder.stop()
    outcome.ego_final = ego.get_location()
    outcome.events = [str(e.kind) for c in criteria.all() for e in c.events]
    _destroy(agent)
    sensors.destroy()
    outcome = finish(failure, message, trace)
    map_store.keep(route.map_path)  # what the route built of the map, for the next process
    return outcome


def _destroy(agent: Any) -> None:
    with contextlib.suppress(Exception):  # the leaderboard ignores a failing cleanup too
        agent.destroy()


def _completion(criteria: Any) -> float:
    completion = getattr(criteria, "completion", None)
    value = getattr(completion, "actual_value", None)
    return float(value) if value is not None else 0.0


# -- the evaluation -------------------------------------------------------------------------------


def evaluate(
    config: Config,
    out_dir: Path,
    *,
    resume: bool = False,
    scheduler: Any = None,
    on_progress: Callable[[Any], None] | None = None,
    on_route: Callable[[RouteOutcome], None] | None = None,
) -> list[RouteOutcome]:
    """Runs the whole config into `out_dir` (results.json, logs, manifest.yaml): each route
    repetition a task (runner.execution.tasks) run by `scheduler`
    (runner.execution.scheduling; default one after another in this process), merged in
    route order by runner.execution.driver."""
    from runner.execution.driver import run_evaluation
    from runner.execution.scheduling import InlineScheduler

    return run_evaluation(
        config,
        out_dir,
        scheduler or InlineScheduler(),
        resume=resume,
        on_progress=on_progress,
        on_route=on_route,
    )
