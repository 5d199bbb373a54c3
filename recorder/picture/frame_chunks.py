"""A log's frames for the run page (runner/view): an actor table and chunks of frames.

The page asks for a stretch of CHUNK_FRAMES frames at a time, so a long log costs the
browser only what it shows. A chunk holds, per frame, the rows of the drawn actors (the
vehicles, walkers and props `LogScenes` knows) and of the traffic lights, each row naming
its actor by its slot in the actor table:

- `p_`: a pose per actor (Position): `p_x`, `p_y`, `p_z`, `p_yaw`, `p_speed`;
- `v_`: a control per vehicle (AnimVehicle): `v_steer`, `v_throt`, `v_brake`, `v_hand`,
  `v_gear`;
- `l_`: a vehicle's light bits (VehicleLight): `l_state`;
- `s_`: a traffic light's state (State): `s_state`;
- `w_`: a walker's animation speed (AnimWalker): `w_speed`;

each group with its `_start` and `_slot` sections.

`*_start` has n + 1 entries: frame k's rows are `start[k]` to `start[k + 1]`. Positions are
the log's own numbers (centimetres, degrees, as float32: a UE5 log's doubles rounded), so
the page shows what the log holds. A pose's speed (m/s, float32) is the distance (x, y, z)
between the actor's logged positions in this frame and the frame before, over the time
between the two frames (0 in the actor's first frame): every log has positions, not every
log has Kinematics. recorder/picture/sections.py packs a chunk into bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from recorder.logfile.access import RecordedLog, packed_records
from recorder.logfile.packet_ids import PacketId
from recorder.picture.log_scenes import KIND_TRAFFIC_LIGHT, LogScenes

CHUNK_FRAMES = 100
NO_SLOT = 0xFFFF
# (section prefix, packet, the columns: (section name, record field, dtype))
_TABLES = (
    ("v", PacketId.AnimVehicle, (("steer", "steering", "<f4"), ("throt", "throttle", "<f4"),
                                 ("brake", "brake", "<f4"), ("hand", "handbrake", "u1"),
                                 ("gear", "gear", "<i4"))),
    ("l", PacketId.VehicleLight, (("state", "state", "<u4"),)),
    ("s", PacketId.State, (("state", "state", "i1"),)),
    ("w", PacketId.AnimWalker, (("speed", "speed", "<f4"),)),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ActorEntry:
    """One actor of the table: its log id, CARLA actor type, blueprint, role name, whether it
    is the hero, its box (half extents and centre in its own frame, m, x and y; half height
    and centre height) and, for a traffic light, its place (m); the frames (indexes) of its
    EventAdd and EventDel."""

    id: int
    type: int
    blueprint: str
    role: str
    hero: bool
    extent: tuple[float, float]
    centre: tuple[float, float]
    height: tuple[float, float]
    place: tuple[float, float] | None
    first: int
    last: int

    def as_json(self) -> dict:
        out = {
            "id": self.id,
            "type": self.type,
            "blueprint": self.blueprint,
            "role": self.role,
            "hero": self.hero,
            "extent": list(self.extent),
            "centre": list(self.centre),
            "first": self.first,
            "last": self.last,
        }
        if self.place is not None:
            out["place"] = list(self.place)
        return out


class FrameChunks:
    """The actor table and the frame chunks of one log."""

    def __init__(self, log: RecordedLog, scenes: LogScenes | None = None):
        self.log = log
        self.reader = log.reader
        self.scenes = scenes if scenes is not None else LogScenes(log)
        self.index = self.reader.frame_index
        self.table = self.reader.packet_table
        self._rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        """The number of chunks."""
        return -(-len(self.index) // CHUNK_FRAMES)

    @cached_property
    def actors(self) -> list[ActorEntry]:
        """The drawn actors and the traffic lights, in the order of their EventAdd."""
        scenes = self.scenes
        positions = {f: k for k, f in enumerate(self.index.frame_id.tolist())}
        out, seen = [], set()
        for info in self.log.actors:
            look = scenes.looks.get(info.id)
            place = scenes.lights.get(info.id) if info.type == KIND_TRAFFIC_LIGHT else None
            if info.id in seen or (look is None and place is None):
                continue
            seen.add(info.id)
            role = info.attributes.get("role_name", "")
            out.append(
                ActorEntry(
                    info.id,
                    info.type,
                    info.blueprint,
                    role,
                    look.hero if look is not None else False,
                    look.extent if look is not None else (0.0, 0.0),
                    look.centre if look is not None else (0.0, 0.0),
                    look.height if look is not None else (0.0, 0.0),
                    place,
                    positions.get(info.first_frame, 0),
                    positions.get(info.last_frame, len(self.index) - 1),
                )
            )
        return out

    @cached_property
    def _slot_lookup(self) -> tuple[np.ndarray, np.ndarray]:
        ids = np.array([a.id for a in self.actors], np.int64)
        order = np.argsort(ids, kind="stable")
        return ids[order], order.astype(np.int64)

    def slots(self, ids: np.ndarray) -> np.ndarray:
        """The table slot of each actor id (NO_SLOT for an id not in the table)."""
        known, slot_of = self._slot_lookup
        ids = np.asarray(ids, np.int64)
        if not len(known):
            return np.full(len(ids), NO_SLOT, np.int64)
        at = np.minimum(np.searchsorted(known, ids), len(known) - 1)
        return np.where(known[at] == ids, slot_of[at], NO_SLOT)

    def _rows_of(self, pid: PacketId) -> tuple[np.ndarray, np.ndarray]:
        """A packet kind's table rows and each row's frame (index), in file order."""
        if int(pid) not in self._rows:
            table, index = self.table, self.index
            rows = np.flatnonzero(table.id == int(pid))
            frames = np.searchsorted(index.offset, table.offset[rows], side="right") - 1
            keep = frames >= 0  # a packet before the first FrameStart belongs to no frame
            self._rows[int(pid)] = (rows[keep], frames[keep])
        return self._rows[int(pid)]

    def records(self, pid: PacketId, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """The records of kind `pid` (a fixed-size packet) in frames lo..hi-1 (indexes) and
        each record's frame."""
        rows, frames = self._rows_of(pid)
        a, b = np.searchsorted(frames, [lo, hi])
        records, counts = packed_records(self.reader, int(pid), rows[a:b])
        return records, np.repeat(frames[a:b], counts)

    def chunk(self, k: int) -> dict[str, np.ndarray]:
        """Chunk `k`: frames k * CHUNK_FRAMES up to the next chunk, as the module says."""
        if not 0 <= k < len(self):
            raise IndexError(f"chunk {k} of {len(self)}")
        lo = k * CHUNK_FRAMES
        hi = min(lo + CHUNK_FRAMES, len(self.index))
        out = self._poses(lo, hi)
        for prefix, pid, columns in _TABLES:
            records, frames = self.records(pid, lo, hi)
            slots = self.slots(records["id"])
            keep = slots != NO_SLOT
            out[f"{prefix}_start"] = _starts(frames[keep] - lo, hi - lo)
            out[f"{prefix}_slot"] = slots[keep].astype("<u2")
            for name, field, dtype in columns:
                out[f"{prefix}_{name}"] = records[field][keep].astype(dtype)
        return out

    def _poses(self, lo: int, hi: int) -> dict[str, np.ndarray]:
        before = max(lo - 1, 0)  # the frame before, for the first frame's speeds
        records, frames = self.records(PacketId.Position, before, hi)
        slots = self.slots(records["id"])
        keep = self._drawn[np.minimum(slots, len(self._drawn) - 1)] & (slots != NO_SLOT)
        records, frames, slots = records[keep], frames[keep], slots[keep]
        location = records["location"].astype(np.float64) / 100.0
        speed = np.zeros(len(records))
        order = np.lexsort((frames, slots))
        same = (slots[order][1:] == slots[order][:-1]) & (
            frames[order][1:] == frames[order][:-1] + 1
        )
        now, then = order[1:][same], order[:-1][same]
        dt = self.index.elapsed[frames[now]] - self.index.elapsed[frames[then]]
        step = location[now] - location[then]
        dist = np.sqrt(np.sum(step * step, axis=1))
        speed[now] = np.where(dt > 0.0, dist / np.where(dt > 0.0, dt, 1.0), 0.0)
        mine = frames >= lo
        return {
            "p_start": _starts(frames[mine] - lo, hi - lo),
            "p_slot": slots[mine].astype("<u2"),
            "p_x": records["location"][mine, 0].astype("<f4"),
            "p_y": records["location"][mine, 1].astype("<f4"),
            "p_z": records["location"][mine, 2].astype("<f4"),
            "p_yaw": records["rotation"][mine, 2].astype("<f4"),
            "p_speed": speed[mine].astype("<f4"),
        }

    @cached_property
    def _drawn(self) -> np.ndarray:
        """Per slot: whether the actor is drawn as a box (not a traffic light)."""
        return np.array([a.place is None for a in self.actors] or [False], bool)

    def times(self) -> dict[str, np.ndarray]:
        """Every frame's elapsed time (s) and log frame id."""
        return {
            "elapsed": self.index.elapsed.astype("<f8"),
            "frame": self.index.frame_id.astype("<f8"),
        }


def _starts(frames: np.ndarray, n: int) -> np.ndarray:
    """Row starts of n frames from each row's frame (rows in frame order): n + 1 entries."""
    return np.searchsorted(frames, np.arange(n + 1), side="left").astype("<u4")
