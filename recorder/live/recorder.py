"""Recorder: a live world written to a CARLA log, one frame per tick, streamed to disk.

    rec = Recorder()
    rec.start(world, "run.log", "town_small", additional_data=True)
    for _ in range(600):
        rec.tick(world)          # world.tick(), then record(world)
    rec.stop()

`start` writes the header and takes every actor of the world as CARLA's
AddExistingActors does; each `record(world)` (after `world.tick()`) writes one frame with
the packets of `ACarlaRecorder::Write` in its order: the events found by comparing the
world with the last frame (live/events.py), the collisions its collision sensors heard
(live/collisions.py), and every actor's state packed from the world's tables
(live/records.py), laid out in one buffer. Each frame goes to the OS in one write when it
ends, so a run that dies leaves a log readable up to its last whole frame
(`open_log(path, lenient=True)`). The world never
imports this module: the recorder reads the world, through its public calls and
`World.state_tables()`.
"""

from __future__ import annotations

import struct
import time
from pathlib import Path
from typing import Any

import numpy as np

from recorder.errors import RecorderError
from recorder.live.collisions import COLLISION_SENSOR, CollisionRecorder
from recorder.live.events import (
    FrameEvents,
    WorldEvents,
    physics_control_record,
    traffic_light_time_record,
)
from recorder.live.records import CHANGED, KIND_SENSOR, POSED, WRITTEN, FramePacker
from recorder.logfile.debug_sidecar import SidecarWriter
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import (
    CODECS,
    AnimBikerRecord,
    AnimVehicleWheelsRecord,
    Bone,
    SceneLightRecord,
    WalkerBonesRecord,
    WheelInfo,
)
from recorder.logfile.writer import OMITTED_WHEN_EMPTY, LogWriter

__all__ = ["RECORDER_VERSION", "Recorder"]

RECORDER_VERSION = 1  # what CARLA's Start writes (Info.Version = 1)
_HEAD = struct.Struct("<BI")  # a packet's id byte and size

# The runs of ACarlaRecorder::Write's order (recorder.logfile.writer) between the per-tick packets
# the FramePacker writes itself: the events, then the records the simulator reports, then
# (additional data) the boxes after Kinematics and the controls after PlatformTime.
_EVENT_PACKETS = (
    PacketId.EventAdd,
    PacketId.EventDel,
    PacketId.EventParent,
    PacketId.Collision,
    PacketId.VehicleDoor,
)
_EXTRA_PACKETS = (
    PacketId.SceneLight,
    PacketId.AnimVehicleWheels,
    PacketId.AnimBiker,
    PacketId.Weather,
)
_BOX_PACKETS = (PacketId.BoundingBox, PacketId.TriggerVolume)
_CONTROL_PACKETS = (PacketId.PhysicsControl, PacketId.TrafficLightTime)


def _laid_out(packets: tuple[PacketId, ...], records: tuple) -> bytes:
    """The packets (id byte, size, body) of these records, as CARLA writes them: those
    CARLA omits when empty left out, the others with a count of 0."""
    parts = []
    for pid, rows in zip(packets, records, strict=True):
        if len(rows) == 0 and pid in OMITTED_WHEN_EMPTY:
            continue
        body = CODECS[pid].pack_body(rows)
        parts.append(_HEAD.pack(pid, len(body)))
        parts.append(body)
    return b"".join(parts)


_NO_EVENTS, _NO_EXTRA, _NO_BOXES, _NO_CONTROLS = (
    _laid_out(group, ((),) * len(group))  # the runs of a frame with none of these records
    for group in (_EVENT_PACKETS, _EXTRA_PACKETS, _BOX_PACKETS, _CONTROL_PACKETS)
)


def _blocks(events: bytes, extra: bytes, boxes: bytes, controls: bytes) -> tuple:
    """The four runs of laid-out packets as FramePacker.pack takes them: one uint8 array and
    where the last three start."""
    cuts = np.cumsum([len(events), len(extra), len(boxes)]).tolist()
    return (np.frombuffer(events + extra + boxes + controls, np.uint8), *cuts)


_QUIET = _blocks(_NO_EVENTS, _NO_EXTRA, _NO_BOXES, _NO_CONTROLS)  # a frame with no event


def _actor_id(actor: Any) -> int:
    return int(actor) if isinstance(actor, int | np.integer) else int(actor.id)


class Recorder:
    """CARLA's ACarlaRecorder for a lockstep world: start, tick or record, stop, bytes."""

    def __init__(self) -> None:
        self._writer: LogWriter | None = None
        self._path: Path | None = None
        self._world: Any = None
        self._events: WorldEvents | None = None
        self._collisions = CollisionRecorder()
        self._pending: FrameEvents | None = None  # events found before the next frame
        self._extra: dict[PacketId, list] = {}
        self._bytes: bytes | None = None
        self._started_at = 0.0
        self._frames = 0
        self._traffic_lights: Any = None
        self._packer: FramePacker | None = None
        self._sidecar: SidecarWriter | None = None
        self.additional_data = False

    # -- the recording's life ---------------------------------------------------------------

    def start(
        self,
        world: Any,
        path: str | Path | None,
        map_name: str,
        additional_data: bool = False,
        *,
        date: int | None = None,
    ) -> str:
        """Starts recording `world` to `path` (None: in memory); returns the path.

        Writes the header (version 1, CARLA_RECORDER, `date` or now, `map_name`) and takes
        every actor of the world for the first frame. A recording in progress is stopped.
        """
        if self._writer is not None:
            self.stop()
        from world.traffic.signals.install import traffic_light_views

        self._world = world
        self.additional_data = bool(additional_data)
        self._path = None if path is None else Path(path)
        stamp = int(time.time()) if date is None else int(date)
        try:
            self._writer = LogWriter(
                self._path,
                map_name=map_name,
                date=stamp,
                version=RECORDER_VERSION,
                additional_data=self.additional_data,
            )
        except OSError as exc:
            raise RecorderError(f"{path}: cannot open the log for writing: {exc}") from None
        self._writer.flush()
        self._bytes = None
        self._frames = 0
        self._collisions = CollisionRecorder()
        self._extra = {}
        self._events = WorldEvents(world, self.additional_data)
        self._pending = self._events.existing()
        self._watch_sensors(self._pending)
        self._traffic_lights = traffic_light_views(world) if self._has_traffic(world) else None
        self._packer = FramePacker(self._traffic_lights)
        self._watch_drawings(world)
        self._started_at = time.monotonic()
        return "" if path is None else str(path)

    def tick(self, world: Any) -> int:
        """`world.tick()` then `record(world)`; returns the world's new frame."""
        frame = world.tick()
        self.record(world)
        return frame

    def record(self, world: Any) -> int:
        """Writes the frame of the world's last tick; returns the log's frame number.

        A frame with nothing to find in Python (no event queued, no collision for a
        collision sensor to hear, the weather untouched) is packed and written by one
        compiled call that
        also compares the world with the last frame; only when that finds a change, or
        there is something else, are the events found and packed in Python, and the frame
        packed again."""
        writer, events, packer = self._writer, self._events, self._packer
        if writer is None or events is None or packer is None:
            raise RecorderError("record: the recorder is not started (call start first)")
        if world is not self._world:
            raise RecorderError("record: this recorder records another world")
        stamp = world.clock()
        delta = stamp.delta_seconds if self._frames > 0 else 0.0
        platform = time.monotonic() - self._started_at if self.additional_data else 0.0
        times = (delta, stamp.elapsed_seconds, platform)
        tables = world.state_tables()
        answer = CHANGED
        if (
            self._pending is None
            and not self._extra
            and not (self._collisions.watching and world.collision_events())
            and world.weather_sets == events.weather_sets
        ):
            answer, end, bones_at = packer.pack(
                writer, tables, times, self.additional_data, True, _QUIET
            )
        if answer == CHANGED:
            answer, end, bones_at = self._pack_with_events(world, times)
        if answer == POSED:
            end = self._put_walker_bones(world, tables, bones_at)
        if answer != WRITTEN:
            writer.write_frame_in(delta, end)
        self._frames += 1  # the log's frame ids count the frames from 1
        if self._sidecar is not None and self._sidecar.pending:
            self._sidecar.frame_recorded(self._frames, writer.elapsed, world)
        return self._frames

    def stop(self) -> None:
        """Ends the recording and closes the file (the last frame keeps duration -1)."""
        if self._writer is None:
            return
        self._unwatch_drawings()
        if self._path is None:
            self._bytes = self._writer.getvalue()
        self._writer.close()
        if self._path is not None:
            self._bytes = None
        self._writer = None
        self._events = None
        self._world = None

    def is_enabled(self) -> bool:
        return self._writer is not None

    def bytes(self) -> bytes:
        """The log so far (or, after stop, the whole log)."""
        if self._writer is not None:
            if self._path is None:
                return self._writer.getvalue()
            self._writer.flush()
        if self._path is None:
            if self._bytes is None:
                raise RecorderError("bytes: nothing has been recorded")
            return self._bytes
        return self._path.read_bytes()

    # -- records CARLA's simulator reports and lockstep's world does not --------------------

    def add_physics_control(self, vehicle: Any) -> None:
        """A vehicle's physics control in the next frame (additional data only, as CARLA),
        after `apply_physics_control`."""
        if self.additional_data:
            record = physics_control_record(vehicle.id, vehicle.get_physics_control())
            self._queue(PacketId.PhysicsControl, record)

    def add_traffic_light_time(self, light: Any) -> None:
        """A light's green, yellow and red times in the next frame (additional data only),
        after its times change."""
        if self.additional_data:
            self._queue(PacketId.TrafficLightTime, traffic_light_time_record(light))

    def add_light_scene(
        self,
        light_id: int,
        intensity: float,
        color: tuple[float, float, float, float],
        on: bool,
        light_type: int = 0,
    ) -> None:
        """A scene light's change (CARLA's AddEventLightSceneChanged) in the next frame."""
        self._queue(
            PacketId.SceneLight,
            SceneLightRecord(int(light_id), intensity, tuple(color), bool(on), int(light_type)),
        )

    def add_anim_wheels(self, vehicle: Any, wheels: list[tuple[int, float, float]]) -> None:
        """A vehicle's wheels (location, steer angle, rotation, degrees) in the next frame."""
        record = AnimVehicleWheelsRecord(
            _actor_id(vehicle), [WheelInfo(int(w[0]), w[1], w[2]) for w in wheels]
        )
        self._queue(PacketId.AnimVehicleWheels, record)

    def add_anim_biker(self, vehicle: Any, forward_speed: float, engine_rotation: float) -> None:
        """A two-wheeler's forward speed (cm/s) and engine rotation (of its maximum)."""
        self._queue(
            PacketId.AnimBiker, AnimBikerRecord(_actor_id(vehicle), forward_speed, engine_rotation)
        )

    def _queue(self, packet_id: PacketId, record: Any) -> None:
        if self._writer is None:
            raise RecorderError(f"{packet_id.name}: the recorder is not started")
        self._extra.setdefault(packet_id, []).append(record)

    # -- one frame ----------------------------------------------------------------------------

    def _pack_with_events(self, world: Any, times: tuple) -> tuple[int, int, int]:
        """The frame with its events: found by comparing the world with the last frame, the
        collisions the sensors heard, the records queued, packed in Python; then the frame
        packed around them."""
        writer, events, packer = self._writer, self._events, self._packer
        assert writer is not None and events is not None and packer is not None
        ev = events.changes(self._pending or FrameEvents())
        self._pending = None
        self._watch_sensors(ev)
        collisions = self._collisions.collect(world, events.heroes)
        if len(ev.gone_rows):
            self._collisions.release(ev.gone_rows + 1)
        extra, self._extra = self._extra, {}
        laid_out, reported, boxes, controls = _NO_EVENTS, _NO_EXTRA, _NO_BOXES, _NO_CONTROLS
        if ev.adds or len(ev.dels) or len(ev.parents) or len(collisions) or len(ev.doors):
            laid_out = _laid_out(
                _EVENT_PACKETS, (ev.adds, ev.dels, ev.parents, collisions, ev.doors)
            )
        if extra or ev.weather:
            reported = _laid_out(
                _EXTRA_PACKETS,
                (*(extra.get(pid, ()) for pid in _EXTRA_PACKETS[:-1]), ev.weather),
            )
        if self.additional_data:
            if ev.boxes or ev.trigger_volumes:
                boxes = _laid_out(_BOX_PACKETS, (ev.boxes, ev.trigger_volumes))
            if ev.physics_controls or ev.light_times or extra:
                controls = _laid_out(
                    _CONTROL_PACKETS,
                    (
                        ev.physics_controls + extra.get(PacketId.PhysicsControl, []),
                        ev.light_times + extra.get(PacketId.TrafficLightTime, []),
                    ),
                )
        return packer.pack(
            writer,
            world.state_tables(),
            times,
            self.additional_data,
            False,
            _blocks(laid_out, reported, boxes, controls),
        )

    def _put_walker_bones(self, world: Any, tables: Any, at: int) -> int:
        """WalkerBones with every live walker's posed bones at `at` of the frame buffer, in
        place of the bare one; returns the body's end."""
        writer = self._writer
        assert writer is not None
        bones = self._walker_bones(world, tables.actors, tables.walkers)
        body = CODECS[PacketId.WalkerBones].pack_body(bones)
        raw = _HEAD.pack(PacketId.WalkerBones, len(body)) + body
        end = at + len(raw)
        writer.grow_frame(end)
        writer.frame_buffer[at:end] = np.frombuffer(raw, np.uint8)
        return end

    def _walker_bones(self, world: Any, actors: Any, walkers: Any) -> list[WalkerBonesRecord]:
        """WalkerBones when some walker has bones posed (`set_bones`): each live walker's
        bones (name, pose relative to the walker; cm, roll-pitch-yaw), in id order. The
        bones are per-walker data the world keeps outside its tables, read walker by
        walker."""
        owners = walkers.actor[: walkers.n]
        out = []
        for row in owners[actors.alive[owners]].tolist():
            walker = world.get_actor(row + 1)
            bones = [(b.bone_name, b.relative) for b in walker.get_bones().bone_transforms]
            out.append(WalkerBonesRecord(row + 1, [_bone(n, t) for n, t in bones]))
        return out

    def _watch_drawings(self, world: Any) -> None:
        """Keeps the world's debug drawings beside a log on disk
        (recorder/logfile/debug_sidecar.py)."""
        debug = getattr(world, "debug", None)
        if self._path is None or debug is None:
            return
        self._sidecar = SidecarWriter(self._path)
        debug.listeners.append(self._sidecar)

    def _unwatch_drawings(self) -> None:
        sidecar, self._sidecar = self._sidecar, None
        if sidecar is None:
            return
        listeners = self._world.debug.listeners
        if sidecar in listeners:
            listeners.remove(sidecar)
        sidecar.close()

    def _watch_sensors(self, ev: FrameEvents) -> None:
        for add in ev.adds:
            if add.type == KIND_SENSOR and add.blueprint == COLLISION_SENSOR:
                self._collisions.watch(add.id)

    @staticmethod
    def _has_traffic(world: Any) -> bool:
        from world.errors import WorldError
        from world.traffic.signals.install import traffic_light_views

        try:
            traffic_light_views(world)
        except WorldError:
            return False
        return True


def _bone(name: str, transform: Any) -> Bone:
    """A bone's relative pose as CARLA writes it: cm and (roll, pitch, yaw)."""
    from recorder.logfile.rotation import recorder_rotation

    loc, rot = transform.location, transform.rotation
    r = recorder_rotation(np.array([[rot.pitch, rot.yaw, rot.roll]]))[0]
    location = np.array([loc.x, loc.y, loc.z], dtype=np.float64) * 100.0
    return Bone(
        name,
        tuple(float(v) for v in location.astype(np.float32)),
        (float(r[0]), float(r[1]), float(r[2])),
    )
