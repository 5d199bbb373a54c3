"""The replay helper of a lockstep World: what each replayed record does to the world.

Actors of the log are spawned with their blueprint (an unknown one as the nearest of
lockstep's catalogue, reported once, recorder.replay.blueprint_match), 1000 m up, then moved to
their logged place. Traffic lights and signs are not made: the one at the logged place,
to the whole centimetre, is reused (CARLA's FindTrafficSignAt), else the nearest of the
same kind within 1 m (CARLA's Town01 lights stand about 0.3 m from the OpenDRIVE signal
points lockstep places them at). A replayed vehicle or walker has no physics and no
gravity: it stays where the replay sets it, and the replay sets poses after the world's
tick. The end of a replay gives every vehicle its physics and gravity back, zero
velocity and a first-gear control, and stops every walker, as CARLA's ProcessReplayerFinish.

The world cannot re-parent an actor, remove a light, a sign or the spectator, or play
wheel, bicycle or scene-light animation: those records do nothing here.
Poses arrive per record (CARLA's helper interface), so they are set actor by actor.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from recorder.logfile.packets import PositionRecord
from recorder.replay.blueprint_match import nearest_blueprint
from recorder.replay.helper import (
    IGNORED,
    NOT_CREATED,
    REUSED,
    SPAWNED,
    ActorDescription,
    ReplayHelper,
    is_hero_description,
    ue_starts_with,
)
from recorder.replay.pose_math import Vec3, interpolate_pose
from recorder.replay.standin import truncate_cm
from world.actors.attachments import compose
from world.actors.controls import (
    VehicleControl,
    WalkerBoneControlIn,
    WalkerControl,
)
from world.actors.vehicle_state import (
    ActorType,
    TrafficLightState,
    VehicleDoor,
    VehicleLightState,
)
from world.errors import BlueprintError
from world.geometry import Location, Rotation, Transform, Vector3D
from world.handles import TrafficLight, Vehicle, Walker
from world.weather import WeatherParameters

SPAWN_HEIGHT_M = 1000.0  # CARLA spawns a replayed actor 1 km up, then moves it
MATCH_RADIUS_M = 1.0  # a logged light or sign matches the nearest of its kind this close
_LIGHT_BITS = 0x7FF  # the flags FVehicleLightState keeps (CARLA drops the rest)


def transform_of(location: Vec3, rotation: Vec3) -> Transform:
    """A log pose (cm; roll, pitch, yaw in degrees) as a lockstep Transform (m)."""
    return Transform(
        Location(location[0] / 100.0, location[1] / 100.0, location[2] / 100.0),
        Rotation(pitch=rotation[1], yaw=rotation[2], roll=rotation[0]),
    )


class WorldReplayHelper(ReplayHelper):
    """Plays records into `world`; `substitutions` lists each unknown blueprint once."""

    def __init__(self, world: Any):
        self.world = world
        self.library = world.get_blueprint_library()
        self.substitutions: dict[str, str | None] = {}
        self.created: list[tuple[str, int]] = []  # (log blueprint, world id) of each actor made
        self.matched: list[tuple[str, int]] = []  # (log blueprint, world id) of lights/signs
        self.replayed: set[int] = set()

    # -- actors ------------------------------------------------------------------------------

    def process_event_add(
        self,
        location: Vec3,
        rotation: Vec3,
        description: ActorDescription,
        desired_id: int,
        ignore_hero: bool,
        ignore_spectator: bool,
        replay_sensors: bool,
    ) -> tuple[int, int]:
        blueprint = description.blueprint
        hero = is_hero_description(description)
        if ignore_hero and hero:
            return IGNORED, 0
        if ue_starts_with(blueprint, "spectator"):
            if ignore_spectator:
                return IGNORED, 0
            return REUSED, self.world.get_spectator().id
        if ue_starts_with(blueprint, "traffic."):
            found = self.find_traffic_sign_at(location, blueprint)
            if found is None:
                return NOT_CREATED, 0
            self.matched.append((blueprint, found))
            return REUSED, found
        if ue_starts_with(blueprint, "sensor.") and not replay_sensors:
            return NOT_CREATED, 0
        actor = self._spawn(location, rotation, description)
        if actor is None:
            return NOT_CREATED, 0
        self.created.append((blueprint, actor.id))
        self.replayed.add(actor.id)
        if isinstance(actor, Vehicle | Walker):
            actor.set_simulate_physics(False)
            actor.set_enable_gravity(False)
        return SPAWNED, actor.id

    def _spawn(self, location: Vec3, rotation: Vec3, description: ActorDescription) -> Any:
        attributes = {a.id: a.value for a in description.attributes}
        blueprint_id = description.blueprint
        if blueprint_id not in self.substitutions:
            self.substitutions[blueprint_id] = nearest_blueprint(
                blueprint_id, attributes, self.library
            )
        chosen = self.substitutions[blueprint_id]
        if chosen is None:
            return None
        blueprint = self.library.find(chosen)
        for name, value in attributes.items():
            if blueprint.has_attribute(name) and blueprint.get_attribute(name).is_modifiable:
                with contextlib.suppress(BlueprintError):  # a value it does not offer: keep its own
                    blueprint.set_attribute(name, value)
        pose = transform_of(location, rotation)
        high = Transform(Location(0.0, 0.0, SPAWN_HEIGHT_M), pose.rotation)
        actor = self.world.try_spawn_actor(blueprint, high)
        if actor is not None:
            actor.set_transform(pose)
        return actor

    def unknown_blueprints(self) -> dict[str, str | None]:
        """Each logged blueprint lockstep does not have, with what it replayed as."""
        return {k: v for k, v in self.substitutions.items() if k != v}

    def find_traffic_sign_at(self, location: Vec3, blueprint: str) -> int | None:
        """The world's light or sign at `location` (cm) to the whole cm, else the nearest of
        the same kind within MATCH_RADIUS_M; None if there is none."""
        want = tuple(truncate_cm(v) for v in location)
        kind = (
            ActorType.TrafficLight
            if ue_starts_with(blueprint, "traffic.traffic_light")
            else ActorType.TrafficSign
        )
        best: tuple[float, int] | None = None
        x, y, z = (v / 100.0 for v in location)
        for actor in self.world.get_actors():
            tid = actor.type_id
            if not tid.startswith("traffic."):
                continue
            p = actor.get_location()
            if tuple(truncate_cm(v * 100.0) for v in (p.x, p.y, p.z)) == want:
                return actor.id
            same = tid.startswith("traffic.traffic_light") == (kind == ActorType.TrafficLight)
            if same:
                dx, dy, dz = p.x - x, p.y - y, p.z - z
                d = math.sqrt(dx * dx + dy * dy + dz * dz)
                if d <= MATCH_RADIUS_M and (best is None or d < best[0]):
                    best = (d, actor.id)
        return None if best is None else best[1]

    def process_event_del(self, actor_id: int) -> bool:
        actor = self.world.get_actor(actor_id)
        if actor is None:
            return False
        if actor.id in self.replayed:  # the world cannot remove lights, signs, spectator
            actor.destroy()
            self.replayed.discard(actor.id)
        return True

    def process_event_parent(self, child_id: int, parent_id: int) -> bool:
        return (
            self.world.get_actor(child_id) is not None
            and self.world.get_actor(parent_id) is not None
        )

    # -- poses and states --------------------------------------------------------------------

    def process_position(
        self, pos1: PositionRecord, pos2: PositionRecord, per: float, delta: float
    ) -> bool:
        actor = self.world.get_actor(pos1.id)
        if actor is None or actor.id == self.world.get_spectator().id:
            return False
        location, rotation = interpolate_pose(
            pos1.location, pos1.rotation, pos2.location, pos2.rotation, per
        )
        actor.set_transform(transform_of(location, rotation))
        return True

    def process_state_traffic_light(self, state: Any) -> bool:
        actor = self.world.get_actor(state.id)
        if actor is None:
            return False
        if isinstance(actor, TrafficLight):
            try:
                light_state = TrafficLightState(state.state)
            except ValueError:
                light_state = TrafficLightState.Unknown
            actor.set_state(light_state)
            actor.set_elapsed_time(float(state.elapsed))
            if actor.is_frozen() != bool(state.frozen):
                actor.freeze(bool(state.frozen))
        return True

    def process_anim_vehicle(self, r: Any) -> None:
        actor = self.world.get_actor(r.id)
        if isinstance(actor, Vehicle):
            actor.apply_control(
                VehicleControl(
                    throttle=r.throttle,
                    steer=r.steering,
                    brake=r.brake,
                    hand_brake=bool(r.handbrake),
                    reverse=r.gear < 0,
                    manual_gear_shift=False,
                    gear=r.gear,
                )
            )

    def process_anim_walker(self, r: Any) -> None:
        actor = self.world.get_actor(r.id)
        if isinstance(actor, Walker):
            actor.apply_control(WalkerControl(speed=r.speed / 100.0))

    def process_light_vehicle(self, r: Any) -> None:
        actor = self.world.get_actor(r.id)
        if isinstance(actor, Vehicle):
            actor.set_light_state(VehicleLightState(r.state & _LIGHT_BITS))

    def process_door_vehicle(self, r: Any) -> None:
        actor = self.world.get_actor(r.id)
        if not isinstance(actor, Vehicle):
            return
        try:
            door = VehicleDoor(r.doors)
        except ValueError:
            return
        if r.open:
            actor.open_door(door)
        else:
            actor.close_door(door)

    def process_walker_bones(self, r: Any) -> None:
        actor = self.world.get_actor(r.id)
        if isinstance(actor, Walker):
            bones = [(b.name, transform_of(b.location, b.rotation)) for b in r.bones]
            actor.set_bones(WalkerBoneControlIn(bones))
            actor.blend_pose(1.0)

    def process_weather(self, r: Any) -> None:
        self.world.set_weather(
            WeatherParameters(**{name: getattr(r, name) for name in r.__dataclass_fields__})
        )

    def set_camera_position(self, actor_id: int, offset: Vec3, rotation: Vec3) -> bool:
        actor = self.world.get_actor(actor_id)
        if actor is None:
            return False
        t = actor.get_transform()
        o = transform_of(offset, rotation)
        pos, rot = compose(
            np.array([[t.location.x, t.location.y, t.location.z]]),
            np.array([[t.rotation.pitch, t.rotation.yaw, t.rotation.roll]]),
            np.array([[o.location.x, o.location.y, o.location.z]]),
            np.array([[o.rotation.pitch, o.rotation.yaw, o.rotation.roll]]),
        )
        p, r = pos[0], rot[0]
        self.world.get_spectator().set_transform(
            Transform(
                Location(float(p[0]), float(p[1]), float(p[2])),
                Rotation(pitch=float(r[0]), yaw=float(r[1]), roll=float(r[2])),
            )
        )
        return True

    def process_finish(
        self, apply_autopilot: bool, ignore_hero: bool, is_hero: dict[int, bool]
    ) -> bool:
        for actor in self.world.get_actors():
            if isinstance(actor, Vehicle):
                if ignore_hero and is_hero.get(actor.id, False):
                    continue
                actor.set_simulate_physics(True)
                actor.set_enable_gravity(True)
                actor.set_target_velocity(Vector3D(0.0, 0.0, 0.0))
                actor.apply_control(VehicleControl(gear=1, manual_gear_shift=False))
            elif isinstance(actor, Walker):
                actor.apply_control(WalkerControl(speed=0.0))
        return True
