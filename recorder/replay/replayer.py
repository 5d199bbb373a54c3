"""Replayer: plays a CARLA recorder log back into a world, frame by frame, as CARLA does.

This follows CARLA's CarlaReplayer call for call. `replay_file` reads the log up to the
start time (creating actors and handling events on the way), then every `tick(delta)`
moves the replay time on by `delta * time_factor` and reads the frames it crosses:
events of every frame, poses, states and animation of the frame that holds the new
time only. Each actor is then placed between its pose of the previously processed
frame and its pose in the current one (see recorder.replay.pose_math). The replayer touches
its world only through a `ReplayHelper` (recorder.replay.helper).

Ids: each log id maps to the world id its actor got (`mapped_ids`); a log id with no
mapping maps to 0 where CARLA's `MappedId[id]` inserts it, and passes unchanged in a
Position record, as in CARLA.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recorder.errors import LogFormatError, RecorderError, ReplayError
from recorder.logfile.cformat import c_general
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import ActorAttribute, PositionRecord, WalkerBonesRecord
from recorder.logfile.reader import LogReader
from recorder.replay.helper import (
    IGNORED,
    NOT_CREATED,
    ActorDescription,
    ReplayHelper,
    is_hero_description,
)
from recorder.replay.pose_math import Vec3, f32
from recorder.replay.stream import PacketStream
from recorder.replay.walker_gait import GaitTracker

# The Python API's default follow offset, carla.Transform(Location(-10, 0, 5),
# Rotation(pitch=-25)), as the replayer receives it: centimetres and (roll, pitch, yaw).
DEFAULT_FOLLOW_LOCATION: Vec3 = (-1000.0, 0.0, 500.0)
DEFAULT_FOLLOW_ROTATION: Vec3 = (0.0, -25.0, 0.0)
# Records of these packets are played only for the frame that holds the replay time.
_FOUND_FRAME_ONLY = {
    PacketId.State: "process_state_traffic_light",
    PacketId.AnimVehicle: "process_anim_vehicle",
    PacketId.AnimVehicleWheels: "process_anim_vehicle_wheels",
    PacketId.AnimWalker: "process_anim_walker",
    PacketId.AnimBiker: "process_anim_biker",
    PacketId.VehicleLight: "process_light_vehicle",
    PacketId.VehicleDoor: "process_door_vehicle",
    PacketId.WalkerBones: "process_walker_bones",
}


@dataclass(slots=True)
class FrameState:
    """The last FrameStart read: its id, duration (-1 for the last frame) and elapsed time."""

    id: int = 0
    duration: float = 0.0
    elapsed: float = 0.0


def _divide(a: float, b: float) -> float:
    """a / b with IEEE results for a zero divisor, as C++ doubles give."""
    if b != 0.0:
        return a / b
    if a == 0.0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _accumulated_bones(records: list) -> list:
    """CARLA reads a packet's WalkerBones records into one object that never drops its
    bones, so each record carries the bones of the records before it in the packet too."""
    bones: list = []
    out = []
    for r in records:
        bones = bones + r.bones
        out.append(WalkerBonesRecord(r.id, bones))
    return out


class Replayer:
    """CARLA's replayer over a `ReplayHelper` (a lockstep World's when `replay_file` gets one).

    `ignore_spectator` is on by default; `time_factor` is 1."""

    def __init__(self, helper: ReplayHelper | None = None):
        self.helper: ReplayHelper = helper if helper is not None else ReplayHelper()
        self.enabled = False
        self.current_time = 0.0
        self.total_time = 0.0
        self.time_to_stop = 0.0
        self.time_factor = 1.0
        self.ignore_hero = False
        self.ignore_spectator = True
        self.replay_sensors = False
        self.replay_weather = False
        self.follow_id = 0
        self.follow_location: Vec3 = DEFAULT_FOLLOW_LOCATION
        self.follow_rotation: Vec3 = DEFAULT_FOLLOW_ROTATION
        self.frame = FrameState()
        self.mapped_ids: dict[int, int] = {}
        self.is_hero: dict[int, bool] = {}
        self.version = 0
        self.gait = GaitTracker()
        self._prev_pos: list[PositionRecord] = []
        self._curr_pos: list[PositionRecord] = []
        self._stream: PacketStream | None = None
        self._world: Any = None

    # -- settings ---------------------------------------------------------------------------

    def set_time_factor(self, time_factor: float) -> None:
        """Plays faster (above 1) or slower; at 2 or more poses are not interpolated."""
        factor = float(time_factor)
        if not math.isfinite(factor) or factor < 0.0:
            raise ReplayError(f"set_time_factor: {time_factor!r} is not a finite factor >= 0")
        self.time_factor = factor

    def set_ignore_hero(self, ignore_hero: bool) -> None:
        """Leaves the actors whose role_name is hero to the world."""
        self.ignore_hero = bool(ignore_hero)

    def set_ignore_spectator(self, ignore_spectator: bool) -> None:
        """Leaves the world's spectator (id 1) alone (on by default)."""
        self.ignore_spectator = bool(ignore_spectator)

    def is_enabled(self) -> bool:
        return self.enabled

    # -- replaying --------------------------------------------------------------------------

    def replay_file(
        self,
        world: Any,
        path: str | Path,
        time_start: float = 0.0,
        duration: float = 0.0,
        follow_id: int = 0,
        follow_offset: Any = None,
        replay_sensors: bool = False,
        replay_weather: bool = False,
        *,
        name: str | None = None,
    ) -> str:
        """Starts replaying the log at `path` into `world` and returns CARLA's text.

        `time_start` < 0 counts back from the end; `duration` 0 plays to the end;
        `follow_id` is a log id whose actor the spectator follows at `follow_offset` (a
        Transform in metres in its frame; default 10 m behind, 5 m up, pitch -25).
        `world` None keeps the helper given to the constructor. `name` is the file name
        shown in the text (default: `path` as given)."""
        if world is not None and world is not self._world:
            from recorder.replay.world_helper import WorldReplayHelper

            self.helper = WorldReplayHelper(world)
            self._world = world
        self._set_follow_offset(follow_offset)
        if self.enabled:
            self.stop()
        shown = str(path) if name is None else name
        info = [f"Replaying File: {shown}\n"]
        try:
            reader = LogReader(path, variant="auto")
        except FileNotFoundError:
            info.append(f"File {shown} not found on server\n")
            self.stop()
            return "".join(info)
        stream = PacketStream(reader)  # indexes every packet: a damaged log fails here
        self._stream = stream
        self.version = reader.header.version
        self._rewind()
        self.total_time = self._total_time()
        info.append(f"Total time recorded: {c_general(self.total_time)}\n")
        start = float(time_start)
        if start < 0.0:
            start = self.total_time + start
            if start < 0.0:
                start = 0.0
        duration = float(duration)
        self.time_to_stop = start + duration if duration > 0.0 else self.total_time
        info.append(
            f"Replaying from {c_general(start)} s - {c_general(self.time_to_stop)} s "
            f"({c_general(self.total_time)} s) at {self.time_factor:.1f}x\n"
        )
        if self.ignore_hero:
            info.append("Ignoring Hero vehicle\n")
        if self.ignore_spectator:
            info.append("Ignoring Spectator camera\n")
        self.follow_id = int(follow_id)
        self.replay_sensors = bool(replay_sensors)
        self.replay_weather = bool(replay_weather)
        self.gait.start(reader)
        self.helper.remove_static_props()
        self._guarded(start, True)
        self.enabled = True
        self.gait.advance(self.current_time, self.mapped_ids)
        return "".join(info)

    def tick(self, delta: float) -> None:
        """Moves the replay on by `delta` seconds of the world (times the time factor).

        A negative or non-finite advance, or one that overflows the replay time, raises
        ReplayError before anything changes."""
        if not self.enabled:
            return
        scaled = self.scaled_advance(delta)
        self._guarded(scaled, False)

    def scaled_advance(self, delta: float) -> float:
        """The replay time a world tick of `delta` seconds adds (CARLA's float delta times the
        factor, in double); raises ReplayError for a bad advance."""
        seconds = f32(float(delta))
        if not math.isfinite(seconds) or seconds < 0.0:
            raise ReplayError(f"replay tick: time advance {delta!r} is not a finite time >= 0")
        scaled = seconds * self.time_factor
        if not math.isfinite(self.current_time + scaled):
            raise ReplayError(
                f"replay tick: replay time {self.current_time!r} + {scaled!r} overflows"
            )
        return scaled

    def step(self, world: Any) -> int:
        """Ticks `world`, then moves the replay on by the world's tick (poses are set after
        the world's physics). Returns the world's frame."""
        dt = world.get_settings().fixed_delta_seconds
        if dt is None:
            raise ReplayError("Replayer.step needs a world with fixed_delta_seconds set")
        if self.enabled:
            self.scaled_advance(dt)  # checked before the world moves
        frame = world.tick()
        self.tick(dt)
        return frame

    def stop(self, keep_actors: bool = False) -> None:
        """Ends the replay. Unless `keep_actors`, the rest of the log's events run first
        (so actors the log removes are removed); then vehicles get physics back, stop and
        get a first-gear control, and walkers stop."""
        if self.enabled:
            self.enabled = False
            if not keep_actors:
                self._guarded(self.total_time, False)
            self.helper.process_finish(keep_actors, self.ignore_hero, self.is_hero)
            self.gait.stop()
        if self._stream is not None:
            self._stream.close()

    def walker_gait(self, world_id: int) -> tuple[float, float] | None:
        """A replayed walker's procedural gait: (phase in [0, 1), amplitude in [0, 1])."""
        return self.gait.pose_of(world_id)

    # -- CARLA's loop ------------------------------------------------------------------------

    def _set_follow_offset(self, offset: Any) -> None:
        if offset is None:
            self.follow_location = DEFAULT_FOLLOW_LOCATION
            self.follow_rotation = DEFAULT_FOLLOW_ROTATION
            return
        loc, rot = offset.location, offset.rotation
        self.follow_location = (f32(loc.x * 100.0), f32(loc.y * 100.0), f32(loc.z * 100.0))
        self.follow_rotation = (f32(rot.roll), f32(rot.pitch), f32(rot.yaw))

    def _rewind(self) -> None:
        self.current_time = 0.0
        self.total_time = 0.0
        self.time_to_stop = 0.0
        assert self._stream is not None
        self._stream.rewind()
        self.frame.elapsed = -1.0
        self.frame.duration = 0.0
        self.mapped_ids.clear()
        self.is_hero.clear()

    def _total_time(self) -> float:
        """The elapsed time of the log's last frame; leaves `frame` at that frame."""
        stream = self._stream
        assert stream is not None
        keep = stream.pos
        while (packet := stream.next_packet()) is not None:
            if packet.id == PacketId.FrameStart:
                self._read_frame(packet, check=False)
        stream.pos = keep
        return self.frame.elapsed

    def _read_frame(self, packet: Any, check: bool = True) -> None:
        (record,) = self._stream.records(packet)  # type: ignore[union-attr]
        duration = record.duration
        if check and not (math.isfinite(duration) and (duration >= 0.0 or duration == -1.0)):
            raise ReplayError(
                f"{self._stream.reader.name}: frame {record.id} has duration {duration!r}, "  # type: ignore[union-attr]
                f"expected a finite time >= 0 or -1 (at byte {packet.offset})"
            )
        self.frame.id = record.id
        self.frame.duration = duration
        self.frame.elapsed = record.elapsed

    def _guarded(self, time: float, first: bool) -> None:
        """`_process_to_time`; an error in a record disables the replay (nothing rolls back)."""
        try:
            self._process_to_time(time, first)
        except (RecorderError, LogFormatError):
            self.enabled = False
            if self._stream is not None:
                self._stream.close()
            self.gait.stop()
            raise

    def _process_to_time(self, time: float, first: bool) -> None:
        per = 0.0
        new_time = self.current_time + time
        found = False
        exit_loop = False
        frame = self.frame
        if new_time >= frame.elapsed and new_time < frame.elapsed + frame.duration:
            per = _divide(new_time - frame.elapsed, frame.duration)
            found = True
            exit_loop = True
        stream = self._stream
        assert stream is not None
        helper = self.helper
        while not exit_loop:
            packet = stream.next_packet()
            if packet is None:
                break
            pid = packet.id
            if pid == PacketId.FrameStart:
                self._read_frame(packet)
                if new_time < frame.elapsed + frame.duration:
                    per = _divide(new_time - frame.elapsed, frame.duration)
                    found = True
            elif pid == PacketId.FrameEnd:
                if found:
                    exit_loop = True
            elif pid == PacketId.VisualTime:
                for r in stream.records(packet):
                    helper.set_visual_game_time(r.time)
            elif pid == PacketId.EventAdd:
                self._events_add(stream.records(packet))
            elif pid == PacketId.EventDel:
                for r in stream.records(packet):
                    helper.process_event_del(self._map(r.id))
                    self.mapped_ids.pop(r.id, None)
            elif pid == PacketId.EventParent:
                for r in stream.records(packet):
                    helper.process_event_parent(self._map(r.id), self._map(r.parent))
            elif pid == PacketId.Weather:
                records = stream.records(packet)
                if self.replay_weather:
                    for r in records:
                        helper.process_weather(r)
            elif not found:
                continue
            elif pid == PacketId.Position:
                self._positions(stream.records(packet), first)
            elif pid in _FOUND_FRAME_ONLY:
                call = getattr(helper, _FOUND_FRAME_ONLY[pid])
                records = stream.records(packet)
                if pid == PacketId.WalkerBones:
                    records = _accumulated_bones(records)
                for r in records:
                    r.id = self._map(r.id)
                    if not (self.ignore_hero and self.is_hero.setdefault(r.id, False)):
                        call(r)
            elif pid == PacketId.SceneLight:
                for r in stream.records(packet):
                    helper.process_light_scene(r)
        if self.enabled and found:
            self._update_positions(per, time)
        self.current_time = new_time
        if self.enabled:
            self.gait.advance(new_time, self.mapped_ids)
        if self.current_time >= self.time_to_stop:
            self.stop(keep_actors=True)

    def _map(self, log_id: int) -> int:
        """CARLA's `MappedId[id]`: the world id, inserting 0 for an unmapped log id."""
        return self.mapped_ids.setdefault(log_id, 0)

    def _events_add(self, records: list) -> None:
        old_types = self.version <= 1  # attribute types were renumbered after 0.9.15
        for r in records:
            attributes = [
                ActorAttribute((a.type + 1) & 0xFF if old_types else a.type, a.id, a.value)
                for a in r.attributes
            ]
            description = ActorDescription(r.uid, r.blueprint, attributes)
            code, world_id = self.helper.process_event_add(
                tuple(r.location),
                tuple(r.rotation),
                description,
                r.id,
                self.ignore_hero,
                self.ignore_spectator,
                self.replay_sensors,
            )
            if NOT_CREATED < code < IGNORED:
                self.mapped_ids[r.id] = world_id
                self.is_hero[world_id] = is_hero_description(description)

    def _positions(self, records: list, first: bool) -> None:
        self._prev_pos = self._curr_pos
        mapped = self.mapped_ids
        self._curr_pos = [
            PositionRecord(mapped.get(r.id, r.id), r.location, r.rotation) for r in records
        ]
        if first:
            self._prev_pos = []

    def _update_positions(self, per: float, delta: float) -> None:
        previous = {p.id: i for i, p in enumerate(self._prev_pos)}
        follow = self.mapped_ids.get(self.follow_id, 0) if self.follow_id != 0 else 0
        helper = self.helper
        fast = self.time_factor >= 2.0
        for pos in self._curr_pos:
            if self.ignore_hero and self.is_hero.setdefault(pos.id, False):
                continue
            if self.ignore_spectator and pos.id == 1:
                continue
            i = previous.get(pos.id)
            if i is None:
                helper.process_position(pos, pos, 0.0, delta)
            else:
                helper.process_position(self._prev_pos[i], pos, 0.0 if fast else per, delta)
        if follow != 0:
            helper.set_camera_position(follow, self.follow_location, self.follow_rotation)
