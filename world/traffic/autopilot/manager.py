"""CARLA's Traffic Manager on a lockstep World: the knobs, the registered vehicles, the tick.

`world.get_trafficmanager(port)` returns the world's traffic manager on that
port (one per port, made on first use and kept by the World; no client or server,
the port only names it). `vehicle.set_autopilot(True, tm_port)` registers the vehicle with
it. The manager runs in the world's "traffic_manager" tick phase, after the
light groups and before physics, so its controls move the vehicles in the same
tick. Each vehicle's choices come from its own generator, spawned from the
manager's seed and the vehicle's actor id.

Defaults: vehicles drive 30 % below the speed limit (CARLA's default global
percentage speed difference) and keep DEFAULT_LEADING_DISTANCE from the vehicle
ahead (bumper to bumper, when stopped). Percentages are 0..100 as in CARLA;
a negative speed difference drives faster than the limit.
"""

from __future__ import annotations

import warnings

import numpy as np

from world import elementary as el
from world.actors.vehicle_state import TrafficLightState
from world.errors import WorldError
from world.geometry import Location, Rotation, Transform

__all__ = [
    "DEFAULT_AUTO_LANE_CHANGE",
    "DEFAULT_LEADING_DISTANCE",
    "DEFAULT_SEED",
    "TrafficManager",
    "street_spawn_points",
]

DEFAULT_LEADING_DISTANCE = 2.5  # m, as CARLA's example scripts set it
DEFAULT_SPEED_DIFFERENCE = 30.0  # %: 70 % of the limit, CARLA's default
DEFAULT_SEED = 0
DEFAULT_AUTO_LANE_CHANGE = True  # CARLA's default
# Stuck vehicles, as CARLA's traffic manager removes them (its ALSM stage, with the constants
# of its VehicleRemoval namespace): each tick the registered vehicle idle the longest (slower
# than STOPPED_SPEED since then; the lowest id among equals; a vehicle whose role_name is
# "hero" is never one) is destroyed once it has been idle BLOCKED_TIME while its light state
# (get_traffic_light_state) is not red, or RED_BLOCKED_TIME in any case, and no vehicle was
# removed in the last REMOVAL_SPACING seconds. Only the state counts: a car in a light's box
# at green or amber, or queued behind a red outside the box (green), goes after BLOCKED_TIME.
# A town whose traffic locked itself up (a ring of queues, each waiting on the next) so flows
# again.
STOPPED_SPEED = 0.8  # m/s
BLOCKED_TIME = 90.0  # s
RED_BLOCKED_TIME = 180.0  # s
REMOVAL_SPACING = 10.0  # s
RED = int(TrafficLightState.Red)
STUCK_LIMITS = (STOPPED_SPEED, BLOCKED_TIME, RED_BLOCKED_TIME, RED)  # as stuck_row reads them
_IGNORE_KINDS = ("lights", "signs", "vehicles", "walkers")


def _actor_row(actor) -> int:
    if not getattr(actor, "is_alive", False):
        raise WorldError(f"traffic manager: actor {getattr(actor, 'id', actor)} is not alive")
    return int(actor.id) - 1


def _percentage(name: str, value: float) -> float:
    value = float(value)
    if not 0.0 <= value <= 100.0:
        raise WorldError(f"traffic manager: {name} must be a percentage in 0..100, got {value}")
    return value


def _warn_offset() -> None:
    warnings.warn(
        "TrafficManager lane offsets are kept and not applied: lockstep's autopilot drives "
        "on the lane's centre line",
        RuntimeWarning,
        stacklevel=3,
    )


class TrafficManager:
    """CARLA's carla.TrafficManager: autopilot settings and the vehicles that drive by them."""

    def __init__(self, world, port: int, removes_stuck: bool = False) -> None:
        """`removes_stuck`: whether vehicles idle too long are destroyed, as CARLA's manager
        does (on for the managers the world runs; off for an agent's own, which drives the
        ego)."""
        self._world = world
        self._port = port
        self._removes_stuck = removes_stuck
        self._last_removal = 0.0  # s: the elapsed time of the last removal (CARLA starts at 0)
        self._seed = DEFAULT_SEED
        self._fleet = None
        self._global_speed_pct = DEFAULT_SPEED_DIFFERENCE
        self._global_lead = DEFAULT_LEADING_DISTANCE
        self._global_lane_offset = 0.0
        self._synchronous = True
        self._hybrid = False
        self._settings: dict[int, dict[str, float | bool]] = {}
        self._cache_key: int | None = None  # the fleet version the columns below are of
        self._columns = None  # FleetSettings
        self._ignore = np.zeros((0, 4))
        self._hero = np.zeros(0, dtype=bool)

    # -- membership --------------------------------------------------------------------------

    @property
    def fleet(self):
        if self._fleet is None:
            from world.traffic.autopilot.fleet import AutopilotFleet

            if not hasattr(self._world.get_map(), "lane_keys"):
                raise WorldError(
                    "set_autopilot: the traffic manager needs a map with driving lanes "
                    "(this one has none)"
                )

            self._fleet = AutopilotFleet(self._world)
        return self._fleet

    def get_port(self) -> int:
        return self._port

    def _rng(self, actor_row: int) -> np.random.Generator:
        sequence = np.random.SeedSequence(entropy=self._seed, spawn_key=(actor_row + 1,))
        return np.random.Generator(np.random.PCG64(sequence))

    def register_vehicles(self, vehicles) -> None:
        for vehicle in vehicles:
            row = _actor_row(vehicle)
            if int(self._world.state_tables().actors.vrow[row]) < 0:
                raise WorldError(f"set_autopilot: actor {vehicle.id} is not a vehicle")
            for other in self._world.traffic_managers():
                if other is not self and other._fleet is not None:
                    other._fleet.remove(row)
            self.fleet.add(row, self._rng(row))
            self._apply_certain(row, self._settings.get(row, {}))
        self._cache_key = None

    def unregister_vehicles(self, vehicles) -> None:
        if self._fleet is None:
            return
        for vehicle in vehicles:
            self._fleet.remove(int(vehicle.id) - 1)
        self._cache_key = None

    def has_vehicle(self, vehicle) -> bool:
        return self._fleet is not None and self._fleet.slot(int(vehicle.id) - 1) >= 0

    # -- global knobs ------------------------------------------------------------------------

    def global_percentage_speed_difference(self, percentage: float) -> None:
        """Every vehicle drives this much below its speed limit (negative: above it)."""
        self._global_speed_pct = float(percentage)

    def global_lane_offset(self, offset: float) -> None:
        """CARLA's lateral offset from the lane's centre line (m, positive right) for every
        vehicle: kept, not applied (lockstep's autopilot drives on the centre line)."""
        _warn_offset()
        self._global_lane_offset = float(offset)

    def vehicle_lane_offset(self, actor, offset: float) -> None:
        """As global_lane_offset, for one vehicle: kept, not applied."""
        _warn_offset()
        self._set(actor, "lane_offset", float(offset))

    def set_global_distance_to_leading_vehicle(self, distance: float) -> None:
        """Metres kept to the vehicle ahead, bumper to bumper."""
        self._global_lead = max(float(distance), 0.0)

    def set_random_device_seed(self, value: int) -> None:
        """Reseeds every vehicle's generator from (value, actor id), now and for later ones."""
        self._seed = int(value)
        if self._fleet is not None:
            self._fleet.rngs = [self._rng(int(r)) for r in self._fleet.actor.tolist()]

    def set_synchronous_mode(self, mode_switch: bool = True) -> None:
        """Accepted: lockstep's manager always steps with the world's tick."""
        self._synchronous = bool(mode_switch)

    def set_hybrid_physics_mode(self, enabled: bool = False) -> None:
        """Accepted and ignored: every vehicle always runs full physics."""
        self._hybrid = bool(enabled)

    def set_hybrid_physics_radius(self, r: float = 50.0) -> None:
        """Accepted and ignored (see set_hybrid_physics_mode)."""

    def set_respawn_dormant_vehicles(self, mode_switch: bool = False) -> None:
        """Accepted and ignored: vehicles never go dormant."""

    def set_osm_mode(self, mode_switch: bool = False) -> None:
        """Accepted and ignored."""

    # -- per-vehicle knobs -------------------------------------------------------------------

    def _set(self, actor, name: str, value) -> None:
        self._settings.setdefault(_actor_row(actor), {})[name] = value
        self._cache_key = None

    def vehicle_percentage_speed_difference(self, actor, percentage: float) -> None:
        self._set(actor, "speed_pct", float(percentage))

    def set_desired_speed(self, actor, speed: float) -> None:
        """km/h, replacing the limit-based target for this vehicle."""
        self._set(actor, "desired", max(float(speed), 0.0))

    def distance_to_leading_vehicle(self, actor, distance: float) -> None:
        self._set(actor, "lead", max(float(distance), 0.0))

    def ignore_lights_percentage(self, actor, perc: float) -> None:
        self._set_ignore(actor, "lights", _percentage("ignore_lights_percentage", perc))

    def ignore_signs_percentage(self, actor, perc: float) -> None:
        self._set_ignore(actor, "signs", _percentage("ignore_signs_percentage", perc))

    def ignore_vehicles_percentage(self, actor, perc: float) -> None:
        self._set_ignore(actor, "vehicles", _percentage("ignore_vehicles_percentage", perc))

    def ignore_walkers_percentage(self, actor, perc: float) -> None:
        self._set_ignore(actor, "walkers", _percentage("ignore_walkers_percentage", perc))

    def _set_ignore(self, actor, kind: str, perc: float) -> None:
        """Stores an ignore chance, drawn at each lane the vehicle enters; a certain one (0 or
        100) also holds at once on the lane it is on (no draw: the vehicle's random stream is
        untouched), as CARLA's manager, which reads the chances every tick, would have it."""
        self._set(actor, kind, perc)
        self._apply_certain(_actor_row(actor), {kind: perc})

    def _apply_certain(self, row: int, settings: dict) -> None:
        """Sets the current lane's ignore flags of actor row `row` for the certain chances
        among `settings` (kind -> percentage), if the vehicle is in the fleet."""
        fleet = self._fleet
        i = fleet.slot(row) if fleet is not None else -1
        if i < 0:
            return
        for k, kind in enumerate(_IGNORE_KINDS):
            if settings.get(kind) in (0.0, 100.0):
                fleet.ignore[i, k] = settings[kind] == 100.0

    def auto_lane_change(self, actor, enable: bool) -> None:
        """Whether the vehicle changes lanes by itself to pass a slower leader (default on, as
        in CARLA; the rules: world.traffic.autopilot.kernels.lane_changes, docs/autopilot.md)."""
        self._set(actor, "auto_lane_change", bool(enable))

    def update_vehicle_lights(self, actor, do_update: bool) -> None:
        """When on, the manager sets position and low beams, brake lights and blinkers."""
        self._set(actor, "update_lights", bool(do_update))

    def force_lane_change(self, actor, direction: bool) -> None:
        """Moves the vehicle to the neighbouring lane of its direction: True right, False left."""
        fleet = self.fleet
        i = fleet.slot(_actor_row(actor))
        if i < 0:
            raise WorldError(f"force_lane_change: vehicle {actor.id} is not on autopilot here")
        fleet.change_lane(i, bool(direction))

    def set_path(self, actor, path, empty_buffer: bool = True) -> None:
        """Locations the vehicle heads for, in order: at each junction it takes the exit that
        ends nearest the next one (the plan is made again at once: `empty_buffer`)."""
        fleet = self.fleet
        i = fleet.slot(_actor_row(actor))
        if i < 0:
            raise WorldError(f"set_path: vehicle {actor.id} is not on autopilot here")
        fleet.targets[i] = [np.array([p.x, p.y, p.z], dtype=np.float64) for p in path]
        fleet.replan(i)

    def set_route(self, actor, path, empty_buffer: bool = True) -> None:
        """Turns at the next junctions, in order: "Left", "Right", "Straight" (others: drawn);
        the plan is made again at once (`empty_buffer`)."""
        fleet = self.fleet
        i = fleet.slot(_actor_row(actor))
        if i < 0:
            raise WorldError(f"set_route: vehicle {actor.id} is not on autopilot here")
        fleet.commands[i] = [str(c) for c in path]
        fleet.replan(i)

    # -- the tick ----------------------------------------------------------------------------

    def _column(self, name: str, default: float) -> np.ndarray:
        rows = self._fleet.actor.tolist()
        return np.array(
            [self._settings.get(r, {}).get(name, default) for r in rows], dtype=np.float64
        )

    def _vehicle_settings(self) -> tuple:
        """The per-vehicle settings in fleet order, as (FleetSettings, ignore percentages
        (N, 4)), made again when the membership or a setting changed."""
        key = self._fleet.version
        if key != self._cache_key:
            from world.traffic.autopilot.kernels import FleetSettings

            self._cache_key = key
            self._columns = FleetSettings(
                self._column("speed_pct", np.nan),
                self._column("desired", np.nan),
                self._column("lead", np.nan),
                self._column("auto_lane_change", float(DEFAULT_AUTO_LANE_CHANGE)) > 0.0,
                self._column("update_lights", 0.0) > 0.0,
            )
            self._ignore = np.stack([self._column(k, 0.0) for k in _IGNORE_KINDS], axis=1)
            self._hero = np.array([self._is_hero(r) for r in self._fleet.actor.tolist()], bool)
        return self._columns, self._ignore

    def _is_hero(self, actor_row: int) -> bool:
        """Whether the actor's role_name is "hero" (CARLA's manager never removes those)."""
        actor = self._world.get_actor(actor_row + 1)
        return actor is not None and actor.attributes.get("role_name") == "hero"

    def _remove_stuck(self, fleet) -> None:
        """Destroys the vehicle stuck the longest, if one is (see BLOCKED_TIME; `_hero`: the
        fleet's vehicles never removed), at most one every REMOVAL_SPACING seconds, as CARLA's
        ALSM stage does at the start of its step (AutopilotFleet.stuck_row: one compiled call,
        which also keeps each vehicle's idle time up to date)."""
        now = self._world.get_snapshot().elapsed_seconds
        self._vehicle_settings()  # the hero column, in fleet order
        row = fleet.stuck_row(self._hero, STUCK_LIMITS, now)
        if row >= 0 and now - self._last_removal > REMOVAL_SPACING:
            self._world.get_actor(row + 1).destroy()
            self._last_removal = now

    def step(self, dt: float) -> None:
        """One tick of this manager's vehicles: the world's traffic_manager phase runs it for
        the managers it made (World.get_trafficmanager); an agent's own manager, which the
        world does not tick, runs it inside the agent's step and returns the control."""
        fleet = self._fleet
        if fleet is None or not len(fleet):
            return
        if self._removes_stuck:
            self._remove_stuck(fleet)
        settings = self._global_speed_pct, self._global_lead
        if not fleet.tick(*self._vehicle_settings(), *settings, dt):
            fleet.prune()  # a vehicle was destroyed: forget it first
            if len(fleet):
                fleet.tick(*self._vehicle_settings(), *settings, dt)


def street_spawn_points(world_map, spacing: float = 12.0, margin: float = 10.0) -> list:
    """Transforms on driving lanes outside junctions, `spacing` metres apart along each lane and
    at least `margin` from the lane's ends (spawn points that start a car mid-street, unlike the
    map's road entries, which sit on junction borders where junction lanes overlap). The
    points are worked out once per Map (and spacing, margin); each call gets fresh Transforms."""
    spots = world_map.derived(
        ("street spawn points", spacing, margin),
        lambda: _street_spots(world_map, spacing, margin),
    )
    return [Transform(Location(x, y, z), Rotation(0.0, yaw, 0.0)) for x, y, z, yaw in spots]


def _street_spots(world_map, spacing: float, margin: float) -> list[tuple[float, ...]]:
    """x, y, z (0.5 m above the lane) and yaw of each street spawn point."""
    from world.traffic.autopilot.lane_paths import LanePaths

    paths = LanePaths.of_map(world_map)
    out = []
    for p in range(len(paths)):
        if paths.junction[p] >= 0 or paths.length[p] < 2.0 * margin:
            continue
        arcs = np.arange(margin, paths.length[p] - margin + 1e-9, spacing)
        pts, tangents = paths.at(np.full(len(arcs), p), arcs)
        for point, tangent in zip(pts, tangents, strict=True):
            yaw = float(np.degrees(el.atan2_v(tangent[1], tangent[0])))
            out.append((float(point[0]), float(point[1]), float(point[2]) + 0.5, yaw))
    return out
