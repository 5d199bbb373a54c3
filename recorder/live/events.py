"""The events of a frame, found by comparing the world with the last frame recorded.

CARLA's simulator tells its recorder of each spawn, destroy, attach and door; lockstep's
world does not know the recorder, so `WorldEvents` keeps what the last frame saw (the
number of actor rows, who was alive, every vehicle's doors, the weather) and turns the
differences into CARLA's records. An actor's row is its id minus one and rows are never
reused, so new actors are the rows past the last count, in id order, and an actor that
came and went between two frames still gets its EventAdd and its EventDel.

A new actor's EventAdd holds its spawn transform as given (in its parent's frame when it
was spawned attached, followed by an EventParent), its blueprint id, the blueprint's uid
(its 1-based place in the blueprint library, 0 for the spectator and the map's lights and
signs, as CARLA registers them without a definition) and its attributes with their types.
Actors that exist when the recorder starts are added as CARLA's AddExistingActors does:
at their pose in the world, with no EventParent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recorder.live.records import KIND_TRAFFIC_LIGHT, KIND_TRAFFIC_SIGN, KIND_VEHICLE
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import (
    DTYPES,
    ActorAttribute,
    BoxRecord,
    EventAddRecord,
    GearRecord,
    PhysicsControlRecord,
    TrafficLightTimeRecord,
    WeatherRecord,
    Wheel48,
)
from recorder.logfile.packets.physics_control import rich_curve_keys
from recorder.logfile.rotation import recorder_rotation

__all__ = [
    "ActorFacts",
    "FrameEvents",
    "WorldEvents",
    "physics_control_record",
    "traffic_light_time_record",
    "weather_record",
]

_STRING_ATTRIBUTE = 3  # EActorAttributeType::String, for attributes no blueprint defines
_DOORS = 6  # VehicleDoor FL, FR, RL, RR, Hood, Trunk: bits 0..5 of the world's door flags
_F32_CM = np.float32(100.0)
_F32_CENTI = np.float32(1e-2)
WEATHER_FIELDS = tuple(WeatherRecord.__dataclass_fields__)


def _nothing(dtype: np.dtype | type) -> np.ndarray:
    """An empty read-only array: the shared default of a frame with no such event (fields
    holding one are replaced, never written)."""
    out = np.zeros(0, dtype)
    out.flags.writeable = False
    return out


_NO_DELS = _nothing(DTYPES[PacketId.EventDel])
_NO_PARENTS = _nothing(DTYPES[PacketId.EventParent])
_NO_DOORS = _nothing(DTYPES[PacketId.VehicleDoor])
_NO_ROWS = _nothing(np.int64)


@dataclass(slots=True)
class ActorFacts:
    """What the recorder keeps of an actor once added: its kind, blueprint and hero flag."""

    kind: int
    type_id: str
    hero: bool


@dataclass
class FrameEvents:
    """The event records of one frame, and the records CARLA makes along with each add."""

    adds: list[EventAddRecord] = field(default_factory=list)
    dels: np.ndarray = field(default_factory=lambda: _NO_DELS)
    parents: np.ndarray = field(default_factory=lambda: _NO_PARENTS)
    doors: np.ndarray = field(default_factory=lambda: _NO_DOORS)
    weather: list[WeatherRecord] = field(default_factory=list)
    boxes: list[BoxRecord] = field(default_factory=list)
    trigger_volumes: list[BoxRecord] = field(default_factory=list)
    physics_controls: list[PhysicsControlRecord] = field(default_factory=list)
    light_times: list[TrafficLightTimeRecord] = field(default_factory=list)
    gone_rows: np.ndarray = field(default_factory=lambda: _NO_ROWS)


def weather_record(weather: Any) -> WeatherRecord:
    """CarlaRecorderWeather of a WeatherParameters: its fourteen numbers as float32."""
    return WeatherRecord(*(float(np.float32(getattr(weather, name))) for name in WEATHER_FIELDS))


def physics_control_record(actor_id: int, pc: Any) -> PhysicsControlRecord:
    """The rpc VehiclePhysicsControl CARLA writes for a vehicle: curves as Unreal's FRichCurve
    keeps them (sorted by time), the centre of mass through cm and back in float
    (`1e-2f * (1e2f * x)`), wheel positions in cm as the vehicle reports them."""
    com = pc.center_of_mass
    centre = tuple(float(_F32_CENTI * (_F32_CM * np.float32(x))) for x in (com.x, com.y, com.z))
    return PhysicsControlRecord(
        id=actor_id,
        max_rpm=pc.max_rpm,
        moi=pc.moi,
        damping_rate_full_throttle=pc.damping_rate_full_throttle,
        damping_rate_zero_throttle_clutch_engaged=pc.damping_rate_zero_throttle_clutch_engaged,
        damping_rate_zero_throttle_clutch_disengaged=(
            pc.damping_rate_zero_throttle_clutch_disengaged
        ),
        use_gear_autobox=bool(pc.use_gear_autobox),
        clutch_strength=pc.clutch_strength,
        final_ratio=pc.final_ratio,
        mass=pc.mass,
        drag_coefficient=pc.drag_coefficient,
        center_of_mass=centre,
        torque_curve=rich_curve_keys([(p.x, p.y) for p in pc.torque_curve]),
        forward_gears=[GearRecord(g.ratio, g.down_ratio, g.up_ratio) for g in pc.forward_gears],
        steering_curve=rich_curve_keys([(p.x, p.y) for p in pc.steering_curve]),
        wheels=[
            Wheel48(
                w.tire_friction,
                w.damping_rate,
                w.max_steer_angle,
                w.radius,
                w.max_brake_torque,
                w.max_handbrake_torque,
                w.lat_stiff_max_load,
                w.lat_stiff_value,
                w.long_stiff_value,
                (w.position.x, w.position.y, w.position.z),
            )
            for w in pc.wheels
        ],
    )


def traffic_light_time_record(light: Any) -> TrafficLightTimeRecord:
    """CarlaRecorderTrafficLightTime of a TrafficLight handle: its green, yellow, red times."""
    return TrafficLightTimeRecord(
        light.id, light.get_green_time(), light.get_yellow_time(), light.get_red_time()
    )


def _f32(values: np.ndarray) -> tuple[float, float, float]:
    v = np.asarray(values, dtype=np.float32)
    return (float(v[0]), float(v[1]), float(v[2]))


class WorldEvents:
    """The comparison of a world with the last frame recorded (see the module docstring)."""

    def __init__(self, world: Any, additional_data: bool) -> None:
        from world.errors import WorldError  # the recorder reads the world; imported when used
        from world.handles import Actor

        self._actor_handle = Actor
        self._world_error = WorldError
        self._world = world
        self._additional = additional_data
        self._types: dict[str, dict[str, int]] = {}
        self._uids: dict[str, int] = {
            bp_id: i + 1 for i, bp_id in enumerate(world.get_blueprint_library().ids())
        }
        self.facts: dict[int, ActorFacts] = {}
        self.heroes: dict[int, bool] = {}  # actor id -> role_name is "hero"
        self._seen = 0
        self._alive = np.zeros(0, np.bool_)
        self._alive_bytes = b""
        self._doors = np.zeros(0, np.uint8)
        self._door_bytes = b""
        self._weather: WeatherRecord | None = None
        self._weather_sets = -1  # the world's set_weather count when last looked at

    # -- the first frame -------------------------------------------------------------------

    def existing(self) -> FrameEvents:
        """AddExistingActors: every live actor at its pose in the world, in id order."""
        actors, vehicles, _ = self._world.state_tables()
        n = actors.n
        out = FrameEvents()
        rows = np.flatnonzero(actors.alive[:n])
        rotation = recorder_rotation(actors.rot[rows])
        for k, row in enumerate(rows.tolist()):
            self._add(out, row, actors.pos[row], rotation[k], parented=False)
        self._seen = n
        self._alive = actors.alive[:n].copy()
        self._alive_bytes = self._alive.tobytes()
        self._doors = vehicles.doors[: vehicles.n].copy()
        self._door_bytes = self._doors.tobytes()
        return out

    # -- every frame -----------------------------------------------------------------------

    @property
    def weather_sets(self) -> int:
        """The world's set_weather count when the weather was last looked at."""
        return self._weather_sets

    def changes(self, out: FrameEvents) -> FrameEvents:
        """Adds `out` the adds, deletions, parents, doors and weather since the last frame."""
        world = self._world
        actors, vehicles, _ = world.state_tables()
        n, seen = actors.n, self._seen
        alive = actors.alive[:n]
        if n > seen:
            new_rows = np.arange(seen, n)
            rotation = recorder_rotation(actors.spawn_rot[new_rows])
            for k, row in enumerate(new_rows.tolist()):
                self._add(out, row, actors.spawn_pos[row], rotation[k], parented=True)
            gone = np.concatenate(
                [np.flatnonzero(self._alive & ~alive[:seen]), new_rows[~alive[seen:]]]
            )
        elif alive.tobytes() == self._alive_bytes:
            gone = None
        else:
            gone = np.flatnonzero(self._alive & ~alive)
        if gone is not None:
            if len(gone):
                dels = np.empty(len(gone), DTYPES[PacketId.EventDel])
                dels["id"] = gone + 1
                out.dels = np.concatenate([out.dels, dels])
                out.gone_rows = np.concatenate([out.gone_rows, gone])
            self._seen = n
            self._alive = alive.copy()
            self._alive_bytes = self._alive.tobytes()
        out.doors = self._door_changes(actors, vehicles)
        if world.weather_sets != self._weather_sets:
            self._weather_sets = world.weather_sets
            record = weather_record(world.get_weather())
            if record != self._weather:
                out.weather = [record]
                self._weather = record
        return out

    def _door_changes(self, actors: Any, vehicles: Any) -> np.ndarray:
        """One VehicleDoor record per door of a live vehicle that opened or closed."""
        doors = vehicles.doors[: vehicles.n]
        if doors.tobytes() == self._door_bytes:
            return _NO_DOORS
        before = np.zeros(len(doors), np.uint8)
        before[: len(self._doors)] = self._doors
        self._doors = doors.copy()
        self._door_bytes = self._doors.tobytes()
        live = actors.alive[vehicles.actor[: vehicles.n]]
        changed = np.flatnonzero(((doors ^ before) != 0) & live)
        if len(changed) == 0:
            return np.zeros(0, DTYPES[PacketId.VehicleDoor])
        bits = (((doors[changed] ^ before[changed])[:, None] >> np.arange(_DOORS)) & 1).astype(bool)
        k, door = np.nonzero(bits)
        out = np.empty(len(k), DTYPES[PacketId.VehicleDoor])
        out["id"] = vehicles.actor[changed[k]] + 1
        out["doors"] = door
        out["open"] = (doors[changed[k]] >> door) & 1
        return out

    # -- one actor -------------------------------------------------------------------------

    def _add(
        self, out: FrameEvents, row: int, pos: np.ndarray, rotation: np.ndarray, parented: bool
    ) -> None:
        """The EventAdd of actor row `row` and what CARLA's CreateRecorderEventAdd adds."""
        world = self._world
        actors = world.state_tables().actors
        actor = self._actor_handle(world, row + 1)
        type_id, attributes = actor.type_id, actor.attributes
        kind = int(actors.kind[row])
        types = self._attribute_types(type_id)
        out.adds.append(
            EventAddRecord(
                row + 1,
                kind,
                _f32(np.asarray(pos) * 100.0),
                (float(rotation[0]), float(rotation[1]), float(rotation[2])),
                self._uids.get(type_id, 0),
                type_id,
                [
                    ActorAttribute(types.get(name, _STRING_ATTRIBUTE), name, value)
                    for name, value in attributes.items()
                    if name
                ],
            )
        )
        hero = attributes.get("role_name") == "hero"
        self.facts[row + 1] = ActorFacts(kind, type_id, hero)
        self.heroes[row + 1] = hero
        parent = int(actors.spawn_parent[row])
        if parented and parent >= 0:
            record = np.array([(row + 1, parent + 1)], DTYPES[PacketId.EventParent])
            out.parents = np.concatenate([out.parents, record])
        if not self._additional:
            return
        if kind == KIND_VEHICLE and actors.alive[row]:
            out.physics_controls.append(
                physics_control_record(row + 1, actor_of(world, row).get_physics_control())
            )
        if kind == KIND_TRAFFIC_LIGHT:
            out.light_times.append(traffic_light_time_record(actor_of(world, row)))
        if kind in (KIND_TRAFFIC_LIGHT, KIND_TRAFFIC_SIGN):
            volume = self._trigger_volume(row)
            if volume is not None:
                out.trigger_volumes.append(volume)
        else:
            out.boxes.append(
                BoxRecord(
                    row + 1, _f32(actors.box_loc[row] * 100.0), _f32(actors.extent[row] * 100.0)
                )
            )

    def _trigger_volume(self, row: int) -> BoxRecord | None:
        """A light's or sign's road box: its centre in the world and its extent, in cm (none
        when it has no box, as CARLA writes none)."""
        handle = actor_of(self._world, row)
        try:
            volume = handle.trigger_volume
        except self._world_error:  # a world without a traffic system has no road boxes
            return None
        extent = volume.extent
        if extent.x == 0.0 and extent.y == 0.0 and extent.z == 0.0:
            return None
        centre = handle.get_transform().transform(volume.location)
        return BoxRecord(
            row + 1,
            _f32(np.array([centre.x, centre.y, centre.z]) * 100.0),
            _f32(np.array([extent.x, extent.y, extent.z]) * 100.0),
        )

    def _attribute_types(self, type_id: str) -> dict[str, int]:
        """Attribute id -> EActorAttributeType of the blueprint `type_id` (cached)."""
        found = self._types.get(type_id)
        if found is None:
            library = self._world.get_blueprint_library()
            found = {}
            if type_id in library:
                found = {a.id: int(a.type) for a in library.find(type_id)}
            self._types[type_id] = found
        return found


def actor_of(world: Any, row: int) -> Any:
    """The live actor of a row (its typed handle)."""
    return world.get_actor(row + 1)
