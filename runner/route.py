"""One route repetition, run and recorded: `run_route(...) -> RouteResult`.

A fresh World on the route's map, the dense route from the global planner, the ego
("hero", vehicle.lincoln.mkz_2020) 0.5 m above the route's first point, seeded background
traffic, the route's criteria and scenarios; then the agent (made, given the plan, set
up, its sensors checked and attached), the live recorder, the collision sensor the
leaderboard's CollisionTest attaches to the ego, and the main loop until a criterion
stops the route, the agent or a task fails, or `limits.route_seconds` passes.
When the agent has world sensors, the first tick runs without it (the sensors have
measured nothing yet), as the leaderboard's warm-up ticks do.

The result is plain data (JSON text and back, unchanged): how the route ended, and what
the leaderboard's statistics score (the dense route, each criterion's events, whether
the route timed out, the agent's sensor icons). run_route scores nothing itself: the
evaluation's driver (runner.execution.driver) feeds results to the one session that
writes results.json, in route order, wherever each route ran.
"""

from __future__ import annotations

import contextlib
import json
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from runner import map_store, route_scenarios
from runner.agent_sensors import WORLD_SENSORS, AgentSensors, validate_sensor_configuration
from runner.agents.base import AutonomousAgent, check_track
from runner.agents.loader import load_agent_class
from runner.config import Config, RouteSpec
from runner.errors import RunnerError
from runner.loop import MainLoop
from runner.planner import gps_plan, route_plan
from runner.seeds import consumer_seed
from runner.statistics import Failure, route_name
from world.geometry import Location, Transform
from world.settings import WorldSettings
from world.traffic.scene import populate_traffic
from world.world import World

__all__ = ["EGO_BLUEPRINT", "RouteResult", "SetupTasks", "route_id_of", "run_route"]

EGO_BLUEPRINT = "vehicle.lincoln.mkz_2020"
COLLISION_SENSOR = "sensor.other.collision"
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

SetupTasks = Callable[[MainLoop, World, Any], None]  # tasks a test starts on the route's loop


@dataclass
class RouteResult:
    """How one route repetition went, as plain data; `to_json` / `from_json` are exact
    inverses. `scored` says the route loaded, so its criteria are scored (a route that did
    not load is scored by its failure alone); `criteria` holds each criterion's events
    (kind, frame, message, data) in the leaderboard's order."""

    route_id: str
    failure: Failure = Failure.NONE
    message: str = ""
    traceback: str = ""
    scored: bool = False
    points: list[list[float]] = field(default_factory=list)
    criteria: list[list[dict[str, Any]]] = field(default_factory=list)
    timed_out: bool = False
    sensor_icons: list[str] | None = None  # None: the agent never got ready
    sensors: list[dict] = field(default_factory=list)  # the agent's sensor specs
    wall_seconds: float = 0.0
    game_seconds: float = 0.0
    agent_wall_seconds: float = 0.0
    ticks: int = 0  # world ticks, drain ticks included
    loop_ticks: int = 0  # ticks before the route stopped (what `lockstep check` runs again)
    stop_reason: str | None = None
    killed_tasks: list[str] = field(default_factory=list)
    has_log: bool = False
    worker_died: bool = False

    @property
    def events(self) -> list[str]:
        """The kinds of every criterion's events, in order."""
        return [event["kind"] for events in self.criteria for event in events]

    def to_json(self) -> bytes:
        """The fields in their order, as `asdict` would give them, without its deep copy of
        every point and event (a route's thousand points, twice a route): the encoder
        meets the lists and dicts as they are, and a dataclass (a Location in an event's
        data) or a numpy scalar only through `_plain`, which gives asdict's form of it."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["failure"] = self.failure.value
        return json.dumps(data, default=_plain).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes) -> RouteResult:
        data = json.loads(raw.decode("utf-8"))
        data["failure"] = Failure(data["failure"])
        return cls(**data)


def _plain(value: Any) -> Any:
    """Dataclass values (asdict's dict of their fields) and numpy scalars in criteria data,
    as JSON holds them."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} in a route result is not plain data")


def route_id_of(route: RouteSpec, repetition: int) -> str:
    """What results.json calls a route repetition: RouteScenario_<id>_rep<k>."""
    return f"{route_name(route.id)}_rep{repetition}"


def run_route(
    config: Config,
    route: RouteSpec,
    repetition: int,
    log_path: Path,
    *,
    max_ticks: int | None = None,
    setup_tasks: SetupTasks | None = None,
) -> RouteResult:
    """Runs one repetition of `route` with `config`'s agent, recording it to `log_path`."""
    return _RouteRun(config, route, repetition, log_path).run(max_ticks, setup_tasks)


class _RouteRun:
    """One route repetition's pieces as they are made, and the result as it fills."""

    def __init__(self, config: Config, route: RouteSpec, repetition: int, log_path: Path):
        self.config, self.route, self.repetition = config, route, repetition
        self.log_path = log_path
        self.began = time.perf_counter()
        self.result = RouteResult(route_id_of(route, repetition))
        self.world: Any = None
        self.ego: Any = None
        self.plan: list = []
        self.criteria: Any = None
        self.scenarios: Any = None
        self.agent: Any = None
        self.sensors: AgentSensors | None = None
        self.collision_sensor: Any = None
        self.provider: Any = None  # scenario_runner's CarlaDataProvider, when importable

    def run(self, max_ticks: int | None, setup_tasks: SetupTasks | None) -> RouteResult:
        stage = Failure.SCENARIO_LOAD
        try:
            self._load()
            self.result.scored = True
            stage = Failure.AGENT_SETUP
            self._set_agent_up()
            stage = Failure.SENSORS_INVALID
            self._check_sensors()
            stage = Failure.SCENARIO_LOAD
            recorder = self._start_recorder()
            self.collision_sensor = self._attach_collision_sensor()
        except Exception as exc:
            self._release()
            return self._finish(stage, f"{type(exc).__name__}: {exc}", traceback.format_exc())
        return self._drive(recorder, max_ticks, setup_tasks)

    # -- the stages -----------------------------------------------------------------------

    def _load(self) -> None:
        """The world, the plan, the ego, the traffic, the criteria and the scenarios."""
        config, route = self.config, self.route
        world_map, planner = map_store.map_and_planner(route.map_path)
        self.world = world = World(world_map)
        world.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=config.tick))
        world.set_weather(route.weather)
        points = [Location(*p) for p in route.definition.points]
        self.plan = plan = route_plan(world.get_map(), points, planner)
        if not plan:
            raise RunnerError(f"route {route.id}: the planner found no route through its points")
        self.ego = ego = _spawn_ego(world, plan)
        if config.vehicles or config.walkers:
            populate_traffic(
                world,
                config.vehicles,
                config.walkers,
                consumer_seed(config.seed, "traffic", route.id, self.repetition),
            )
        from runner.criteria import RouteCriteria

        self.criteria = RouteCriteria(world, ego, [tf for tf, _ in plan])
        self.scenarios = route_scenarios.prepare(
            config, route, self.repetition, world, ego, plan, self.criteria
        )
        self.result.points = [[tf.location.x, tf.location.y, tf.location.z] for tf, _ in plan]
        self.provider = fill_data_provider(world, ego, route.map_path.stem)

    def _set_agent_up(self) -> None:
        """The agent made, handed the world (built-in agents), the plan, then set up."""
        config = self.config
        cls = load_agent_class(config.agent_entry)
        self.agent = agent = cls("localhost", 2000, False)
        if isinstance(agent, AutonomousAgent) or hasattr(agent, "world"):
            agent.world, agent.ego = self.world, self.ego
            agent.seed = consumer_seed(config.seed, "agent", self.route.id, self.repetition)
        agent.set_global_plan(gps_plan(self.world.get_map(), self.plan), self.plan)
        agent.setup(config.agent_config)

    def _check_sensors(self) -> None:
        """The agent's sensors, checked as the leaderboard checks them, then attached."""
        specs = list(self.agent.sensors())
        check_track(self.agent.track, self.config.track)
        validate_sensor_configuration(specs, self.agent.track)
        self.result.sensors = specs
        seed = consumer_seed(self.config.seed, "sensors", self.route.id, self.repetition)
        self.sensors = AgentSensors(self.world, self.ego, specs, seed)
        self.result.sensor_icons = [SENSOR_ICONS[s["type"]] for s in specs]

    def _start_recorder(self) -> Any:
        from recorder.live.recorder import Recorder

        recorder = Recorder()
        recorder.start(
            self.world,
            str(self.log_path),
            self.route.map_path.stem,
            additional_data=self.config.additional_data,
        )
        return recorder

    def _attach_collision_sensor(self) -> Any:
        """The `sensor.other.collision` the leaderboard's CollisionTest spawns on the ego when
        the scenario tree first ticks: after the recorder started, before the first world
        tick. The log holds it (its EventAdd and EventParent in the first tick's frame) and
        every collision it hears, as CARLA's log of a leaderboard route does; it is destroyed
        when the criteria terminate, after the last recorded frame, so the log has no
        EventDel for it (CARLA's recorder drops what comes after its last frame)."""
        blueprint = self.world.get_blueprint_library().find(COLLISION_SENSOR)
        return self.world.spawn_actor(blueprint, Transform(), self.ego)

    def _drive(
        self, recorder: Any, max_ticks: int | None, setup_tasks: SetupTasks | None
    ) -> RouteResult:
        """The main loop until the route stops, then the criteria's end and the log closed."""
        world, ego, agent, criteria = self.world, self.ego, self.agent, self.criteria
        sensors, scenarios = self.sensors, self.scenarios
        assert sensors is not None
        warm_up = any(s["type"] in WORLD_SENSORS for s in self.result.sensors)
        replays_controls = getattr(agent, "replays_applied_controls", False)

        def agent_step(info) -> Any:
            if warm_up and info.frame == 0:
                return None  # the sensors measure in the first tick; the agent starts after it
            control = agent.run_step(sensors.input_data(info.frame), info.elapsed_seconds)
            control.manual_gear_shift = False
            if scenarios is not None:
                filtered = scenarios.ego_control(control)  # run always: the filters draw noise
                if not replays_controls:
                    control = filtered
            return control

        route_seconds = self.config.route_seconds

        def after_tick(info) -> str | None:
            criteria.update(world, ego)
            reason = criteria.stop_reason()
            if reason:
                return reason
            if route_seconds is not None and info.elapsed_seconds + 1e-9 >= route_seconds:
                return "route_seconds"
            return None

        if hasattr(agent, "start_frame"):
            agent.start_frame = world.get_snapshot().timestamp.frame
        loop = MainLoop(
            world,
            ego=ego,
            agent_step=agent_step,
            recorder=recorder,
            after_tick=after_tick,
            drain_ticks=self.config.drain_ticks,
        )
        if scenarios is not None:
            scenarios.attach(loop)
        if setup_tasks is not None:
            setup_tasks(loop, world, ego)
        ran = loop.run(max_ticks)
        result = self.result
        result.ticks, result.loop_ticks = ran.ticks, ran.ticks - ran.drain_ticks
        result.game_seconds = world.clock().elapsed_seconds
        result.agent_wall_seconds = ran.agent_wall_seconds
        result.stop_reason = ran.reason
        result.killed_tasks = list(ran.killed)
        failure, message, trace = Failure.NONE, "", ""
        if ran.failure is not None:
            kind = ran.failure.kind
            failure = Failure.AGENT_RUNTIME if kind == "agent" else Failure.SIMULATION_RUNTIME
            message, trace = ran.failure.message, ran.failure.traceback
        elif ran.killed:
            drain = self.config.drain_ticks
            message = f"tasks killed after {drain} drain ticks: {', '.join(ran.killed)}"
        try:
            criteria.terminate()
        except Exception as exc:  # a broken criterion fails the route, never the evaluation file
            if failure is Failure.NONE:
                failure, message = Failure.SIMULATION_RUNTIME, f"criteria: {exc}"
                trace = traceback.format_exc()
        self._take_collision_sensor_off()
        recorder.stop()
        self._release()
        result = self._finish(failure, message, trace)
        map_store.keep(self.route.map_path)  # what the route built of the map, for the next process
        return result

    # -- the end --------------------------------------------------------------------------

    def _take_collision_sensor_off(self) -> None:
        sensor, self.collision_sensor = self.collision_sensor, None
        if sensor is not None and sensor.is_alive:
            sensor.destroy()

    def _release(self) -> None:
        """The agent destroyed and its sensors taken off (the leaderboard ignores a failing
        cleanup of the agent too)."""
        self._take_collision_sensor_off()
        if self.agent is not None:
            with contextlib.suppress(Exception):
                self.agent.destroy()
        if self.sensors is not None:
            self.sensors.destroy()
        if self.provider is not None:
            self.provider.release()
            self.provider = None

    def _finish(self, failure: Failure, message: str, trace: str) -> RouteResult:
        result = self.result
        result.failure, result.message, result.traceback = failure, message, trace
        result.wall_seconds = time.perf_counter() - self.began
        if result.scored:
            result.criteria = [
                [
                    {"kind": e.kind.name, "frame": e.frame, "message": e.message, "data": e.data}
                    for e in criterion.events
                ]
                for criterion in self.criteria
            ]
            result.timed_out = bool(self.criteria.timeout.timed_out)
        result.has_log = self.log_path.is_file()
        return result


def fill_data_provider(world: World, ego: Any, map_name: str) -> Any:
    """scenario_runner's CarlaDataProvider filled for the route, as the leaderboard fills it,
    when scenario_runner can be imported (runner.carla.data_provider); None otherwise."""
    from runner.carla.data_provider import fill_data_provider as fill

    return fill(world, ego, map_name)


def _spawn_ego(world: World, plan: list) -> Any:
    first = plan[0][0]
    where = Transform(
        Location(first.location.x, first.location.y, first.location.z + SPAWN_LIFT),
        first.rotation,
    )
    blueprint = world.get_blueprint_library().find(EGO_BLUEPRINT).copy()
    blueprint.set_attribute("role_name", "hero")
    return world.spawn_actor(blueprint, where)
