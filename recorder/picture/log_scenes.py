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

from recorder.logfile.access import RecordedLog, holding_rows, packed_records
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import RawPacket
from world.actors.body_models import body_of
from world.errors import BlueprintError

KIND_VEHICLE, KIND_WALKER, KIND_TRAFFIC_LIGHT = 1, 2, 3
# Boxes (half extents, m) for blueprints lockstep's catalogue does not know.
_FALLBACK_EXTENT = {KIND_VEHICLE: (2.4, 1.0), KIND_WALKER: (0.35, 0.35)}
_PROP_EXTENT = (0.5, 0.5)
# Half height and box centre height (m) for them: a vehicle's origin is on the ground, a
# walker's at its middle, as CARLA's.
_FALLBACK_HEIGHT = {KIND_VEHICLE: (0.75, 0.75), KIND_WALKER: (0.9, 0.0)}
_PROP_HEIGHT = (0.5, 0.5)
Box = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]
NOT_AN_ACTOR = 0xFFFFFFFF
TIME_SLACK = 1e-6  # seconds


@dataclass(frozen=True, slots=True)
class ActorLook:
    """How an actor is drawn: kind (CARLA's actor type), hero flag, box half extents and
    box centre in the actor's frame (x forward, y right; m), and the box's half height and
    centre height (m, for views in 3-D)."""

    kind: int
    hero: bool
    extent: tuple[float, float]
    centre: tuple[float, float]
    height: tuple[float, float]


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
        """The packets of a kind that hold records (recorder.logfile.access.holding_rows)."""
        table = self.table
        return [
            RawPacket(int(table.offset[r]), int(table.id[r]), int(table.offset[r]) + 5,
                      int(table.size[r]))
            for r in holding_rows(self.reader, [int(packet_id)]).tolist()
        ]  # fmt: skip

    def _read_actors(self) -> None:
        added = []  # (frame index, EventAdd record) of the drawn actors
        for packet in self._rows(PacketId.EventAdd):
            frame = int(np.searchsorted(self.index.offset, packet.offset, side="right")) - 1
            for r in self.reader.records(packet):
                if r.type == KIND_TRAFFIC_LIGHT:
                    self.lights[r.id] = (r.location[0] / 100.0, r.location[1] / 100.0)
                elif r.type in (KIND_VEHICLE, KIND_WALKER) or r.blueprint.startswith("static."):
                    added.append((frame, r))  # not sensors, the spectator, signs
        boxes = self._first_boxes(added)
        for _, r in added:
            attrs = {a.id: a.value for a in r.attributes}
            extent, centre, height = boxes.get(r.id) or _catalogue_box(r.type, r.blueprint)
            hero = attrs.get("role_name") == "hero"
            self.looks[r.id] = ActorLook(r.type, hero, extent, centre, height)

    def _first_boxes(self, added: list) -> dict[int, Box]:
        """Each actor's first logged box. A log with additional data holds a box per actor
        per frame, and an actor's first is in the frame of its EventAdd: the BoundingBox
        records of those frames are decoded (numpy, at once), every frame's when an actor
        has none there."""
        table, index = self.table, self.index
        rows = np.flatnonzero(table.id == int(PacketId.BoundingBox))
        frames = np.searchsorted(index.offset, table.offset[rows], side="right") - 1
        near = rows[np.isin(frames, [f for f, _ in added])]
        records, _ = packed_records(self.reader, int(PacketId.BoundingBox), near)
        if len(rows) and not np.isin([r.id for _, r in added], records["id"]).all():
            records, _ = packed_records(self.reader, int(PacketId.BoundingBox), rows)
        ids, first = np.unique(records["id"], return_index=True)
        extension = records["extension"][first].astype(np.float64) / 100.0
        origin = records["origin"][first].astype(np.float64) / 100.0
        return {
            i: ((float(e[0]), float(e[1])), (float(o[0]), float(o[1])), (float(e[2]), float(o[2])))
            for i, e, o in zip(ids.tolist(), extension, origin, strict=True)
        }

    def _collisions(self) -> tuple[np.ndarray, np.ndarray]:
        """Each collision record's frame position (index into the frames) and its two ids."""
        rows = holding_rows(self.reader, [int(PacketId.Collision)])
        records, counts = packed_records(self.reader, int(PacketId.Collision), rows)
        where = np.searchsorted(self.index.offset, self.table.offset[rows], side="right") - 1
        pairs = np.stack([records["id1"], records["id2"]], axis=1).astype(np.int64)
        return np.repeat(where, counts).astype(np.int64), pairs.reshape(-1, 2)

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


def _catalogue_box(kind: int, blueprint: str) -> Box:
    """The box of a blueprint from lockstep's catalogue, or a kind's usual size."""
    try:
        body = body_of(blueprint)
    except BlueprintError:
        body = None
    if body is not None and body.extent[0] > 0.0:
        return (
            (float(body.extent[0]), float(body.extent[1])),
            (float(body.box_loc[0]), float(body.box_loc[1])),
            (float(body.extent[2]), float(body.box_loc[2])),
        )
    height = _FALLBACK_HEIGHT.get(kind, _PROP_HEIGHT)
    return _FALLBACK_EXTENT.get(kind, _PROP_EXTENT), (0.0, 0.0), height
