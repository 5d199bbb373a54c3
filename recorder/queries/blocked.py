"""CARLA's blocked-actors query (`QueryBlocked`, `client.show_recorder_actors_blocked`).

An actor is stopped while its Position stays closer than `min_distance` (centimetres, as
the positions) to where it last moved; each stopped record adds its frame's duration.
When it moves again after at least `min_time` seconds, a row is kept; so is every actor
still stopped that long at the end. Rows print longest first. CARLA's quirks are kept:

* the distance is UE4's float `FVector::Dist` (`sqrtf` of a float sum of squares); in a
  CARLA 0.10 (UE5) log, whose positions are doubles, the same sum in double;
* the last frame's duration of -1 is added too;
* an EventDel forgets the actor of the last EventAdd record read, not the deleted id;
* equal durations keep the order rows were made (a `multimap` with `greater`), and the
  actors still stopped at the end come in their `std::unordered_map`'s iteration order
  (libc++ by default, `order="libstdc++"` for GCC's library).

Each Position packet updates all its actors at once with numpy (an actor listed twice
in one packet falls back to CARLA's record-by-record loop).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator

import numpy as np

from recorder.errors import RecorderError, quoted
from recorder.logfile.cformat import c_fixed, pad_right
from recorder.logfile.hash_order import LIBCXX, UnorderedTable
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.position import POSITION
from recorder.logfile.packets.ue5 import POSITION_UE5
from recorder.logfile.reader import LogReader
from recorder.queries.common import Chunk, Source, answer, c_text, check_library, open_query

HEADER = f"{'Time':>8} {'Id':>6} {'Actor':<35} {'Duration':>10}\n"
_ADD, _DEL, _POSITION = int(PacketId.EventAdd), int(PacketId.EventDel), int(PacketId.Position)
_LAYOUTS = {"ue4": POSITION, "ue5": POSITION_UE5}


def _row(time: float, actor: int, name: str, duration: float) -> str:
    return f"{c_fixed(time, 0, 8)} {actor:>6} {pad_right(name, 35)} {c_fixed(duration, 0, 10)}\n"


def _distance(anchor: np.ndarray, points: np.ndarray) -> np.ndarray:
    """`FVector::Dist(anchor, p)` for each row of points (anchor one row or one per point):
    `sqrt((dx*dx + dy*dy) + dz*dz)` in the arrays' type, float32 for UE4 (`sqrtf`), float64
    for UE5. Compare it with a numpy float64 so the comparison is made in double, as C++
    promotes it."""
    d = points - anchor
    d *= d
    total = d[:, 0] + d[:, 1]
    total += d[:, 2]
    return np.sqrt(total, out=total)


def query_blocked(
    source: Source,
    min_time: float = 30,
    min_distance: float = 100,
    *,
    order: str = LIBCXX,
    local_time: bool = False,
    lenient: bool = True,
) -> str:
    """The blocked query's text: `min_time` in seconds, `min_distance` in centimetres (each a
    finite number >= 0). `lenient=False` makes a log that ends inside a frame an error (see
    queries/common.py)."""
    return answer(
        blocked_pieces(
            source, min_time, min_distance, order=order, local_time=local_time, lenient=lenient
        )
    )


def check_threshold(value: float, what: str) -> float:
    """A blocked-query threshold: a finite number >= 0 (NaN would compare false everywhere,
    a negative time would count CARLA's last-frame -1 as a stop)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise RecorderError(f"blocked: {what} must be a number, not {quoted(value)}")
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise RecorderError(f"blocked: {what} must be a finite number >= 0, not {number!r}")
    return number


def blocked_pieces(
    source: Source,
    min_time: float = 30,
    min_distance: float = 100,
    *,
    order: str = LIBCXX,
    local_time: bool = False,
    lenient: bool = True,
) -> Iterator[str]:
    """The blocked query's text in pieces (NotARecorderError for a file that is not a log)."""
    check_library(order)
    min_time = check_threshold(min_time, "the minimum time (seconds)")
    min_distance = check_threshold(min_distance, "the minimum distance (centimetres)")
    text, log = open_query(source, local_time, lenient)
    yield text + HEADER
    reader = log.reader
    layout = _LAYOUTS[reader.variant]
    coordinate = layout.dtype["location"].base
    actors = _Actors(order, np.float64(min_time), np.float64(min_distance), coordinate)
    replay = _Replay(reader, actors, layout.dtype)
    for chunk in log.chunks():
        picked = np.flatnonzero(np.isin(chunk.ids, (_ADD, _DEL, _POSITION)))
        picked = picked[chunk.counts(picked) != 0]
        with np.errstate(over="ignore", invalid="ignore"):  # inf and nan, as C++ gives them
            replay.chunk(chunk, picked)
    rows = actors.rows + actors.still_stopped()
    rows.sort(key=lambda r: -r[0])  # stable: equal durations keep their order
    yield "".join([*(row for _, row in rows), log.closing_text()])


class _Replay:
    """The query's loop over the EventAdd, EventDel and Position packets that hold records
    (Position records of this dtype), a chunk at a time."""

    def __init__(self, reader: LogReader, actors: _Actors, dtype: np.dtype):
        self.reader = reader
        self.actors = actors
        self.dtype = dtype
        self.last_added = 0

    def chunk(self, chunk: Chunk, picked: np.ndarray) -> None:
        reader, actors, dtype = self.reader, self.actors, self.dtype
        record_size = dtype.itemsize
        ids = chunk.ids[picked]
        positions = picked[ids == _POSITION]
        bad = np.flatnonzero(chunk.size[positions] != 2 + record_size * chunk.counts(positions))
        if len(bad):
            reader.array(chunk.raw(int(positions[bad[0]])))  # raises, naming the place
        data = reader.data
        elapsed = chunk.elapsed.tolist()
        duration = chunk.duration.tolist()
        for p, pid, frame, body, size in zip(
            picked.tolist(),
            ids.tolist(),
            chunk.local(chunk.frame[picked]).tolist(),
            chunk.body[picked].tolist(),
            chunk.size[picked].tolist(),
            strict=True,
        ):
            if pid == _POSITION:
                records = np.frombuffer(data, dtype, (size - 2) // record_size, body + 2)
                actors.positions(records, elapsed[frame], duration[frame])
            elif pid == _ADD:
                for record in reader.records(chunk.raw(p)):
                    actors.add(record.id, c_text(record.blueprint))
                    self.last_added = record.id
            else:
                reader.array(chunk.raw(p))
                actors.forget(self.last_added)


class _Actors:
    """QueryBlocked's `unordered_map<uint32_t, ReplayerActorInfo>` as numpy state by slot.

    Each actor id gets a slot (its anchor = the last position it moved to, the stopped
    duration and start time, its name); `table` replays the map's inserts and erases for
    the iteration order at the end. A Position packet updates all its actors at once.
    """

    def __init__(self, order: str, min_time: float, min_distance: float, coordinate: np.dtype):
        self.min_time = min_time
        self.min_distance = min_distance
        self.table = UnorderedTable(order)
        self.slot_of: dict[int, int] = {}
        self.ids: list[int] = []
        self.names: list[str] = []
        self.anchor = np.zeros((16, 3), coordinate)
        self.duration = np.zeros(16)
        self.time = np.zeros(16)
        self.present = np.zeros(16, bool)  # in the map (slot order)
        self.rows: list[tuple[float, str]] = []
        self._last_key: bytes | None = None
        self._dirty = True
        self._last_slots = np.zeros(0, np.int64)
        self._last_unique = True
        self._last_where: slice | np.ndarray = self._last_slots

    def _slot(self, actor: int) -> int:
        slot = self.slot_of.get(actor)
        if slot is None:
            slot = self.slot_of[actor] = len(self.ids)
            self.ids.append(actor)
            self.names.append("")
            if slot == len(self.duration):
                grow = len(self.duration)
                self.anchor = np.concatenate([self.anchor, np.zeros((grow, 3), self.anchor.dtype)])
                self.duration = np.concatenate([self.duration, np.zeros(grow)])
                self.time = np.concatenate([self.time, np.zeros(grow)])
                self.present = np.concatenate([self.present, np.zeros(grow, bool)])
        return slot

    def _reset(self, slot: int, name: str) -> None:
        self.anchor[slot] = 0.0
        self.duration[slot] = self.time[slot] = 0.0
        self.names[slot] = name

    def add(self, actor: int, name: str) -> None:
        """An EventAdd record: the entry is (re)made, zeroed, with the blueprint as name."""
        slot = self._slot(actor)
        self._reset(slot, name)
        self.table.insert(actor, actor)
        self.present[slot] = True

    def forget(self, actor: int) -> None:
        """An EventDel packet: CARLA erases the last added actor's entry."""
        if actor in self.table:
            slot = self._slot(actor)
            self._reset(slot, "")
            self.table.erase(actor)
            self.present[slot] = False
            self._dirty = True

    def positions(self, records: np.ndarray, elapsed: float, duration: float) -> None:
        """One Position packet of a frame with these elapsed time and duration."""
        ids = records["id"]
        key = ids.tobytes()
        if key != self._last_key:
            self._new_ids(ids, key)
        slots = self._last_slots
        if self._dirty:  # ids changed or an entry was erased: make the missing entries
            absent = ~self.present[slots]
            for slot in slots[absent].tolist():
                self.table.insert(self.ids[slot], self.ids[slot])
                self.present[slot] = True
            self._dirty = False
        points = records["location"]
        if not self._last_unique:
            self._one_by_one(slots, points, elapsed, duration)
        elif isinstance(self._last_where, slice):
            self._in_order(self._last_where, points, elapsed, duration)
        else:
            self._scattered(slots, points, elapsed, duration)

    def _in_order(self, where: slice, points: np.ndarray, elapsed: float, duration: float):
        """The packet's actors hold consecutive slots: work on views of the state."""
        anchor = self.anchor[where]
        stopped_for = self.duration[where]
        stopped = _distance(anchor, points) < self.min_distance
        if not stopped.any():
            self._rows_for(where.start, stopped_for >= self.min_time)
            stopped_for.fill(0.0)
            anchor[:] = points
            return
        moving = ~stopped
        fresh = stopped & (stopped_for == 0)
        if fresh.any():
            self.time[where][fresh] = elapsed
        self._rows_for(where.start, moving & (stopped_for >= self.min_time))
        stopped_for[:] = np.where(stopped, stopped_for + duration, 0.0)
        np.copyto(anchor, points, where=moving[:, None])

    def _rows_for(self, first: int, chosen: np.ndarray) -> None:
        if chosen.any():
            for k in np.flatnonzero(chosen).tolist():
                self._row(first + k)

    def _scattered(self, slots: np.ndarray, points, elapsed: float, duration: float) -> None:
        """The general case: the packet's slots in any order (all different)."""
        stopped = _distance(self.anchor[slots], points) < self.min_distance
        if stopped.any():
            still = slots[stopped]
            fresh = still[self.duration[still] == 0]
            self.time[fresh] = elapsed
            self.duration[still] += duration
            moving = ~stopped
            slots = slots[moving]
            points = points[moving]
        for slot in slots[self.duration[slots] >= self.min_time].tolist():
            self._row(slot)
        self.duration[slots] = 0.0
        self.anchor[slots] = points

    def _new_ids(self, ids: np.ndarray, key: bytes) -> None:
        listed = [self._slot(actor) for actor in ids.tolist()]
        slots = np.asarray(listed, np.int64)
        self._last_key = key
        self._dirty = True
        self._last_slots = slots
        self._last_unique = len(set(listed)) == len(listed)
        run = len(listed) and listed == list(range(listed[0], listed[0] + len(listed)))
        self._last_where = slice(listed[0], listed[0] + len(listed)) if run else slots

    def _one_by_one(self, slots, points, elapsed: float, duration: float) -> None:
        """CARLA's loop record by record (a packet listing an actor twice)."""
        for slot, point in zip(slots.tolist(), points, strict=True):
            if _distance(self.anchor[slot], point[None, :])[0] < self.min_distance:
                if self.duration[slot] == 0:
                    self.time[slot] = elapsed
                self.duration[slot] += duration
            else:
                if self.duration[slot] >= self.min_time:
                    self._row(slot)
                self.duration[slot] = 0.0
                self.anchor[slot] = point

    def _row(self, slot: int) -> None:
        self.rows.append(self._result(slot))

    def _result(self, slot: int) -> tuple[float, str]:
        """(duration, row) for the slot's stop, as CARLA's Results multimap holds it."""
        stopped = float(self.duration[slot])
        return stopped, _row(float(self.time[slot]), self.ids[slot], self.names[slot], stopped)

    def still_stopped(self) -> list[tuple[float, str]]:
        """The rows of actors stopped long enough at the end, in the map's iteration order."""
        slots = [self.slot_of[actor] for actor in self.table]
        return [self._result(slot) for slot in slots if self.duration[slot] >= self.min_time]
