"""Thin actor handles with CARLA's method names: an id and its world; the state lives in arrays.

`Actor` covers every kind; `Vehicle`, `Walker`, `TrafficLight`, `TrafficSign`,
`Sensor`, `Spectator` and `WalkerAIController` add their own methods. Getters return fresh objects;
setters write the world's arrays at once (a velocity or pose set between ticks
is what the next tick starts from). Forces and torques act during the next
tick; impulses are applied at its start.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from world.actors.controls import (
    BoneTransformDataOut,
    VehicleAckermannControl,
    VehicleControl,
    WalkerBoneControlIn,
    WalkerBoneControlOut,
    WalkerControl,
    clamp,
)
from world.actors.vehicle_state import (
    ActorState,
    ActorType,
    TrafficLightState,
    VehicleDoor,
    VehicleLightState,
    VehicleWheelLocation,
)
from world.errors import WorldError
from world.geometry import BoundingBox, Location, Rotation, Transform, Vector3D
from world.physics.control import VehiclePhysicsControl
from world.traffic.walkers.ai import DEFAULT_WALKER_SPEED, WalkerAISystem

if TYPE_CHECKING:
    from world.map.waypoint import Waypoint
    from world.sensors import SensorBehaviour
    from world.sensors.rss import RssSensorBehaviour
    from world.traffic.signals.install import WorldTraffic
    from world.world import World

__all__ = [
    "Actor",
    "Sensor",
    "Spectator",
    "TrafficLight",
    "TrafficSign",
    "Vehicle",
    "Walker",
    "WalkerAIController",
]


def _vec(row: np.ndarray) -> Vector3D:
    x, y, z = row.tolist()
    return Vector3D(x, y, z)


def _arr(v: Vector3D) -> np.ndarray:
    return np.array([v.x, v.y, v.z], dtype=np.float64)


class Actor:
    """Any actor: identity, pose, motion, pushes, physics flags, destroy."""

    __slots__ = ("_world", "id")

    def __init__(self, world: World, actor_id: int) -> None:
        self._world = world
        self.id = actor_id

    # identity -------------------------------------------------------------------------
    @property
    def _row(self) -> int:
        return self.id - 1

    @property
    def type_id(self) -> str:
        return self._world._info[self._row].type_id

    @property
    def attributes(self) -> dict[str, str]:
        return dict(self._world._info[self._row].attributes)

    @property
    def semantic_tags(self) -> list[int]:
        return list(self._world._info[self._row].semantic_tags)

    @property
    def parent(self) -> Actor | None:
        p = int(self._world._actors.parent[self._row])
        return None if p < 0 else self._world._handle(p + 1)

    @property
    def is_alive(self) -> bool:
        return bool(self._world._actors.alive[self._row])

    @property
    def actor_state(self) -> ActorState:
        return ActorState.Alive if self.is_alive else ActorState.Invalid

    @property
    def bounding_box(self) -> BoundingBox:
        t = self._world._actors
        return BoundingBox(Location(*map(float, t.box_loc[self._row])), _vec(t.extent[self._row]))

    def get_world(self) -> World:
        return self._world

    def _live_row(self) -> int:
        if not self._world._actors.alive[self._row]:
            raise WorldError(f"actor {self.id} ({self.type_id}) has been destroyed")
        return self._row

    # pose -----------------------------------------------------------------------------
    def get_transform(self) -> Transform:
        t, r = self._world._actors, self._row
        x, y, z = t.pos[r].tolist()
        pitch, yaw, roll = t.rot[r].tolist()
        return Transform(Location(x, y, z), Rotation(pitch, yaw, roll))

    def get_location(self) -> Location:
        x, y, z = self._world._actors.pos[self._row].tolist()
        return Location(x, y, z)

    def set_transform(self, transform: Transform) -> None:
        loc, rot = transform.location, transform.rotation
        self._world._set_pose(
            self._live_row(), _arr(loc), np.array([rot.pitch, rot.yaw, rot.roll], dtype=np.float64)
        )

    def set_location(self, location: Location) -> None:
        row = self._live_row()
        self._world._set_pose(row, _arr(location), self._world._actors.rot[row].copy())

    # motion ---------------------------------------------------------------------------
    def get_velocity(self) -> Vector3D:
        return _vec(self._world._actors.vel[self._row])

    def get_angular_velocity(self) -> Vector3D:
        """Degrees per second, as CARLA reports it."""
        return _vec(self._world._actors.angvel[self._row])

    def get_acceleration(self) -> Vector3D:
        return _vec(self._world._actors.acc[self._row])

    def _body_row(self) -> int | None:
        row = self._live_row()
        return row if self._world._actors.body[row] else None

    def set_target_velocity(self, velocity: Vector3D) -> None:
        row = self._body_row()
        if row is not None:
            self._world._actors.vel[row] = _arr(velocity)

    def set_target_angular_velocity(self, angular_velocity: Vector3D) -> None:
        """Degrees per second."""
        row = self._body_row()
        if row is not None:
            self._world._actors.angvel[row] = _arr(angular_velocity)

    def add_impulse(self, impulse: Vector3D) -> None:
        """N·s in the world frame, applied at the start of the next tick."""
        row = self._body_row()
        if row is not None:
            self._world._actors.impulse[row] += _arr(impulse)

    def add_force(self, force: Vector3D) -> None:
        """N in the world frame, acting during the next tick."""
        row = self._body_row()
        if row is not None:
            self._world._actors.force[row] += _arr(force)

    def add_angular_impulse(self, angular_impulse: Vector3D) -> None:
        """N·m·s in the world frame (the yaw part turns a body), at the start of the next tick."""
        row = self._body_row()
        if row is not None:
            self._world._actors.ang_impulse[row] += _arr(angular_impulse)

    def add_torque(self, torque: Vector3D) -> None:
        """N·m in the world frame (the yaw part turns a body), acting during the next tick."""
        row = self._body_row()
        if row is not None:
            self._world._actors.torque[row] += _arr(torque)

    def set_enable_gravity(self, enabled: bool = True) -> None:
        self._world._actors.gravity[self._live_row()] = bool(enabled)

    def set_simulate_physics(self, enabled: bool = True) -> None:
        """Without physics a body stays where it is set and reports zero velocity."""
        row = self._live_row()
        t = self._world._actors
        t.simulate_physics[row] = bool(enabled)
        if not enabled:
            t.vel[row] = 0.0
            t.angvel[row] = 0.0

    def enable_constant_velocity(self, velocity: Vector3D) -> None:
        """Keeps the body moving at `velocity` (m/s, in its own frame) until disabled."""
        row = self._body_row()
        if row is not None:
            t = self._world._actors
            t.const_vel[row] = True
            t.const_vel_local[row] = _arr(velocity)

    def disable_constant_velocity(self) -> None:
        row = self._body_row()
        if row is not None:
            self._world._actors.const_vel[row] = False

    def destroy(self) -> bool:
        """Removes the actor; False when it was already gone or cannot be destroyed."""
        return self._world._destroy(self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Actor) and other.id == self.id and other._world is self._world

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"Actor(id={self.id}, type={self.type_id})"


class Vehicle(Actor):
    """A vehicle: controls, physics control, telemetry, lights, doors, traffic signals."""

    __slots__ = ()

    @property
    def _vrow(self) -> int:
        return int(self._world._actors.vrow[self._row])

    def apply_control(self, control: VehicleControl) -> None:
        v, i = self._world._vehicles, self._vrow
        self._live_row()
        # control.clamped()'s numbers, without the control it would make (float32 values
        # clamped to bounds that are float32 stay float32)
        v.throttle[i] = clamp(control.throttle, 0.0, 1.0)
        v.steer[i] = clamp(control.steer, -1.0, 1.0)
        v.brake[i] = clamp(control.brake, 0.0, 1.0)
        v.hand_brake[i] = bool(control.hand_brake)
        v.reverse[i] = bool(control.reverse)
        v.manual_gear_shift[i] = bool(control.manual_gear_shift)
        v.control_gear[i] = int(control.gear)
        v.ackermann[i] = False

    def get_control(self) -> VehicleControl:
        """The last control applied, with the gear the vehicle is in (0 while shifting)."""
        v, i = self._world._vehicles, self._vrow
        return VehicleControl.of_float32(
            float(v.throttle[i]),
            float(v.steer[i]),
            float(v.brake[i]),
            bool(v.hand_brake[i]),
            bool(v.reverse[i]),
            bool(v.manual_gear_shift[i]),
            int(v.gear[i]),
        )

    def apply_ackermann_control(self, control: VehicleAckermannControl) -> None:
        """Steer (rad), target speed (m/s) and acceleration (m/s², 0 = as fast as allowed)."""
        v, i = self._world._vehicles, self._vrow
        self._live_row()
        v.ackermann[i] = True
        v.ack_steer[i] = control.steer
        v.ack_speed[i] = control.speed
        v.ack_accel[i] = control.acceleration

    def apply_physics_control(self, physics_control: VehiclePhysicsControl) -> None:
        self._world._apply_physics_control(self._live_row(), physics_control)

    def get_physics_control(self) -> VehiclePhysicsControl:
        """The physics control, wheel positions in the world frame (cm), as CARLA reports it."""
        return self._world._physics_control(self._live_row())

    def get_wheel_steer_angle(self, wheel_location: VehicleWheelLocation) -> float:
        """Degrees: the single-track front wheel angle for front wheels, 0 for rear wheels."""
        if int(wheel_location) >= 2:
            return 0.0
        return math.degrees(float(self._world._vehicles.steer_angle[self._vrow]))

    def get_speed_limit(self) -> float:
        """km/h: 30 until a speed-limit sign's box sets another."""
        return float(self._world._vehicles.speed_limit[self._vrow])

    def get_traffic_light_state(self) -> TrafficLightState:
        return TrafficLightState(int(self._world._vehicles.tl_state[self._vrow]))

    def is_at_traffic_light(self) -> bool:
        return int(self._world._vehicles.tl_actor[self._vrow]) >= 0

    def get_traffic_light(self) -> Actor | None:
        row = int(self._world._vehicles.tl_actor[self._vrow])
        return None if row < 0 else self._world._handle(row + 1)

    def set_light_state(self, light_state: VehicleLightState) -> None:
        self._world._vehicles.lights[self._vrow] = int(light_state) & 0xFFFFFFFF

    def get_light_state(self) -> VehicleLightState:
        return VehicleLightState(int(self._world._vehicles.lights[self._vrow]))

    def _door_bits(self, door: VehicleDoor) -> int:
        return 0x3F if door == VehicleDoor.All else 1 << int(door)

    def open_door(self, door_idx: VehicleDoor) -> None:
        self._world._vehicles.doors[self._vrow] |= self._door_bits(door_idx)

    def close_door(self, door_idx: VehicleDoor) -> None:
        self._world._vehicles.doors[self._vrow] &= ~self._door_bits(door_idx) & 0xFF

    def is_door_open(self, door_idx: VehicleDoor) -> bool:
        bits = self._door_bits(door_idx)
        return (int(self._world._vehicles.doors[self._vrow]) & bits) == bits

    def set_autopilot(self, enabled: bool = True, tm_port: int = 8000) -> None:
        """Hands the vehicle to (or takes it from) the world's traffic manager on `tm_port`."""
        self._live_row()
        tm = self._world.get_trafficmanager(tm_port)
        if enabled:
            tm.register_vehicles([self])
        else:
            tm.unregister_vehicles([self])

    def get_telemetry_data(self) -> dict[str, float]:
        """Speed (m/s), steer, throttle, brake, engine rpm and gear."""
        v, i = self._world._vehicles, self._vrow
        speed = float(np.linalg.norm(self._world._actors.vel[self._row]))
        return {
            "speed": speed,
            "steer": float(v.steer[i]),
            "throttle": float(v.throttle[i]),
            "brake": float(v.brake[i]),
            "engine_rpm": float(v.rpm[i]),
            "gear": int(v.gear[i]),
        }

    def __repr__(self) -> str:
        return f"Vehicle(id={self.id}, type={self.type_id})"


class Walker(Actor):
    """A pedestrian: WalkerControl, and bones kept as data."""

    __slots__ = ()

    @property
    def _wrow(self) -> int:
        return int(self._world._actors.wrow[self._row])

    def apply_control(self, control: WalkerControl) -> None:
        w, i = self._world._walkers, self._wrow
        self._live_row()
        d = control.direction
        w.direction[i] = (d.x, d.y, d.z)
        w.speed[i] = control.speed
        w.jump[i] = control.jump

    def get_control(self) -> WalkerControl:
        w, i = self._world._walkers, self._wrow
        d = w.direction[i]
        return WalkerControl(
            Vector3D(float(d[0]), float(d[1]), float(d[2])), float(w.speed[i]), bool(w.jump[i])
        )

    def _bones(self) -> dict[str, Transform]:
        return self._world._info[self._row].bones

    def set_bones(self, bones: WalkerBoneControlIn) -> None:
        """Poses bones (name, transform relative to the walker), as data only."""
        for name, transform in bones.bone_transforms:
            self._bones()[name] = transform.copy()
        self._world._walkers.bones[self._wrow] = len(self._bones())

    def get_bones(self) -> WalkerBoneControlOut:
        """Each bone set so far, in the order first set; every bone hangs from the origin."""
        me = self.get_transform()
        out = []
        for name, rel in self._bones().items():
            world = Transform(
                Location(*me.transform(Location(*rel.location))),
                Rotation(
                    rel.rotation.pitch + me.rotation.pitch,
                    rel.rotation.yaw + me.rotation.yaw,
                    rel.rotation.roll + me.rotation.roll,
                ),
            )
            out.append(BoneTransformDataOut(name, world, rel.copy(), rel.copy()))
        return WalkerBoneControlOut(out)

    def blend_pose(self, blend: float) -> None:
        self._world._info[self._row].pose_blend = min(max(float(blend), 0.0), 1.0)

    def show_pose(self) -> None:
        self.blend_pose(1.0)

    def hide_pose(self) -> None:
        self.blend_pose(0.0)

    def get_pose_from_animation(self) -> None:
        """Keeps the bones as set: there is no animation to read them from."""

    def __repr__(self) -> str:
        return f"Walker(id={self.id}, type={self.type_id})"


class TrafficLight(Actor):
    """A traffic light of the map: its controller's cycle, its group, its road boxes."""

    __slots__ = ()

    def _traffic(self) -> WorldTraffic:
        return self._world.traffic_signals(required=True)

    @property
    def _index(self) -> int:
        return self._traffic().light_index(self.id)

    @property
    def state(self) -> TrafficLightState:
        return self.get_state()

    def get_state(self) -> TrafficLightState:
        return self._traffic().groups.get_state(self._index)

    def set_state(self, state: TrafficLightState) -> None:
        """Sets this light only (the vehicles in its boxes at once); its controller's next
        stage sets it again."""
        self._traffic().system.set_light_state(self._world._vehicles, self._index, state)

    def get_elapsed_time(self) -> float:
        """Seconds in the controller's current stage."""
        return self._traffic().groups.get_elapsed_time(self._index)

    def set_elapsed_time(self, seconds: float) -> None:
        """Sets the seconds in the controller's current stage (for all its lights); a replay
        puts a light's clock where the log has it."""
        self._traffic().groups.set_elapsed_time(self._index, float(seconds))

    def _stage_time(self, stage: TrafficLightState) -> float:
        return self._traffic().groups.get_stage_time(self._index, stage)

    def _set_stage_time(self, stage: TrafficLightState, seconds: float) -> None:
        self._traffic().groups.set_stage_time(self._index, stage, seconds)

    def get_green_time(self) -> float:
        return self._stage_time(TrafficLightState.Green)

    def get_yellow_time(self) -> float:
        return self._stage_time(TrafficLightState.Yellow)

    def get_red_time(self) -> float:
        return self._stage_time(TrafficLightState.Red)

    def set_green_time(self, green_time: float) -> None:
        """The green stage of the light's controller (all its lights), in seconds."""
        self._set_stage_time(TrafficLightState.Green, green_time)

    def set_yellow_time(self, yellow_time: float) -> None:
        self._set_stage_time(TrafficLightState.Yellow, yellow_time)

    def set_red_time(self, red_time: float) -> None:
        self._set_stage_time(TrafficLightState.Red, red_time)

    def freeze(self, freeze: bool) -> None:
        """Stops (or restarts) the clock of every light, as CARLA's freeze does."""
        self._world.freeze_all_traffic_lights(freeze)

    def is_frozen(self) -> bool:
        return self._traffic().groups.frozen

    def reset_group(self) -> None:
        """The group's controllers red, then its first controller green, elapsed 0."""
        self._traffic().system.reset_group(self._world._vehicles, self._index)

    def get_pole_index(self) -> int:
        return self._traffic().groups.pole_index(self._index)

    def get_group_traffic_lights(self) -> list[TrafficLight]:
        """The lights of this light's group, controller by controller."""
        return [self._world._handle(i) for i in self._traffic().group_light_ids(self.id)]

    def get_opendrive_id(self) -> str:
        return self._traffic().light_opendrive_id(self.id)

    @property
    def trigger_volume(self) -> BoundingBox:
        """The light's first road box, in the light's frame."""
        return self._traffic().trigger_volume(self.id, self.get_transform())

    def get_affected_lane_waypoints(self) -> list[Waypoint]:
        """A waypoint on each lane the light's signal is valid for, at the signal's s."""
        return self._traffic().affected_lane_waypoints(self.id)

    def get_stop_waypoints(self) -> list[Waypoint]:
        """The waypoints where vehicles stop for this light, one per lane of its first box."""
        return self._traffic().stop_waypoints(self.id, self.get_transform())

    def get_light_boxes(self) -> list[BoundingBox]:
        """The boxes of the light's heads in the world frame: lockstep has one, the actor's
        pole-and-head box."""
        t, r = self._world._actors, self._row
        centre = self.get_transform().transform(Location(*map(float, t.box_loc[r])))
        return [BoundingBox(centre, _vec(t.extent[r]), self.get_transform().rotation)]


class TrafficSign(Actor):
    """A traffic sign of the map (stop, yield, speed limit) with its road box."""

    __slots__ = ()

    def get_opendrive_id(self) -> str:
        return self._world.traffic_signals(required=True).sign_opendrive_id(self.id)

    @property
    def trigger_volume(self) -> BoundingBox:
        """The sign's first road box, in the sign's frame."""
        return self._world.traffic_signals(required=True).trigger_volume(
            self.id, self.get_transform()
        )


class Sensor(Actor):
    """A sensor actor; it moves with its parent and measures when due (sensor_tick)."""

    __slots__ = ()

    def _behaviour(self) -> SensorBehaviour:
        self._live_row()
        found = self._world._sensor_behaviour(self.id)
        if found is None:
            raise WorldError(
                f"{self.type_id} (actor {self.id}) is not modelled by lockstep: it never measures"
            )
        return found

    def listen(self, callback: Callable[[Any], None]) -> None:
        """Every later measurement goes to `callback`, called inside `world.tick()`."""
        self._behaviour().listen(callback)

    def stop(self) -> None:
        self._behaviour().stop()

    def is_listening(self) -> bool:
        found = self._world._sensor_behaviour(self.id)
        return found is not None and found.is_listening()


class RssSensor(Sensor):
    """sensor.other.rss (CARLA's carla.RssSensor): the RSS check of its parent vehicle, with
    its settings; the behaviour is world.sensors.rss.sensor."""

    __slots__ = ()

    def _rss(self) -> RssSensorBehaviour:
        return self._behaviour()  # type: ignore[return-value]  # the registry's for this id

    @property
    def ego_vehicle_dynamics(self) -> Any:
        return self._rss().get_dynamics("ego_vehicle")

    @ego_vehicle_dynamics.setter
    def ego_vehicle_dynamics(self, value: Any) -> None:
        self._rss().set_dynamics("ego_vehicle", value)

    @property
    def other_vehicle_dynamics(self) -> Any:
        return self._rss().get_dynamics("other_vehicle")

    @other_vehicle_dynamics.setter
    def other_vehicle_dynamics(self, value: Any) -> None:
        self._rss().set_dynamics("other_vehicle", value)

    @property
    def pedestrian_dynamics(self) -> Any:
        return self._rss().get_dynamics("pedestrian")

    @pedestrian_dynamics.setter
    def pedestrian_dynamics(self, value: Any) -> None:
        self._rss().set_dynamics("pedestrian", value)

    @property
    def road_boundaries_mode(self) -> Any:
        return self._rss().road_boundaries_mode

    @road_boundaries_mode.setter
    def road_boundaries_mode(self, mode: Any) -> None:
        self._rss().road_boundaries_mode = mode

    @property
    def routing_targets(self) -> list[Transform]:
        return self._rss().routing_targets()

    def append_routing_target(self, routing_target: Transform) -> None:
        self._rss().append_routing_target(routing_target)

    def reset_routing_targets(self) -> None:
        self._rss().reset_routing_targets()

    def drop_route(self) -> None:
        self._rss().drop_route()

    def register_actor_constellation_callback(self, callback: Callable[[Any], Any]) -> None:
        self._rss().register_actor_constellation_callback(callback)

    def set_log_level(self, log_level: Any) -> None:
        self._rss().set_log_level(log_level)

    def set_map_log_level(self, map_log_level: Any) -> None:
        self._rss().set_map_log_level(map_log_level)


class Spectator(Actor):
    """The spectator, actor 1: a free camera pose."""

    __slots__ = ()


class WalkerAIController(Actor):
    """CARLA's carla.WalkerAIController: an actor attached to a walker that walks it, through
    the world's pedestrian system (world.traffic.walkers.ai)."""

    __slots__ = ()

    def _walker_row(self) -> int:
        row = self._live_row()
        parent = int(self._world._actors.parent[row])
        if parent < 0 or self._world._actors.kind[parent] != ActorType.Walker:
            raise WorldError(
                f"controller.ai.walker {self.id}: spawn it attached to a walker "
                "(world.spawn_actor(bp, Transform(), walker))"
            )
        return parent

    def _system(self) -> WalkerAISystem:
        return self._world.walker_ai()

    def start(self) -> None:
        self._system().start(self._row, self._walker_row())

    def stop(self) -> None:
        self._system().stop(self._row)

    def _slot(self) -> int:
        system = self._system()
        i = system.slot(self._live_row())
        if i < 0:
            raise WorldError(f"controller.ai.walker {self.id}: call start() first")
        return i

    def go_to_location(self, destination: Location) -> None:
        goal = np.array([destination.x, destination.y, destination.z], dtype=np.float64)
        self._system().go_to(self._slot(), goal)

    def set_max_speed(self, speed: float = DEFAULT_WALKER_SPEED) -> None:
        self._system().set_speed(self._slot(), speed)

    def __repr__(self) -> str:
        return f"WalkerAIController(id={self.id})"
