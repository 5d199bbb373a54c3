"""A stand-in world that records every replayer call: what `replay_trace` compares.

`StandinWorld` keeps CARLA's actor registry rules (FActorRegistry): `id = ++counter`
(uint32, wrapping), a free desired id taken instead and the counter raised to it, a used
id replaced in place, iteration in slot order with freed slots reused last-freed-first.
Spawns fail for UId 0; traffic lights and signs are found by their location truncated
to whole centimetres, as CARLA's FindTrafficSignAt does. `RecordingHelper` answers the
replayer's calls from that registry and writes one trace line per call (the schema of
../shared/carla-replay-golden/README.md, without the `effects` lists).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from recorder.logfile.packets import PositionRecord
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
from recorder.replay.pose_math import Vec3, f32, interpolate_pose
from recorder.replay.trace_lines import F32, f32s

_U32 = 0xFFFFFFFF


@dataclass
class StandinActor:
    id: int
    type: str
    blueprint: str
    location: Vec3
    spectator_pawn: bool = False


def actor_type_of(blueprint: str) -> str:
    """The stand-in's actor type from the blueprint prefix (case-insensitive)."""
    for prefix, kind in (
        ("vehicle.", "Vehicle"),
        ("walker.", "Walker"),
        ("traffic.traffic_light", "TrafficLight"),
        ("traffic.", "TrafficSign"),
        ("sensor.", "Sensor"),
    ):
        if ue_starts_with(blueprint, prefix):
            return kind
    return "Other"


def truncate_cm(x: float) -> int:
    """static_cast<int> of a float on x86-64: toward zero, INT_MIN when out of range."""
    if math.isnan(x) or not -2147483649.0 < x < 2147483648.0:
        return -2147483648
    return int(x)


class StandinWorld:
    """CARLA's actor registry over stand-in actors."""

    def __init__(self, id_counter: int = 0):
        self.id_counter = id_counter
        self._slots: list[StandinActor | None] = []
        self._slot_of: dict[int, int] = {}
        self._free: list[int] = []

    @classmethod
    def from_trace(cls, world: dict[str, Any]) -> StandinWorld:
        """The world of a trace's `world` line (its actors registered under their ids)."""
        out = cls(int(world["id_counter"]))
        for a in world["actors"]:
            actor = StandinActor(
                int(a["id"]),
                a["type"],
                a["blueprint"],
                tuple(f32(v) for v in a["location"]),  # type: ignore[arg-type]
                spectator_pawn=a["blueprint"] == "spectator",
            )
            out._emplace(actor)
        return out

    def find(self, actor_id: int) -> StandinActor | None:
        slot = self._slot_of.get(actor_id)
        return None if slot is None else self._slots[slot]

    def actors(self) -> list[StandinActor]:
        """The registry in iteration order."""
        return [a for a in self._slots if a is not None]

    def register(self, desired_id: int, type_: str, blueprint: str, location: Vec3) -> int:
        new_id = (self.id_counter + 1) & _U32
        self.id_counter = new_id
        if desired_id != 0 and new_id != desired_id and desired_id not in self._slot_of:
            new_id = desired_id
            self.id_counter = max(self.id_counter, new_id)
        self._emplace(StandinActor(new_id, type_, blueprint, location))
        return new_id

    def _emplace(self, actor: StandinActor) -> None:
        slot = self._slot_of.get(actor.id)
        if slot is None:
            if self._free:
                slot = self._free.pop()
            else:
                slot = len(self._slots)
                self._slots.append(None)
            self._slot_of[actor.id] = slot
        self._slots[slot] = actor

    def destroy(self, actor_id: int) -> bool:
        slot = self._slot_of.pop(actor_id, None)
        if slot is None:
            return False
        self._slots[slot] = None
        self._free.append(slot)
        return True

    def find_traffic_sign_at(self, location: Vec3) -> StandinActor | None:
        want = tuple(truncate_cm(v) for v in location)
        for actor in self.actors():
            traffic = actor.type in ("TrafficLight", "TrafficSign")
            if traffic and tuple(truncate_cm(v) for v in actor.location) == want:
                return actor
        return None

    def spectator(self) -> StandinActor | None:
        for actor in self.actors():
            if actor.spectator_pawn:
                return actor
        return None


def _position(p: PositionRecord) -> tuple[int, list[F32], list[F32]]:
    return p.id, f32s(p.location), f32s(p.rotation)


class RecordingHelper(ReplayHelper):
    """Answers the replayer from a `StandinWorld` and hands each call's trace line to `emit`."""

    def __init__(self, world: StandinWorld, emit: Callable[[dict[str, Any]], None]):
        self.world = world
        self.emit = emit

    def _line(self, call: str, **fields: Any) -> None:
        self.emit({"call": call, **fields})

    def remove_static_props(self) -> None:
        self._line("RemoveStaticProps")

    def set_visual_game_time(self, time: float) -> None:
        self._line("SetVisualGameTime", time=float(time))

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
        fields: dict[str, Any] = {
            "desired_id": desired_id,
            "location": f32s(location),
            "rotation": f32s(rotation),
            "uid": description.uid,
            "blueprint": description.blueprint,
            "attributes": [[a.type, a.id, a.value] for a in description.attributes],
            "ignore_hero": ignore_hero,
            "ignore_spectator": ignore_spectator,
            "replay_sensors": replay_sensors,
        }
        result = self._event_add(
            location, description, desired_id, ignore_hero, ignore_spectator, replay_sensors, fields
        )
        fields["ret"] = list(result)
        self._line("ProcessReplayerEventAdd", **fields)
        return result

    def _event_add(
        self,
        location: Vec3,
        description: ActorDescription,
        desired_id: int,
        ignore_hero: bool,
        ignore_spectator: bool,
        replay_sensors: bool,
        fields: dict[str, Any],
    ) -> tuple[int, int]:
        blueprint = description.blueprint
        if (ignore_hero and is_hero_description(description)) or (
            ignore_spectator and ue_starts_with(blueprint, "spectator")
        ):
            return IGNORED, 0
        if ue_starts_with(blueprint, "traffic."):
            fields["traffic_lookup"] = [truncate_cm(v) for v in location]
            found = self.world.find_traffic_sign_at(location)
            return (REUSED, found.id) if found is not None else (NOT_CREATED, 0)
        if not replay_sensors and ue_starts_with(blueprint, "sensor."):
            return NOT_CREATED, 0
        if description.uid == 0:
            return NOT_CREATED, 0
        new_id = self.world.register(desired_id, actor_type_of(blueprint), blueprint, location)
        return SPAWNED, new_id

    def process_event_del(self, actor_id: int) -> bool:
        ret = self.world.destroy(actor_id)
        self._line("ProcessReplayerEventDel", id=actor_id, ret=ret)
        return ret

    def process_event_parent(self, child_id: int, parent_id: int) -> bool:
        ret = self.world.find(child_id) is not None and self.world.find(parent_id) is not None
        self._line("ProcessReplayerEventParent", child=child_id, parent=parent_id, ret=ret)
        return ret

    def process_position(
        self, pos1: PositionRecord, pos2: PositionRecord, per: float, delta: float
    ) -> bool:
        id1, loc1, rot1 = _position(pos1)
        id2, loc2, rot2 = _position(pos2)
        fields: dict[str, Any] = {
            "id1": id1, "loc1": loc1, "rot1": rot1,
            "id2": id2, "loc2": loc2, "rot2": rot2,
            "per": float(per), "dt": float(delta),
        }  # fmt: skip
        actor = self.world.find(pos1.id)
        ret = actor is not None and not actor.spectator_pawn
        fields["ret"] = ret
        if ret:
            location, rotation = interpolate_pose(
                pos1.location, pos1.rotation, pos2.location, pos2.rotation, per
            )
            actor.location = location  # type: ignore[union-attr]
            fields["location"] = f32s(location)
            fields["rotation"] = f32s(rotation)
        self._line("ProcessReplayerPosition", **fields)
        return ret

    def process_state_traffic_light(self, state: Any) -> bool:
        ret = self.world.find(state.id) is not None
        self._line(
            "ProcessReplayerStateTrafficLight",
            id=state.id,
            frozen=bool(state.frozen),
            elapsed=F32(state.elapsed),
            state=state.state,
            ret=ret,
        )
        return ret

    def process_anim_vehicle(self, r: Any) -> None:
        self._line(
            "ProcessReplayerAnimVehicle",
            id=r.id,
            steering=F32(r.steering),
            throttle=F32(r.throttle),
            brake=F32(r.brake),
            handbrake=bool(r.handbrake),
            gear=r.gear,
        )

    def process_anim_vehicle_wheels(self, r: Any) -> None:
        wheels = [[w.location, F32(w.steering_angle), F32(w.tire_rotation)] for w in r.wheels]
        self._line("ProcessReplayerAnimVehicleWheels", id=r.id, wheels=wheels)

    def process_anim_walker(self, r: Any) -> None:
        self._line("ProcessReplayerAnimWalker", id=r.id, speed=F32(r.speed))

    def process_anim_biker(self, r: Any) -> None:
        self._line(
            "ProcessReplayerAnimBiker",
            id=r.id,
            forward_speed=F32(r.forward_speed),
            engine_rotation=F32(r.engine_rotation),
        )

    def process_light_vehicle(self, r: Any) -> None:
        self._line("ProcessReplayerLightVehicle", id=r.id, state=r.state)

    def process_door_vehicle(self, r: Any) -> None:
        self._line("ProcessReplayerDoorVehicle", id=r.id, doors=r.doors, open=bool(r.open))

    def process_light_scene(self, r: Any) -> None:
        self._line(
            "ProcessReplayerLightScene",
            light_id=r.id,
            intensity=F32(r.intensity),
            color=f32s(r.color),
            on=bool(r.on),
            type=r.type,
        )

    def process_walker_bones(self, r: Any) -> None:
        bones = [[b.name, f32s(b.location), f32s(b.rotation)] for b in r.bones]
        self._line("ProcessReplayerWalkerBones", id=r.id, bones=bones)

    def process_weather(self, r: Any) -> None:
        weather = {name: F32(getattr(r, name)) for name in r.__dataclass_fields__}
        self._line("ProcessReplayerWeather", weather=weather)

    def set_camera_position(self, actor_id: int, offset: Vec3, rotation: Vec3) -> bool:
        ret = self.world.find(actor_id) is not None and self.world.spectator() is not None
        self._line(
            "SetCameraPosition", id=actor_id, offset=f32s(offset), rotation=f32s(rotation), ret=ret
        )
        return ret

    def process_finish(
        self, apply_autopilot: bool, ignore_hero: bool, is_hero: dict[int, bool]
    ) -> bool:
        self._line(
            "ProcessReplayerFinish",
            apply_autopilot=apply_autopilot,
            ignore_hero=ignore_hero,
            is_hero=[[k, v] for k, v in sorted(is_hero.items())],
            ret=True,
        )
        return True
