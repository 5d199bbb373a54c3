"""CARLA's blocked-actors query (`QueryBlocked`, `client.show_recorder_actors_blocked`).

An actor is stopped while its Position stays closer than `min_distance` (centimetres, as
the positions) to where it last moved; each stopped record adds its frame's duration.
When it moves again after at least `min_time` seconds, a row is kept; so is every actor
still stopped that long at the end. Rows print longest first. CARLA's quirks are kept:

* the distance is UE4's float `FVector::Dist` (`sqrtf` of a float sum of squares);
* the last frame's duration of -1 is added too;
* an EventDel forgets the actor of the last EventAdd record read, not the deleted id;
* equal durations keep the order rows were made (a `multimap` with `greater`), and the
  actors still stopped at the end come in their `std::unordered_map`'s iteration order
  (libc++ by default, `order="libstdc++"` for GCC's library).

The positions are read with numpy: each actor's records are scanned a stop at a time,
so the Python work grows with the number of stops, not of records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recorder.cformat import c_fixed, pad_right
from recorder.hash_order import LIBCXX, UnorderedTable
from recorder.packet_ids import PacketId
from recorder.packets.position import POSITION
from recorder.query_common import (
    PacketTable,
    Source,
    c_text,
    check_library,
    closing_text,
    header_text,
    last_frame,
    packet_table,
)

HEADER = f"{'Time':>8} {'Id':>6} {'Actor':<35} {'Duration':>10}\n"
_EVENTS = (PacketId.EventAdd, PacketId.EventDel, PacketId.Position)
_FIRST_CHUNK = 32


@dataclass
class _Positions:
    """Every Position record in file order, with its frame's elapsed time and duration."""

    ids: np.ndarray
    xyz: np.ndarray
    elapsed: np.ndarray
    duration: np.ndarray


@dataclass
class _Final:
    time: float = 0.0
    duration: float = 0.0


def _row(time: float, actor: int, name: str, duration: float) -> str:
    return f"{c_fixed(time, 0, 8)} {actor:>6} {pad_right(name, 35)} {c_fixed(duration, 0, 10)}\n"


def _distance(anchor: np.ndarray, points: np.ndarray) -> np.ndarray:
    """UE4's `FVector::Dist(anchor, p)` for each row of points (anchor one row or one per
    point), in float32 as UE4 does it, then as float64 for comparing with a double."""
    with np.errstate(over="ignore", invalid="ignore"):
        d = points - anchor
        return np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]).astype(np.float64)


def query_blocked(
    source: Source,
    min_time: float = 30,
    min_distance: float = 100,
    *,
    order: str = LIBCXX,
    local_time: bool = False,
    lenient: bool = False,
) -> str:
    """The blocked query's text: `min_time` in seconds, `min_distance` in centimetres."""
    check_library(order)
    text, reader = header_text(source, local_time, lenient)
    if reader is None:
        return text
    table = packet_table(reader)
    min_time = float(min_time)
    min_distance = float(min_distance)
    positions, events = _scan(table)
    segments, ops = _segments(positions.ids, events)
    scan = _segment_exact if min_time <= 0 else _segment
    made: list[tuple[int, float, str]] = []  # rows made while scanning: (record, duration, row)
    finals: dict[int, tuple[_Final, str]] = {}
    for actor, pieces in segments.items():
        for records, name in pieces:
            final = scan(positions, records, actor, name, min_time, min_distance, made)
        finals[actor] = (final, name)
    made.sort(key=lambda r: r[0])
    rows = [(duration, row) for _, duration, row in made]
    live = UnorderedTable(order)
    for insert, actor in ops:
        if insert:
            live.insert(actor, actor)
        else:
            live.erase(actor)
    for actor in live:
        final, name = finals.get(actor, (_Final(), ""))
        if final.duration >= min_time:
            rows.append((final.duration, _row(final.time, actor, name, final.duration)))
    rows.sort(key=lambda r: -r[0])
    frame_id, elapsed = last_frame(table)
    return "".join([text, HEADER, *(row for _, row in rows), closing_text(frame_id, elapsed)])


def _scan(table: PacketTable) -> tuple[_Positions, list[tuple[int, int, int, str]]]:
    """Every Position record, and the events as (records before it, kind, actor, name):
    kind 1 an EventAdd of the actor, kind 0 an EventDel forgetting it (the last added)."""
    reader = table.reader
    arrays, counts, frames = [], [], []
    events: list[tuple[int, int, int, str]] = []
    last_added = 0
    seen = 0
    for p in np.flatnonzero(np.isin(table.ids, _EVENTS)).tolist():
        pid = table.ids[p]
        packet = table.raw(p)
        if pid == PacketId.Position:
            array = reader.array(packet)
            arrays.append(array)
            counts.append(len(array))
            frames.append(int(table.frame[p]))
            seen += len(array)
        elif pid == PacketId.EventAdd:
            for record in reader.records(packet):
                events.append((seen, 1, record.id, c_text(record.blueprint)))
                last_added = record.id
        elif len(reader.array(packet)):
            events.append((seen, 0, last_added, ""))
    records = np.concatenate(arrays) if arrays else np.zeros(0, POSITION.dtype)
    # Frame numbers shifted by one: index 0 is the zero frame before any FrameStart.
    frame_of = np.repeat(np.asarray(frames, np.int64), counts) + 1
    positions = _Positions(
        records["id"].astype(np.int64),
        np.ascontiguousarray(records["location"], np.float32),
        np.concatenate([[0.0], table.elapsed])[frame_of],
        np.concatenate([[0.0], table.duration])[frame_of],
    )
    return positions, events


def _segments(ids: np.ndarray, events: list[tuple[int, int, int, str]]):
    """Each actor's life segments and the map's inserts and erases in order.

    A segment is the actor's records between two resets of its entry (an EventAdd of it,
    an EventDel forgetting it) with the entry's name; a forgotten actor's entry comes back,
    nameless and zeroed, at its next Position record. The ops are (insert?, actor).
    """
    order = np.argsort(ids, kind="stable")
    actors, first = np.unique(ids[order], return_index=True)
    ends = [*first[1:].tolist(), len(ids)][: len(first)]
    own = {a: order[lo:hi] for a, lo, hi in zip(actors.tolist(), first.tolist(), ends, strict=True)}
    cuts: dict[int, list[tuple[int, int, str]]] = {}
    ops: list[tuple[int, int, int, int]] = []  # (records before, tie, insert?, actor)
    for number, (seq, kind, actor, name) in enumerate(events):
        cuts.setdefault(actor, []).append((seq, kind, name))
        ops.append((seq, number, kind, actor))
    segments: dict[int, list[tuple[np.ndarray, str]]] = {}
    empty = np.zeros(0, np.int64)
    for actor in sorted(set(own) | set(cuts)):
        mine = own.get(actor, empty)
        marks = [(0, 0, ""), *cuts.get(actor, [])]
        pieces = []
        for number, (seq, kind, name) in enumerate(marks):
            stop = marks[number + 1][0] if number + 1 < len(marks) else len(ids)
            records = mine[np.searchsorted(mine, seq) : np.searchsorted(mine, stop)]
            if kind == 0 and len(records):
                ops.append((int(records[0]), len(events), 1, actor))
            pieces.append((records, name))
        segments[actor] = pieces
    ops.sort(key=lambda op: (op[0], op[1]))
    return segments, [(insert == 1, actor) for _, _, insert, actor in ops]


def _segment(
    positions: _Positions,
    records: np.ndarray,
    actor: int,
    name: str,
    min_time: float,
    min_distance: float,
    made: list,
) -> _Final:
    """One segment's stops, a stop at a time (min_time > 0: moving records make no row)."""
    if len(records) == 0:
        return _Final()
    xyz = positions.xyz[records]
    elapsed = positions.elapsed[records]
    duration = positions.duration[records]
    origin = np.zeros((1, 3), np.float32)
    step = _distance(np.concatenate([origin, xyz[:-1]]), xyz)
    starts = np.flatnonzero(step < min_distance)
    count = len(records)
    i = 0
    while True:
        t = int(np.searchsorted(starts, i))
        if t == len(starts):
            return _Final()
        j = int(starts[t])
        anchor = xyz[j - 1] if j > 0 else origin[0]
        k = _first_move(xyz, anchor, j + 1, min_distance)
        end = count if k is None else k
        total = np.cumsum(duration[j:end])
        before = np.concatenate([[0.0], total[:-1]])
        time = float(elapsed[j + int(np.flatnonzero(before == 0.0)[-1])])
        stopped = float(total[-1])
        if k is None:
            return _Final(time, stopped)
        if stopped >= min_time:
            made.append((int(records[k]), stopped, _row(time, actor, name, stopped)))
        i = k + 1


def _first_move(xyz: np.ndarray, anchor: np.ndarray, start: int, min_distance: float):
    """The first record from `start` at least `min_distance` from the anchor, or None."""
    chunk = _FIRST_CHUNK
    while start < len(xyz):
        far = np.flatnonzero(~(_distance(anchor, xyz[start : start + chunk]) < min_distance))
        if len(far):
            return start + int(far[0])
        start += chunk
        chunk *= 4
    return None


def _segment_exact(
    positions: _Positions,
    records: np.ndarray,
    actor: int,
    name: str,
    min_time: float,
    min_distance: float,
    made: list,
) -> _Final:
    """CARLA's loop record by record (used when min_time <= 0: every move can make a row)."""
    last = np.zeros(3, np.float32)
    time = stopped = 0.0
    for r in records.tolist():
        point = positions.xyz[r]
        if _distance(last, point[None, :])[0] < min_distance:
            if stopped == 0:
                time = float(positions.elapsed[r])
            stopped += float(positions.duration[r])
        else:
            if stopped >= min_time:
                made.append((r, stopped, _row(time, actor, name, stopped)))
            stopped = 0.0
            last = point
    return _Final(time, stopped)
