"""CARLA's collision query (`QueryCollisions`, `client.show_recorder_collisions`), text exact.

A collision row prints in the first frame of a run of consecutive frames holding the same
(id1, id2) pair, when both actors pass their category filter. CARLA's quirks are kept:

* an actor's category indexes `o v w t h a` by its kind, so a traffic sign (kind 4) is
  `h` and a sensor (kind 5) is `a`; `h` also matches on the record's hero flag. Kinds past
  5 read outside CARLA's array (undefined); lockstep prints `?` for them;
* an EventDel forgets the actor of the *last EventAdd record read*, not the deleted id;
* an unknown id, and 4294967295 (not an actor), is `o` with an empty name;
* after the first row the stream stays `fixed` with no decimals, so the closing
  `Duration:` has no fraction.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from recorder.errors import RecorderError
from recorder.logfile.cformat import c_fixed, c_general, pad_right
from recorder.logfile.packet_ids import PacketId
from recorder.queries.common import Source, answer, c_text, open_query

CATEGORIES = "ovwtha"
NOT_AN_ACTOR = 0xFFFFFFFF
HEADER = f"{'Time':>8} {'Types':>6} {'Id':>6} {'Actor 1':<35} {'Id':>6} {'Actor 2':<35}\n"
_ADD, _DEL = int(PacketId.EventAdd), int(PacketId.EventDel)
_WANTED = (_ADD, _DEL, int(PacketId.Collision))


def _category(kind: int) -> str:
    return CATEGORIES[kind] if kind < len(CATEGORIES) else "?"


def _passes(wanted: str, category: str, hero: bool) -> bool:
    return wanted == "a" or wanted == category or (wanted == "h" and hero)


def query_collisions(
    source: Source,
    category1: str = "a",
    category2: str = "a",
    *,
    local_time: bool = False,
    lenient: bool = True,
) -> str:
    """The collision query's text for a log (path or bytes) and two categories.

    Categories: o other, v vehicle, w walker, t traffic light, h hero, a any.
    `lenient=False` makes a log that ends inside a frame an error (see queries/common.py).
    """
    return answer(
        collision_pieces(source, category1, category2, local_time=local_time, lenient=lenient)
    )


def collision_pieces(
    source: Source,
    category1: str = "a",
    category2: str = "a",
    *,
    local_time: bool = False,
    lenient: bool = True,
) -> Iterator[str]:
    """The collision query's text in pieces, a chunk of the log at a time (NotARecorderError
    for a file that is not a log)."""
    for category in (category1, category2):
        if len(category) != 1:
            raise RecorderError(f"a category is one character of {CATEGORIES!r}, not {category!r}")
    text, log = open_query(source, local_time, lenient)
    reader = log.reader
    yield text + HEADER
    actors: dict[int, tuple[int, str]] = {}
    last_added = 0
    # pair -> (last frame it was seen in, the frame it was seen in before that)
    seen: dict[tuple[int, int], tuple[int, int | None]] = {}
    fixed = False
    for chunk in log.chunks():
        out = []
        picked = np.flatnonzero(np.isin(chunk.ids, _WANTED))
        picked = picked[chunk.counts(picked) != 0]
        for p, pid, frame in zip(
            picked.tolist(), chunk.ids[picked].tolist(), chunk.frame[picked].tolist(), strict=True
        ):
            packet = chunk.raw(p)
            if pid == _ADD:
                for record in reader.records(packet):
                    actors[record.id] = (record.type, c_text(record.blueprint))
                    last_added = record.id
            elif pid == _DEL:
                reader.array(packet)
                actors.pop(last_added, None)
            else:
                elapsed = float(chunk.elapsed[frame - chunk.first_frame]) if frame >= 0 else 0.0
                for rid1, rid2, hero1, hero2 in reader.array(packet)[
                    ["id1", "id2", "hero1", "hero2"]
                ].tolist():
                    kind1, name1 = actors.get(rid1, (0, ""))
                    kind2, name2 = actors.get(rid2, (0, ""))
                    type1 = _category(kind1) if rid1 != NOT_AN_ACTOR else "o"
                    type2 = _category(kind2) if rid2 != NOT_AN_ACTOR else "o"
                    if not (
                        _passes(category1, type1, hero1 != 0)
                        and _passes(category2, type2, hero2 != 0)
                    ):
                        continue
                    pair = (rid1, rid2)
                    last, before = seen.get(pair, (None, None))
                    if not (last == frame - 1 or (last == frame and before == frame - 1)):
                        out.append(
                            f"{c_fixed(elapsed, 0, 8)}   {type1} {type2}  {rid1:>6} "
                            f"{pad_right(name1, 35)} {rid2:>6} {pad_right(name2, 35)}\n"
                        )
                        fixed = True
                    if last != frame:
                        seen[pair] = (frame, last)
        yield "".join(out)
    frame_id, _, end = log.last_frame
    duration = c_fixed(end) if fixed else c_general(end)
    yield f"\nFrames: {frame_id}\nDuration: {duration} seconds\n"
