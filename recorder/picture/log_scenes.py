"""What a picture needs of a log, read a frame at a time: who is where, the lights' states.

The actors' kinds, blueprints, hero flags and boxes and the traffic lights' places come
from the EventAdd and BoundingBox packets, and the collisions from the Collision packets,
found with the reader's packet table (numpy) and decoded once. A `Scene` (the poses and
the light states of one frame) is decoded from that frame's packets only when a picture
of it is drawn, so a long log costs memory only for the frames drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recorder.logfile.access import RecordedLog
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import RawPacket
from world.actors.body_models import body_of
from world.errors import BlueprintError

KIND_VEHICLE, KIND_WALKER, KIND_TRAFFIC_LIGHT = 1, 2, 3
# Boxes (half extents, m) for blueprints lockstep's catalogue does not know.
_FALLBACK_EXTENT = {KIND_VEHICLE: (2.4, 1.0), KIND_WALKER: (0.35, 0.35)}
_PROP_EXTENT = (0.5, 0.5)
NOT_AN_ACTOR = 0xFFFFFFFF
TIME_SLACK = 1e-6  # seconds


@dataclass(frozen=True, slots=True)
class ActorLook:
    """How an actor is drawn: kind (CARLA's actor type), hero flag, box half extents and
    box centre in the actor's frame (x forward, y right; m)."""

    kind: int
    hero: bool
    extent: tuple[float, float]
    centre: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Scene:
    """One frame: id, elapsed (s), actor ids, positions (N, 2; m), yaw (N,; degrees), and
    the traffic lights' ids and states (CARLA's TrafficLightState numbers)."""

    frame: int
    elapsed: float
    ids: np.ndarray
    xy: np.ndarray
    yaw: np.ndarray
    light_ids: np.ndarray
    light_states: np.ndarray


class LogScenes:
    """The frames of a log, for pictures."""

    def __init__(self, log: RecordedLog):
        self.reader = log.reader
        self.index = self.reader.frame_index
        self.table = self.reader.packet_table
        self.looks: dict[int, ActorLook] = {}
        self.lights: dict[int, tuple[float, float]] = {}
        self._read_actors()
        self.collision_frame, self.collision_ids = self._collisions()

    def __len__(self) -> int:
        return len(self.index)

    def _rows(self, packet_id: PacketId) -> list[RawPacket]:
        table = self.table
        rows = np.flatnonzero(table.id == int(packet_id)).tolist()
        return [
            RawPacket(int(table.offset[r]), int(table.id[r]), int(table.offset[r]) + 5,
                      int(table.size[r]))
            for r in rows
        ]  # fmt: skip

    def _read_actors(self) -> None:
        boxes: dict[int, tuple[tuple[float, float], tuple[float, float]]] = {}
        for packet in self._rows(PacketId.BoundingBox):
            for r in self.reader.records(packet):
                boxes.setdefault(
                    r.id,
                    ((r.extension[0] / 100.0, r.extension[1] / 100.0),
                     (r.origin[0] / 100.0, r.origin[1] / 100.0)),
                )  # fmt: skip
        for packet in self._rows(PacketId.EventAdd):
            for r in self.reader.records(packet):
                if r.type == KIND_TRAFFIC_LIGHT:
                    self.lights[r.id] = (r.location[0] / 100.0, r.location[1] / 100.0)
                    continue
                if r.type not in (KIND_VEHICLE, KIND_WALKER) and not r.blueprint.startswith(
                    "static."
                ):
                    continue  # sensors, the spectator, signs: nothing to see from above
                attrs = {a.id: a.value for a in r.attributes}
                extent, centre = boxes.get(r.id) or _catalogue_box(r.type, r.blueprint)
                hero = attrs.get("role_name") == "hero"
                self.looks[r.id] = ActorLook(r.type, hero, extent, centre)

    def _collisions(self) -> tuple[np.ndarray, np.ndarray]:
        """Each collision record's frame position (index into the frames) and its two ids."""
        where, pairs = [], []
        for packet in self._rows(PacketId.Collision):
            records = self.reader.array(packet)
            if not len(records):
                continue
            pos = int(np.searchsorted(self.index.offset, packet.offset, side="right")) - 1
            where.extend([pos] * len(records))
            pairs.append(np.stack([records["id1"], records["id2"]], axis=1).astype(np.int64))
        if not pairs:
            return np.zeros(0, np.int64), np.zeros((0, 2), np.int64)
        return np.array(where, np.int64), np.concatenate(pairs)

    def position_at(self, t: float) -> int:
        """The frame (index) showing time `t`: the last one starting at or before it, within
        TIME_SLACK (a log's elapsed times are running sums of float deltas: the frame of
        1.0 s may say 1.0000000000000002)."""
        return max(int(np.searchsorted(self.index.elapsed, t + TIME_SLACK, side="right")) - 1, 0)

    def scene(self, pos: int) -> Scene:
        """The poses and light states of frame `pos` (an index into the frames)."""
        table, index = self.table, self.index
        lo = int(np.searchsorted(table.offset, index.offset[pos], side="left"))
        hi = int(np.searchsorted(table.offset, index.end[pos], side="left"))
        ids, xy, yaw, light_ids, light_states = [], [], [], [], []
        kinds = table.id[lo:hi]
        for r in (np.flatnonzero(kinds == PacketId.Position) + lo).tolist():
            a = self.reader.array(self._packet(r))
            ids.append(a["id"].astype(np.int64))
            xy.append(a["location"][:, :2].astype(np.float64) / 100.0)
            yaw.append(a["rotation"][:, 2].astype(np.float64))
        for r in (np.flatnonzero(kinds == PacketId.State) + lo).tolist():
            a = self.reader.array(self._packet(r))
            light_ids.append(a["id"].astype(np.int64))
            light_states.append(a["state"].astype(np.int64))
        return Scene(
            int(index.frame_id[pos]),
            float(index.elapsed[pos]),
            _joined(ids, np.int64, (0,)),
            _joined(xy, np.float64, (0, 2)),
            _joined(yaw, np.float64, (0,)),
            _joined(light_ids, np.int64, (0,)),
            _joined(light_states, np.int64, (0,)),
        )

    def _packet(self, row: int) -> RawPacket:
        offset = int(self.table.offset[row])
        return RawPacket(offset, int(self.table.id[row]), offset + 5, int(self.table.size[row]))


def _joined(parts: list[np.ndarray], dtype, empty_shape: tuple[int, ...]) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(empty_shape, dtype)


def _catalogue_box(kind: int, blueprint: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The box of a blueprint from lockstep's catalogue, or a kind's usual size."""
    try:
        body = body_of(blueprint)
    except BlueprintError:
        body = None
    if body is not None and body.extent[0] > 0.0:
        return (float(body.extent[0]), float(body.extent[1])), (
            float(body.box_loc[0]),
            float(body.box_loc[1]),
        )
    return _FALLBACK_EXTENT.get(kind, _PROP_EXTENT), (0.0, 0.0)
