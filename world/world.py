"""World: the actor registry, settings, the tick and its snapshot (CARLA's carla.World).

Two clocks count the same ticks: lockstep's own (`clock()`: exact multiples of the step, what
the runner, the recorder and the scenarios read) and the Timestamp a client reads in the
snapshot, which carries CARLA's numbers: Unreal's tick delta is a float32, so CARLA's
`delta_seconds` for a step of 0.05 s is 0.05000000074505806 and `elapsed_seconds` their sum
in doubles (the leaderboard's pseudo-sensors read at "more than 1/20 s" since the last read:
exact sums would never pass that test).

Synchronous or asynchronous, the world steps a fixed time per tick and only when asked:
`tick()` in either mode, and in asynchronous mode each `wait_for_tick()` too (a CARLA
server runs on by itself; lockstep has no clock, so a client's wait is what moves it).

Actor ids start at 1: the spectator is actor 1, then the map's traffic lights
and signs (world.traffic.signals.install places them; static actor providers given to the
constructor replace them), then spawned actors. A failed spawn changes nothing
and uses no id. The tick runs its systems in the fixed phase order TICK_PHASES
(physics and sensors are built in; traffic signs, lights and trigger boxes plug
in with `add_tick_system`), then takes the snapshot.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from world import probes
from world.actors.actor_list import ActorList
from world.actors.attachments import compose, relative_pose, update_attached
from world.actors.blueprints import ActorBlueprint, BlueprintLibrary, blueprint_library
from world.actors.body_models import body_of
from world.actors.vehicle_state import (
    ActorType,
    AttachmentType,
    CityObjectLabel,
    TrafficLightState,
)
from world.debug import DebugHelper
from world.errors import WorldError
from world.geometry import Location, Transform, Vector3D, wrap_yaw
from world.handles import (
    Actor,
    RssSensor,
    Sensor,
    Spectator,
    TrafficLight,
    TrafficSign,
    Vehicle,
    Walker,
    WalkerAIController,
)
from world.physics import collisions
from world.physics import tick as physics
from world.physics.body_pitch import load_suspension, suspension_of
from world.physics.collisions import CollisionEvent
from world.physics.control import VehiclePhysicsControl
from world.physics.vehicle_dynamics import load_physics_control
from world.sensors import SensorBehaviour, SensorSystem
from world.sensors.attribute_ranges import check_attributes
from world.sensors.registry import check_available
from world.sensors.scene_frame import FrameScene, RenderingFrame
from world.settings import VARIABLE_STEP_STAND_IN, WorldSettings, substep_count, substep_warnings
from world.snapshot import Timestamp, WorldSnapshot, settle_and_copy
from world.state import ActorTable, StateTables, VehicleTable, WalkerTable
from world.street_lights import LightManager
from world.traffic.autopilot.manager import TrafficManager
from world.traffic.signals.install import WorldTraffic, install_traffic
from world.traffic.walkers.ai import WalkerAISystem
from world.weather import WeatherParameters

_SENSOR = int(ActorType.Sensor)  # a plain int: numpy compares an IntEnum slowly

__all__ = ["EPISODE_ID", "TICK_PHASES", "StaticActorProvider", "TickSystem", "World"]

FLAT_PROP_HEIGHT = 0.2  # m: a prop lower than this (debris, tiles, litter) is driven over

# A world is one episode: its id (carla.World.id, WorldSnapshot.id) is fixed, so it is the
# same in every run.
EPISODE_ID = 1

TICK_PHASES = (
    "sign_timers",
    "light_groups",
    "traffic_manager",
    "physics",
    "trigger_boxes",
    "sensors",
)

TickSystem = Callable[["World", float], None]
StaticActorProvider = Callable[["World"], None]

_HANDLES: dict[int, type[Actor]] = {
    ActorType.Vehicle: Vehicle,
    ActorType.Walker: Walker,
    ActorType.TrafficLight: TrafficLight,
    ActorType.TrafficSign: TrafficSign,
    ActorType.Sensor: Sensor,
}
# Handles for blueprint ids whose kind alone does not tell.
_TYPE_HANDLES: dict[str, type[Actor]] = {
    "controller.ai.walker": WalkerAIController,
    "sensor.other.rss": RssSensor,
}


@dataclass(slots=True)
class ActorInfo:
    """An actor's Python-side data: what the renderer and sensors read, not the hot state."""

    type_id: str
    attributes: dict[str, str]
    semantic_tags: list[int]
    handle: type[Actor]
    physics_control: VehiclePhysicsControl | None = None
    bones: dict[str, Transform] = field(default_factory=dict)
    pose_blend: float = 0.0


def _warn(text: str) -> None:
    """A warning on stderr in CARLA's client's words and form (LibCarla's log_warning)."""
    print(f"WARNING: {text}", file=sys.stderr)


def _kind_of(type_id: str) -> ActorType:
    for prefix, kind in (
        ("vehicle.", ActorType.Vehicle),
        ("walker.", ActorType.Walker),
        ("sensor.", ActorType.Sensor),
    ):
        if type_id.startswith(prefix):
            return kind
    return ActorType.Other


def _attributes(blueprint: ActorBlueprint) -> dict[str, str]:
    return {attribute.id: attribute.value for attribute in blueprint}


def _wheels_moved(
    pc: VehiclePhysicsControl, transform: Transform, to_world: bool
) -> VehiclePhysicsControl:
    """A copy of `pc` with its wheel positions (cm) moved between the vehicle's and the world's
    frame: CARLA reports and takes them in the world frame, the physics keeps them local."""
    out = pc.copy()
    for wheel in out.wheels:
        p = wheel.position
        point = Location(p.x / 100.0, p.y / 100.0, p.z / 100.0)
        moved = transform.transform(point) if to_world else transform.inverse_transform(point)
        wheel.position = Vector3D(moved.x * 100.0, moved.y * 100.0, moved.z * 100.0)
    return out


class World:
    """A map, its actors and their physics, stepped in fixed ticks (synchronous only).

    `static_actor_providers` None (the default) places the map's traffic lights and signs;
    a list of providers places their actors instead, and the world has no traffic system.
    """

    def __init__(
        self, map: Any, static_actor_providers: Iterable[StaticActorProvider] | None = None
    ) -> None:
        self._map = map
        self._adopt(WorldSettings())
        self._actors = ActorTable()
        self._vehicles = VehicleTable()
        self._walkers = WalkerTable()
        # the tables are made once (they grow in place), so one StateTables serves every ask
        self._tables = StateTables(self._actors, self._vehicles, self._walkers)
        self._info: list[ActorInfo] = []
        self._frame = 0
        self._elapsed = 0.0
        self._delta = 0.0
        self._stamp = Timestamp(0, 0.0, 0.0, 0.0)  # clock()'s answer, made again on a new frame
        self._client_elapsed = 0.0  # the sum of CARLA's float32 deltas (the module docstring)
        self._client_delta = 0.0
        self._library: BlueprintLibrary | None = None
        self._weather = WeatherParameters()
        self._weather_sets = 0
        self._collisions: list[CollisionEvent] = []
        # bumped by every spawn and destroy (the only writers of the alive and kind columns):
        # what the tick works out from the set of live actors (the sensors' rows, the
        # snapshot's rows) is worked out again only when it moved
        self._roster = 0
        self._sensor_roster = -1
        self._sensor_rows: list[int] = []
        self._sensors_made = -1  # the roster whose sensors all have their behaviour made
        self._snapshot_roster = -1
        self._snapshot_ids = np.zeros(0, np.int64)
        self._kill_z: float | None = None
        self._fleet_cache = physics.FleetCache()
        self._systems: list[tuple[str, TickSystem]] = [
            ("physics", World._physics_system),
            ("sensors", World._sensors_system),
        ]
        self._sensors = SensorSystem()
        self._rendering = RenderingFrame()
        self._traffic: WorldTraffic | None = None
        # the traffic managers by port (made on first use, in that order) and the AI walkers'
        # system (made when a walker controller, the pedestrians' seed or their cross factor
        # is first used): their state is theirs, these slots only hold them
        self._traffic_managers: dict[int, TrafficManager] = {}
        self._walker_ai: WalkerAISystem | None = None
        self._tick_callbacks: dict[int, Callable[[WorldSnapshot], None]] = {}
        self._next_callback_id = 1
        self._told_variable_step = False
        self._light_manager: LightManager | None = None
        self.interrupt_at_frame: int | None = None
        self._debug = DebugHelper(lambda: (self._frame, self._elapsed))
        self._placing_static = True
        self._add_actor("spectator", {}, ActorType.Other, [], Spectator)
        if static_actor_providers is None:
            self._traffic = install_traffic(self)
        else:
            for provider in static_actor_providers:
                provider(self)
        self._placing_static = False
        self._snapshot = self._take_snapshot()

    # settings, map, library, weather ----------------------------------------------------
    @property
    def id(self) -> int:
        """The episode id (CARLA's World.id); every lockstep world is one episode."""
        return EPISODE_ID

    def get_map(self) -> Any:
        return self._map

    def get_settings(self) -> WorldSettings:
        return self._settings.copy()

    def apply_settings(self, settings: WorldSettings, seconds: float = 0.0) -> int:
        """Validates and applies `settings` (nothing changes when refused), with CARLA's
        client's warnings on stderr; returns the frame (seconds: CARLA's timeout, unused)."""
        candidate = settings.copy()
        candidate.validate()
        for text in substep_warnings(candidate):
            _warn(text)
        self._adopt(candidate)
        return self._frame

    def _adopt(self, settings: WorldSettings) -> None:
        """Makes `settings` the world's, with what a tick reads of them worked out once: the
        step, its float32 (the client's delta) and the substeps."""
        self._settings = settings
        self._step = settings.step
        self._client_step = float(np.float32(settings.step))
        self._substeps = substep_count(settings)

    def get_blueprint_library(self) -> BlueprintLibrary:
        """CARLA's blueprint catalogue (one library per world, made when first asked)."""
        if self._library is None:
            self._library = blueprint_library()
        return self._library

    def get_lightmanager(self) -> LightManager:
        """The world's street lights (world.street_lights: an OpenDRIVE map has none)."""
        if self._light_manager is None:
            self._light_manager = LightManager()
        return self._light_manager

    @property
    def debug(self) -> DebugHelper:
        """The debug drawings (CARLA's world.debug), kept as data (world.debug)."""
        return self._debug

    def get_weather(self) -> WeatherParameters:
        return self._weather.copy()

    def set_weather(self, weather: WeatherParameters) -> None:
        self._weather = weather.copy()
        self._weather_sets += 1

    @property
    def weather_sets(self) -> int:
        """How many times set_weather was called (readers such as the recorder look at the
        weather again only when this moves)."""
        return self._weather_sets

    # tick ---------------------------------------------------------------------------------
    def add_tick_system(self, phase: str, system: TickSystem) -> None:
        """Adds `system(world, dt)` to run each tick in `phase`, after the phase's earlier ones."""
        if phase not in TICK_PHASES:
            raise WorldError(
                f"add_tick_system: unknown phase {phase!r}, expected one of "
                f"{', '.join(TICK_PHASES)}"
            )
        order = TICK_PHASES.index(phase)
        at = sum(1 for p, _ in self._systems if TICK_PHASES.index(p) <= order)
        self._systems.insert(at, (phase, system))

    def tick(self, seconds: float = 0.0) -> int:
        """Advances one fixed step and returns the new frame (seconds: CARLA's timeout, unused).

        With `interrupt_at_frame` set (`lockstep exec --frames`), the tick that reaches that
        frame completes and then raises KeyboardInterrupt once, as a user's Ctrl+C would
        reach a script waiting on the world."""
        if self._settings.fixed_delta_seconds is None and not self._told_variable_step:
            self._told_variable_step = True
            _warn(
                "fixed_delta_seconds is None (a variable step in CARLA): lockstep steps a "
                f"fixed {VARIABLE_STEP_STAND_IN} s"
            )
        # the step, its float32 and the substeps are worked out when the settings are applied
        dt = self._step
        self._frame += 1
        self._elapsed += dt
        self._delta = dt
        self._client_delta = self._client_step
        self._client_elapsed += self._client_delta
        self._collisions = []
        for _phase, system in self._systems:
            system(self, dt)
        self._snapshot = self._take_snapshot(wrap=True)
        self._debug.expire(self._frame, self._elapsed)
        if self._tick_callbacks:
            for callback_id in sorted(self._tick_callbacks):
                callback = self._tick_callbacks.get(callback_id)
                if callback is not None:  # (a callback may remove a later one)
                    callback(self._snapshot)
        if self.interrupt_at_frame is not None and self._frame >= self.interrupt_at_frame:
            self.interrupt_at_frame = None
            raise KeyboardInterrupt(f"lockstep: frame {self._frame} reached")
        return self._frame

    # probes: rays, projections, the level's boxes (world.probes) -------------------------
    def cast_ray(self, initial_location: Location, final_location: Location) -> list:
        """Every point the segment meets on the ground or an actor's box, nearest first."""
        return probes.cast_ray(self, initial_location, final_location)

    def project_point(
        self, location: Location, direction: Vector3D, search_distance: float = 10000.0
    ) -> Any:
        """The first point the ray from `location` along `direction` meets, or None."""
        return probes.project_point(self, location, direction, float(search_distance))

    def ground_projection(self, location: Location, search_distance: float = 10000.0) -> Any:
        """The first point straight below `location`, or None."""
        return probes.ground_projection(self, location, float(search_distance))

    def get_level_bbs(self, bb_type: CityObjectLabel = CityObjectLabel.Any) -> list:
        """The level's boxes of `bb_type` (lockstep's level: the lights' and signs')."""
        return probes.level_boxes(self, CityObjectLabel(bb_type))

    def get_environment_objects(self, object_type: CityObjectLabel = CityObjectLabel.Any) -> list:
        """The level's objects of `object_type` (the map's traffic lights and signs)."""
        return probes.environment_objects(self, CityObjectLabel(object_type))

    def on_tick(self, callback: Callable[[WorldSnapshot], None]) -> int:
        """Calls `callback(snapshot)` at the end of every tick, in registration order;
        returns the id that `remove_on_tick` takes (CARLA's World.on_tick)."""
        callback_id = self._next_callback_id
        self._next_callback_id += 1
        self._tick_callbacks[callback_id] = callback
        return callback_id

    def remove_on_tick(self, callback_id: int) -> None:
        """Stops the callback `on_tick` returned `callback_id` for; unknown ids are ignored."""
        self._tick_callbacks.pop(int(callback_id), None)

    def _physics_system(self, dt: float) -> None:
        i, j, impulse = physics.step(
            self._actors,
            self._vehicles,
            self._walkers,
            self._map,
            dt,
            self._substeps,
            self._fleet_cache,
        )
        if len(i):  # (most ticks have no collision)
            self._collisions = [
                CollisionEvent(
                    self._frame,
                    int(a) + 1,
                    int(b) + 1,
                    Vector3D(float(p[0]), float(p[1]), float(p[2])),
                )
                for a, b, p in zip(i.tolist(), j.tolist(), impulse, strict=True)
            ]
        self._destroy_fallen()

    def _destroy_fallen(self) -> None:
        """Destroys, with a warning, the bodies that fell below the map's kill height (CARLA's
        world bounds do the same), so a body that leaves the ground does not fall forever.
        Only bodies the physics moves under gravity fall: one placed down there with its
        physics or gravity off (a replayed actor, as CARLA's logs hold some) stays."""
        a, n = self._actors, self._actors.n
        if self._kill_z is None:  # the map's, once (a map without one: minus infinity)
            kill_height = getattr(self._map, "kill_height", None)
            self._kill_z = -math.inf if kill_height is None else float(kill_height())
        below = self._kill_z
        if n == 0 or not a.lowest() < below:
            return  # nothing down there (every tick but a fall's): no masks to build
        falling = a.alive[:n] & a.body[:n] & a.simulate_physics[:n] & a.gravity[:n]
        fallen = np.flatnonzero(falling & (a.pos[:n, 2] < below))
        for row in fallen.tolist():
            warnings.warn(
                f"actor {row + 1} ({self._info[row].type_id}) fell below the world's kill "
                f"height ({below:.1f} m) and was destroyed",
                RuntimeWarning,
                stacklevel=3,
            )
            self._destroy(row + 1)

    def _sensors_system(self, dt: float) -> None:
        """Gives new sensor actors their behaviour, forgets dead ones, steps them in id order."""
        if self._sensor_roster != self._roster:  # a spawn or a destroy since the last look
            self._sensor_roster = self._roster
            a, n = self._actors, self._actors.n
            rows = np.flatnonzero(a.alive[:n] & (a.kind[:n] == _SENSOR))
            live = set((rows + 1).tolist())
            for actor_id in self._sensors.ids():
                if actor_id not in live:
                    self._sensors.remove(actor_id)
            self._sensor_rows = rows.tolist()
        if not self._sensor_rows and not self._sensors.has_any():
            return  # no sensor to forget, make or step
        if self._sensors_made != self._roster:  # (a pass of the same rows would make none)
            for row in self._sensor_rows:
                self._sensor_behaviour(row + 1)
            self._sensors_made = self._roster
        self._sensors.tick(self, self._frame, self._client_elapsed, self._client_delta)

    def _sensor_behaviour(self, actor_id: int) -> SensorBehaviour | None:
        """A live sensor actor's behaviour, made when first asked; None when it needs rendering
        or is gone."""
        if not self._actors.alive[actor_id - 1]:
            return None
        found = self._sensors.get(actor_id)
        if found is None and not self._sensors.known(actor_id):
            info = self._info[actor_id - 1]
            found = self._sensors.add(self._handle(actor_id), info.type_id, info.attributes)
        return found

    def frame_scene(self) -> FrameScene:
        """This frame's scene for the rendering sensors (world.sensors.scene_frame): the map's
        static scene and the actors posed now, assembled on the frame's first ask."""
        light_state = np.full(self._actors.n, int(TrafficLightState.Off), np.int8)
        if self._traffic is not None:
            views = self._traffic.light_views()
            light_state[views.ids - 1] = views.state
        return self._rendering.scene(
            self._frame,
            self._map,
            self.state_tables(),
            [info.type_id for info in self._info],
            [info.attributes for info in self._info],
            light_state,
        )

    def collision_events(self) -> list[CollisionEvent]:
        """The pairs whose boxes touched during the last tick, sorted by (actor_id, other_id)."""
        return list(self._collisions)

    def _take_snapshot(self, wrap: bool = False) -> WorldSnapshot:
        """Copies the live actors' pose and motion, with `wrap` (a tick's end) after wrapping
        every yaw into (-180, 180], in one compiled call (world.snapshot.settle_and_copy)."""
        a, n = self._actors, self._actors.n
        if self._snapshot_roster != self._roster:
            self._snapshot_roster = self._roster
            self._snapshot_ids = np.flatnonzero(a.alive[:n]) + 1
        ids = self._snapshot_ids
        block = settle_and_copy(a.pos, a.rot, a.vel, a.angvel, a.acc, n if wrap else 0, ids)
        return WorldSnapshot(
            EPISODE_ID, self._frame, self._client_elapsed, self._client_delta, ids, block
        )

    @property
    def roster(self) -> int:
        """A count bumped by every spawn and destroy: a reader that worked something out from
        the set of live actors (which vehicles are traffic, say) need not look again while
        it stays the same."""
        return self._roster

    def state_tables(self) -> StateTables:
        """The actor, vehicle and walker tables (world.state), to read between ticks; re-ask
        after a spawn, which may replace their arrays."""
        return self._tables

    def get_snapshot(self) -> WorldSnapshot:
        return self._snapshot

    def clock(self) -> Timestamp:
        """lockstep's own clock: the frame, the exact elapsed time (a sum of the steps) and the
        last step, as the runner, the recorder and the scenarios count time; the snapshot's
        Timestamp carries CARLA's float32 steps instead (the module docstring). One frozen
        Timestamp a frame (only the tick moves the frame, the time and the step together):
        the loop, the recorder and the criteria ask several times a tick, and making one
        costs about 1.5 us."""
        stamp = self._stamp
        if stamp.frame != self._frame:
            stamp = self._stamp = Timestamp(self._frame, self._elapsed, self._delta, 0.0)
        return stamp

    def wait_for_tick(self, seconds: float = 0.0) -> WorldSnapshot:
        """The next tick's snapshot. Asynchronous: the world advances one step now (the wait
        is what moves it). Synchronous: the last tick's snapshot, as the only client is the
        one that ticks (CARLA would wait for another client's tick)."""
        if not self._settings.synchronous_mode:
            self.tick(seconds)
        return self._snapshot

    # traffic lights -----------------------------------------------------------------------
    def freeze_all_traffic_lights(self, frozen: bool) -> None:
        """Stops (or restarts) the clock of every light."""
        self.traffic_signals(required=True).groups.frozen = bool(frozen)

    def reset_all_traffic_lights(self) -> None:
        """Every group back to its first controller's green, elapsed 0."""
        self.traffic_signals(required=True).system.reset_all(self._vehicles)

    def get_traffic_light_from_opendrive_id(self, traffic_light_id: str) -> Actor | None:
        """The light placed for the OpenDRIVE signal `traffic_light_id`, or None."""
        actor_id = self.traffic_signals(required=True).light_with_opendrive_id(traffic_light_id)
        return None if actor_id is None else self._handle(actor_id)

    def get_traffic_light(self, landmark: Any) -> Actor | None:
        """The light placed for a landmark's signal, or None."""
        return self.get_traffic_light_from_opendrive_id(landmark.id)

    def get_traffic_lights_from_waypoint(self, waypoint: Any, distance: float) -> list[Actor]:
        """The lights whose signals apply to the waypoint's lane within `distance` m ahead,
        each once, nearest first."""
        if not math.isfinite(distance) or distance < 0.0:
            raise WorldError(
                "get_traffic_lights_from_waypoint: distance must be finite and >= 0, "
                f"got {distance!r}"
            )
        out: list[Actor] = []
        for landmark in waypoint.get_landmarks(distance):
            light = self.get_traffic_light(landmark)
            if light is not None and light not in out:
                out.append(light)
        return out

    def get_traffic_lights_in_junction(self, junction_id: int | str) -> list[Actor]:
        """The lights of the OpenDRIVE junction's group, in actor id order."""
        return [
            self._handle(i)
            for i in self.traffic_signals(required=True).lights_in_junction(junction_id)
        ]

    # traffic manager and pedestrians ------------------------------------------------------
    def get_trafficmanager(self, port: int = 8000) -> TrafficManager:
        """The traffic manager of `port` (world.traffic.autopilot.manager), made (and put in
        the tick's traffic_manager phase) on first use."""
        port = int(port)
        manager = self._traffic_managers.get(port)
        if manager is None:
            manager = TrafficManager(self, port, removes_stuck=True)
            self._traffic_managers[port] = manager
            self.add_tick_system("traffic_manager", lambda _world, dt: manager.step(dt))
        return manager

    def traffic_managers(self) -> list[TrafficManager]:
        """The world's traffic managers, in the order they were made."""
        return list(self._traffic_managers.values())

    def walker_ai(self) -> WalkerAISystem:
        """The AI walkers' system (world.traffic.walkers.ai), made (and put in the tick's
        traffic_manager phase) on first use."""
        if self._walker_ai is None:
            system = self._walker_ai = WalkerAISystem(self)
            self.add_tick_system("traffic_manager", lambda _world, dt: system.tick(dt))
        return self._walker_ai

    def traffic_signals(self, required: bool = False) -> WorldTraffic | None:
        """The map's lights, signs and their boxes (world.traffic.signals.install); None for
        a world made with static actor providers, or a WorldError when `required`."""
        if self._traffic is None and required:
            raise WorldError(
                "this world has no traffic system (it was made with static_actor_providers)"
            )
        return self._traffic

    @property
    def tick_systems(self) -> list[tuple[str, TickSystem]]:
        """The tick's systems in the order they run, (phase, system) each (a copy; for
        profilers, which may put timed wrappers back in the same order)."""
        return list(self._systems)

    @tick_systems.setter
    def tick_systems(self, systems: list[tuple[str, TickSystem]]) -> None:
        phases = [phase for phase, _ in systems]
        if phases != [phase for phase, _ in self._systems]:
            raise WorldError("tick_systems: the phases must stay as they are, in their order")
        self._systems = list(systems)

    def get_random_location_from_navigation(self) -> Any:
        """A random sidewalk point (world.traffic.walkers.ai), from the pedestrians' generator."""
        return self.walker_ai().random_location()

    def set_pedestrians_seed(self, seed: int) -> None:
        self.walker_ai().set_seed(seed)

    def set_pedestrians_cross_factor(self, percentage: float) -> None:
        """Share (0..1) of AI walkers that cross roads on their way."""
        self.walker_ai().set_cross_factor(percentage)

    # actors -------------------------------------------------------------------------------
    def _handle(self, actor_id: int) -> Actor:
        return self._info[actor_id - 1].handle(self, actor_id)

    def get_spectator(self) -> Spectator:
        return Spectator(self, 1)

    def get_actor(self, actor_id: int) -> Actor | None:
        actor_id = int(actor_id)
        if 1 <= actor_id <= self._actors.n and self._actors.alive[actor_id - 1]:
            return self._handle(actor_id)
        return None

    def get_actors(self, actor_ids: Sequence[int] | None = None) -> ActorList:
        """Every live actor in id order; given `actor_ids`, the live ones among them in the
        order asked (an id asked twice comes twice), as CARLA's client answers
        (CachedActorList::GetActorsById walks the ids given): its generate_traffic.py pairs
        each walker with its controller by that order."""
        a = self._actors
        if actor_ids is None:
            rows = np.flatnonzero(a.alive[: a.n]).tolist()
            return ActorList([self._handle(r + 1) for r in rows])
        found = (self.get_actor(int(i)) for i in actor_ids)
        return ActorList([actor for actor in found if actor is not None])

    def register_static_actor(
        self,
        type_id: str,
        kind: ActorType,
        transform: Transform,
        extent: Vector3D | None = None,
        attributes: dict[str, str] | None = None,
    ) -> Actor:
        """Adds a traffic light, sign or other map actor; only while the world is being made."""
        if not self._placing_static:
            raise WorldError(
                "register_static_actor: map actors are placed when the world is "
                "made, right after the spectator"
            )
        tags = {
            ActorType.TrafficLight: [CityObjectLabel.TrafficLight],
            ActorType.TrafficSign: [CityObjectLabel.TrafficSigns],
        }.get(kind, [])
        handle = _HANDLES.get(kind, Actor)
        actor = self._add_actor(
            type_id, dict(attributes or {}), kind, [int(t) for t in tags], handle
        )
        self._place(actor.id - 1, transform)
        self._note_spawn(actor.id - 1, transform, -1)
        if extent is not None:
            self._actors.extent[actor.id - 1] = (extent.x, extent.y, extent.z)
        return actor

    def _add_actor(
        self,
        type_id: str,
        attributes: dict[str, str],
        kind: ActorType,
        tags: list[int],
        handle: type[Actor],
    ) -> Actor:
        row = self._actors.add_row()
        self._roster += 1
        self._actors.alive[row] = True
        self._actors.kind[row] = int(kind)
        self._info.append(ActorInfo(type_id, attributes, tags, handle))
        return handle(self, row + 1)

    def _place(self, row: int, transform: Transform) -> None:
        loc, rot = transform.location, transform.rotation
        self._actors.pos[row] = (loc.x, loc.y, loc.z)
        self._actors.rot[row] = (rot.pitch, float(wrap_yaw(np.array([rot.yaw]))[0]), rot.roll)

    def spawn_actor(
        self,
        blueprint: ActorBlueprint,
        transform: Transform,
        attach_to: Actor | None = None,
        attachment_type: AttachmentType = AttachmentType.Rigid,
        bone: str = "",
    ) -> Actor:
        """Spawns `blueprint` at `transform` (in `attach_to`'s frame when given; attached
        rigidly, at the parent's origin whatever `bone` names)."""
        actor = self.try_spawn_actor(blueprint, transform, attach_to, attachment_type, bone)
        if actor is None:
            raise WorldError(
                f"spawn_actor: {blueprint.id} at {transform.location} collides "
                "with a vehicle or walker"
            )
        return actor

    def try_spawn_actor(
        self,
        blueprint: ActorBlueprint,
        transform: Transform,
        attach_to: Actor | None = None,
        attachment_type: AttachmentType = AttachmentType.Rigid,
        bone: str = "",
    ) -> Actor | None:
        """Like spawn_actor, but None when the new body's box overlaps a vehicle or walker."""
        type_id = blueprint.id
        kind = _kind_of(type_id)
        body = body_of(type_id)
        if attach_to is not None:
            if kind in (ActorType.Vehicle, ActorType.Walker):
                raise WorldError(
                    f"spawn_actor: a {kind.name.lower()} ({type_id}) cannot have a parent"
                )
            if not attach_to.is_alive or attach_to.get_world() is not self:
                raise WorldError(f"spawn_actor: parent actor {attach_to.id} is not alive here")
        if kind in (ActorType.Vehicle, ActorType.Walker) and self._overlaps(
            transform, body.extent, body.box_loc
        ):
            return None
        attributes = _attributes(blueprint)
        if kind == ActorType.Sensor:
            check_attributes(type_id, attributes)  # before anything is made for it
            check_available(type_id)  # an optional library it needs (the RSS sensor's)
        tags = [int(body.semantic_tag)] if body.semantic_tag else []
        handle = _TYPE_HANDLES.get(type_id) or _HANDLES.get(kind, Actor)
        actor = self._add_actor(type_id, attributes, kind, tags, handle)
        a, row = self._actors, actor.id - 1
        a.extent[row], a.box_loc[row] = body.extent, body.box_loc
        a.mass[row] = body.mass
        a.body[row] = kind in (ActorType.Vehicle, ActorType.Walker)
        a.static_collider[row] = (
            type_id.startswith("static.prop.") and 2.0 * float(body.extent[2]) >= FLAT_PROP_HEIGHT
        )
        if kind == ActorType.Vehicle:
            vrow = self._vehicles.add_row()
            self._vehicles.actor[vrow] = row
            a.vrow[row] = vrow
            self._load_physics_control(row, body.physics_control)
        elif kind == ActorType.Walker:
            wrow = self._walkers.add_row()
            self._walkers.actor[wrow] = row
            a.wrow[row] = wrow
        if attach_to is None:
            self._place(row, transform)
        else:
            self._attach(row, attach_to.id - 1, transform)
        self._note_spawn(row, transform, -1 if attach_to is None else attach_to.id - 1)
        return actor

    def _note_spawn(self, row: int, transform: Transform, parent: int) -> None:
        """Keeps the spawn transform as given, the parent row and the frame (for the recorder)."""
        a, loc, rot = self._actors, transform.location, transform.rotation
        a.spawn_pos[row] = (loc.x, loc.y, loc.z)
        a.spawn_rot[row] = (rot.pitch, rot.yaw, rot.roll)
        a.spawn_parent[row] = parent
        a.spawn_frame[row] = self._frame

    def _overlaps(self, transform: Transform, extent: np.ndarray, box_loc: np.ndarray) -> bool:
        a, n = self._actors, self._actors.n
        others = np.flatnonzero(a.alive[:n] & a.body[:n])
        loc = transform.location
        mine = collisions.footprints(
            np.array([[loc.x, loc.y, loc.z]]),
            np.array([transform.rotation.yaw]),
            extent[None],
            box_loc[None],
        )
        theirs = collisions.footprints(
            a.pos[others], a.rot[others, 1], a.extent[others], a.box_loc[others]
        )
        return collisions.overlaps_any(mine, theirs)

    def _attach(self, row: int, parent: int, relative: Transform) -> None:
        a = self._actors
        loc, rot = relative.location, relative.rotation
        a.parent[row] = parent
        a.depth[row] = a.depth[parent] + 1
        a.rel_pos[row] = (loc.x, loc.y, loc.z)
        a.rel_rot[row] = (rot.pitch, float(wrap_yaw(np.array([rot.yaw]))[0]), rot.roll)
        pos, rot_w = compose(a.pos[[parent]], a.rot[[parent]], a.rel_pos[[row]], a.rel_rot[[row]])
        rot_w[:, 1] = wrap_yaw(rot_w[:, 1])
        a.pos[row], a.rot[row] = pos[0], rot_w[0]

    def _set_pose(self, row: int, pos: np.ndarray, rot: np.ndarray) -> None:
        """Moves an actor; an attached one keeps the new pose relative to its parent."""
        a = self._actors
        rot = np.array(rot, dtype=np.float64)
        rot[1:2] = wrap_yaw(rot[1:2])
        a.pos[row], a.rot[row] = pos, rot
        parent = int(a.parent[row])
        if parent >= 0 and a.depth[row] > 0:
            rel_pos, rel_rot = relative_pose(a.pos[[parent]], a.rot[[parent]], pos[None], rot[None])
            rel_rot[:, 1] = wrap_yaw(rel_rot[:, 1])
            a.rel_pos[row], a.rel_rot[row] = rel_pos[0], rel_rot[0]
        self._move_children(row)

    def _move_children(self, row: int) -> None:
        if np.any(self._actors.parent[: self._actors.n] == row):
            update_attached(self._actors)

    def _apply_physics_control(self, row: int, physics_control: VehiclePhysicsControl) -> None:
        """CARLA's apply_physics_control: wheel positions in the world frame (cm)."""
        here = self._handle(row + 1).get_transform()
        self._load_physics_control(row, _wheels_moved(physics_control, here, to_world=False))

    def _physics_control(self, row: int) -> VehiclePhysicsControl:
        """CARLA's get_physics_control: wheel positions in the world frame (cm)."""
        here = self._handle(row + 1).get_transform()
        return _wheels_moved(self._info[row].physics_control, here, to_world=True)

    def _load_physics_control(self, row: int, physics_control: VehiclePhysicsControl) -> None:
        """Loads a physics control whose wheel positions are in the vehicle's frame (cm) and
        keeps it: the callers hand over one made for the purpose (the blueprint's fresh one,
        a moved copy), which nothing else holds, so it needs no copy of its own."""
        a = self._actors
        vrow = int(a.vrow[row])
        load_physics_control(self._vehicles, vrow, physics_control, a.extent[row])
        suspension = suspension_of(self._info[row].type_id)
        load_suspension(
            self._vehicles, vrow, suspension, physics_control, a.extent[row], a.box_loc[row]
        )
        self._fleet_cache.stale()
        a.mass[row] = physics_control.mass
        self._info[row].physics_control = physics_control

    def _destroy(self, actor_id: int) -> bool:
        a, row = self._actors, actor_id - 1
        if not a.alive[row]:
            return False
        if actor_id == 1 or a.kind[row] in (ActorType.TrafficLight, ActorType.TrafficSign):
            return False
        a.alive[row] = False
        self._roster += 1
        a.destroy_frame[row] = self._frame
        a.vel[row] = a.angvel[row] = a.acc[row] = 0.0
        self._detach_children(row)
        return True

    def _detach_children(self, row: int) -> None:
        """Children of a destroyed actor stay where they are, free; their subtrees move up."""
        a, n = self._actors, self._actors.n
        children = np.flatnonzero(a.parent[:n] == row)
        a.parent[children] = -1
        stack = children.tolist()
        while stack:
            child = stack.pop()
            a.depth[child] = 0 if a.parent[child] < 0 else a.depth[a.parent[child]] + 1
            stack.extend(np.flatnonzero(a.parent[:n] == child).tolist())
