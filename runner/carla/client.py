"""CARLA's `carla.Client` over an in-process lockstep world.

There is no server: a Client's "server" is the `Simulation` for its port, made on first use
and shared by every Client of that port (as CARLA's clients share one server). It holds the
current World, the maps it can load (runner.carla.maps), and the recorder and replayer
sessions. A world the client loads starts with CARLA's default settings (asynchronous,
fixed_delta_seconds None: lockstep steps 0.05 s, world.settings); in asynchronous mode the
world advances when the client waits for it (World.wait_for_tick). The host, port's meaning
as a network address, timeouts and worker threads are accepted and have no effect. Every
method takes CARLA 0.9.16's parameters by CARLA's keyword names (runner.carla.reference).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from runner.carla.command import Response, run_batch
from runner.carla.maps import GAME_PREFIX, MapCatalog, map_key
from world.settings import VARIABLE_STEP_STAND_IN

__all__ = [
    "CARLA_VERSION",
    "DEFAULT_DELTA",
    "Client",
    "Simulation",
    "attach_world",
    "configure",
    "sleep_in_simulation",
]

CARLA_VERSION = "0.9.16"  # the API version lockstep's namespace follows
DEFAULT_MAP = "town_small"
DEFAULT_DELTA = VARIABLE_STEP_STAND_IN  # s: the step of a world asked for a variable one
TM_DEFAULT_PORT = 8000

_SIMULATIONS: dict[int, Simulation] = {}
_CATALOG_FOLDERS: list[str] = []
_DEFAULT: dict[str, Any] = {"map": DEFAULT_MAP, "frames": None}


def configure(
    map_folders: list[str] | None = None,
    default_map: str | None = None,
    frames: int | None = None,
) -> None:
    """Sets where clients find maps, which map a first `get_world()` loads, and the frame at
    which a world interrupts its script as Ctrl+C would (World.interrupt_at_frame; None:
    never); forgets the simulations made so far (`lockstep exec` calls it first)."""
    _CATALOG_FOLDERS[:] = list(map_folders or [])
    _DEFAULT["map"] = default_map or DEFAULT_MAP
    _DEFAULT["frames"] = frames
    _SIMULATIONS.clear()


def sleep_in_simulation(seconds: float) -> bool:
    """A client's `time.sleep(seconds)` while its worlds run asynchronously: each such world
    (in port order) advances the steps that fit in `seconds` of simulated time, at least
    one, as a CARLA server running in real time would meanwhile. Returns whether any world
    was asynchronous (a synchronous world does not move while its client sleeps)."""
    moved = False
    for port in sorted(_SIMULATIONS):
        world = _SIMULATIONS[port].world
        if world is None or world.get_settings().synchronous_mode:
            continue
        moved = True
        steps = max(1, round(float(seconds) / world.get_settings().step))
        for _ in range(steps):
            world.tick()
    return moved


class Simulation:
    """What a CARLA server holds for its clients: the world, its recorder and replayer."""

    def __init__(self) -> None:
        self.catalog = MapCatalog.from_environment(_CATALOG_FOLDERS)
        self.world: Any = None
        self.map_name = ""
        self.recording: Any = None
        self.replaying: Any = None
        self.replay_callback: int | None = None  # the world's on_tick id that advances it

    def load(self, name: str, reset_settings: bool = True) -> Any:
        map_name, text = self.catalog.opendrive(name)
        return self._install(map_name, text, reset_settings)

    def load_text(self, map_name: str, text: str, reset_settings: bool = True) -> Any:
        return self._install(map_name, text, reset_settings)

    def _install(self, map_name: str, text: str, reset_settings: bool) -> Any:
        from world import Map, World, WorldSettings

        previous = None if (reset_settings or self.world is None) else self.world.get_settings()
        self.stop_recording()
        self.replaying, self.replay_callback = None, None
        world = World(Map(map_name, text))
        world.apply_settings(previous or WorldSettings())
        world.interrupt_at_frame = _DEFAULT["frames"]
        self.world, self.map_name = world, map_name
        return world

    def current(self) -> Any:
        return self.world if self.world is not None else self.load(_DEFAULT["map"])

    def stop_recording(self) -> None:
        if self.recording is not None:
            recorder, callback_id, world = self.recording
            world.remove_on_tick(callback_id)
            recorder.stop()
            self.recording = None


def attach_world(world: Any, map_name: str, port: int = 2000) -> None:
    """Makes `world` (made by lockstep's runner) the current world of `port`'s simulation, so
    a carla.Client of that port reaches it (the runner hands it to scenario_runner's
    CarlaDataProvider, runner.carla.data_provider)."""
    simulation = _simulation(port)
    simulation.stop_recording()
    simulation.replaying, simulation.replay_callback = None, None
    simulation.world, simulation.map_name = world, map_name


def _simulation(port: int) -> Simulation:
    if port not in _SIMULATIONS:
        _SIMULATIONS[port] = Simulation()
    return _SIMULATIONS[port]


class Client:
    """CARLA's Client(host, port, worker_threads): the in-process simulation of `port`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 2000, worker_threads: int = 0):
        self.host, self.port = str(host), int(port)
        self._timeout = 5.0
        self._sim = _simulation(self.port)

    # connection ---------------------------------------------------------------------------
    def set_timeout(self, seconds: float) -> None:
        """Kept (CARLA's network timeout); nothing in-process waits."""
        self._timeout = float(seconds)

    def get_client_version(self) -> str:
        return CARLA_VERSION

    def get_server_version(self) -> str:
        return CARLA_VERSION

    # worlds -------------------------------------------------------------------------------
    def get_world(self) -> Any:
        return self._sim.current()

    def get_available_maps(self) -> list[str]:
        return [GAME_PREFIX + name for name in self._sim.catalog.names()]

    def load_world(self, map_name: str, reset_settings: bool = True, map_layers: Any = None):
        return self._sim.load(map_name, reset_settings)

    def load_world_if_different(
        self, map_name: str, reset_settings: bool = True, map_layers: Any = None
    ) -> Any:
        """The new world, or None when `map_name` is the map already loaded."""
        if self._sim.world is not None and map_key(map_name) == self._sim.map_name:
            return None
        return self._sim.load(map_name, reset_settings)

    def reload_world(self, reset_settings: bool = True) -> Any:
        current = self._sim.current()
        return self._sim.load_text(
            self._sim.map_name, current.get_map().to_opendrive(), reset_settings
        )

    def generate_opendrive_world(
        self, opendrive: str, parameters: Any = None, reset_settings: bool = True
    ) -> Any:
        """A world on the OpenDRIVE text given (CARLA builds a mesh from it; lockstep needs
        none). `parameters` are accepted and not used."""
        return self._sim.load_text("OpenDriveMap", str(opendrive), reset_settings)

    def get_trafficmanager(self, port: int = TM_DEFAULT_PORT) -> Any:
        return self._sim.current().get_trafficmanager(int(port))

    # batches ------------------------------------------------------------------------------
    def apply_batch(self, commands: Iterable[Any], do_tick: bool = False) -> None:
        """Runs the batch; ticks after it when asked."""
        self.apply_batch_sync(commands, do_tick)

    def apply_batch_sync(self, commands: Iterable[Any], do_tick: bool = False) -> list[Response]:
        """Runs the batch and answers a Response per command; ticks after it when asked."""
        world = self._sim.current()
        responses: list[Response] = run_batch(world, commands)
        if do_tick:
            world.tick()
        return responses

    # recorder -----------------------------------------------------------------------------
    def start_recorder(
        self, name: str, additional_data: bool = False, stop_replayer: bool = True
    ) -> str:
        """Records every tick of the current world to the file `name` (recorder.Recorder);
        a recording already running is stopped first, and a replay too unless
        `stop_replayer` is False. Returns the file's path; a file that cannot be opened
        gives "" and a warning, as CARLA's recorder answers and records nothing."""
        from recorder import Recorder, RecorderError

        sim = self._sim
        sim.stop_recording()
        if stop_replayer and sim.replaying is not None:
            sim.replaying.stop(False)
        world = sim.current()
        path = Path(name)
        recorder = Recorder()
        try:
            recorder.start(world, path, sim.map_name, additional_data=bool(additional_data))
        except RecorderError as exc:
            print(f"WARNING: start_recorder: {exc}; nothing is recorded", file=sys.stderr)
            return ""
        callback_id = world.on_tick(lambda _snapshot: recorder.record(world))
        sim.recording = (recorder, callback_id, world)
        return str(path)

    def stop_recorder(self) -> None:
        self._sim.stop_recording()

    def show_recorder_file_info(self, name: str, show_all: bool = False) -> str:
        from recorder import query_info

        return query_info(name, bool(show_all))

    def show_recorder_collisions(self, name: str, type1: str, type2: str) -> str:
        from recorder import query_collisions

        return query_collisions(name, str(type1), str(type2))

    def show_recorder_actors_blocked(self, name: str, min_time: float, min_distance: float) -> str:
        from recorder import query_blocked

        return query_blocked(name, float(min_time), float(min_distance))

    # replayer -----------------------------------------------------------------------------
    def _replayer(self) -> Any:
        if self._sim.replaying is None:
            from recorder import Replayer

            self._sim.replaying = Replayer()
        return self._sim.replaying

    def replay_file(
        self,
        name: str,
        time_start: float,
        duration: float,
        follow_id: int,
        replay_sensors: bool = False,
        replay_weather: bool = False,
        offset: Any = None,
        map_override: str = "",
    ) -> str:
        """Starts replaying `name` into the current world (recorder.Replayer); the world's
        ticks advance it. Returns CARLA's replay text. `replay_weather`, the spectator's
        follow `offset` and `map_override` are accepted: lockstep's replayer keeps the
        world's weather and map and has no camera to place."""
        world = self._sim.current()
        replayer = self._replayer()
        text = replayer.replay_file(
            world,
            name,
            float(time_start),
            float(duration),
            int(follow_id),
            replay_sensors=bool(replay_sensors),
        )
        if self._sim.replay_callback is None:
            self._sim.replay_callback = world.on_tick(
                lambda snapshot: replayer.tick(snapshot.timestamp.delta_seconds)
            )
        return text

    def stop_replayer(self, keep_actors: bool) -> None:
        if self._sim.replaying is not None:
            self._sim.replaying.stop(bool(keep_actors))

    def set_replayer_time_factor(self, time_factor: float = 1.0) -> None:
        self._replayer().set_time_factor(float(time_factor))

    def set_replayer_ignore_hero(self, ignore_hero: bool) -> None:
        self._replayer().set_ignore_hero(bool(ignore_hero))

    def set_replayer_ignore_spectator(self, ignore_spectator: bool) -> None:
        self._replayer().set_ignore_spectator(bool(ignore_spectator))
