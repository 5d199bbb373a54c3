"""Where on a route's timeline each infraction happened.

results.json keeps the leaderboard's infraction texts, with a place but no time:
"Agent collided against object with type=walker.pedestrian.0026 and id=68 at (x=306.743,
y=195.176, z=0.0)". A text with a place is put at the frame where the hero was nearest that
place (the first such frame; the last for a blockage, which is reported when it ends):
exact for collisions, route deviations and blockages, whose place is the hero's own
(rounded to 1 mm), near for red lights and stop signs, whose place is the light's or the
sign's. A collision whose other actor the log's Collision records name with the hero is put
at one of those records' frames (the nearest to the place). A text without a place (outside
the route lanes, minimum speed, timeouts) is put at the route's last frame, where the
leaderboard counts it. A lone log's marks are its Collision records that name the hero (or
all its collisions when it has no hero), a run of consecutive frames of one pair as one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from recorder.picture.log_scenes import NOT_AN_ACTOR

_PLACE = re.compile(r"at \(x=(\S+?), y=(\S+?), z=(\S+?)\)")
_OTHER_ID = re.compile(r"\bid=(\d+)")
_AT_END_OF_BLOCK = {"vehicle_blocked"}
_COLLISIONS = {"collisions_layout", "collisions_pedestrian", "collisions_vehicle"}


@dataclass(frozen=True, slots=True)
class Mark:
    """An infraction on the timeline: frame (index into the log's frames), results.json's
    kind (or "collision" for a lone log's record), text, and place (m; None: no place)."""

    pos: int
    kind: str
    text: str
    place: tuple[float, float] | None

    def as_json(self) -> dict:
        out = {"pos": self.pos, "kind": self.kind, "text": self.text}
        if self.place is not None:
            out["x"], out["y"] = self.place
        return out


@dataclass(frozen=True, slots=True)
class HeroTrack:
    """The hero's logged positions: frame (index) and x, y (m) of each."""

    pos: np.ndarray
    xy: np.ndarray


def record_marks(
    infractions: dict[str, list[str]],
    hero: HeroTrack | None,
    collisions: tuple[np.ndarray, np.ndarray],
    hero_id: int | None,
    last: int,
) -> list[Mark]:
    """The marks of a results.json record's infractions (kind -> texts), in time order."""
    marks = []
    for kind, texts in infractions.items():
        for text in texts:
            marks.append(_mark(kind, text, hero, collisions, hero_id, last))
    marks.sort(key=lambda m: m.pos)
    return marks


def _mark(kind, text, hero, collisions, hero_id, last) -> Mark:
    found = _PLACE.search(text)
    if found is None or hero is None or not len(hero.pos):
        return Mark(last, kind, text, None)
    try:
        place = (float(found.group(1)), float(found.group(2)))
    except ValueError:
        return Mark(last, kind, text, None)
    candidates = np.arange(len(hero.pos))
    other = _OTHER_ID.search(text)
    if kind in _COLLISIONS and other is not None and hero_id is not None:
        frames = _collision_frames(collisions, hero_id, int(other.group(1)))
        near = np.flatnonzero(np.isin(hero.pos, frames))
        if len(near):
            candidates = near
    gap = hero.xy[candidates] - np.array(place)
    dist = np.sum(gap * gap, axis=1)
    best = np.flatnonzero(dist <= dist.min() + 1e-9)
    chosen = candidates[best[-1] if kind in _AT_END_OF_BLOCK else best[0]]
    return Mark(int(hero.pos[chosen]), kind, text, place)


def _collision_frames(collisions, hero_id: int, other_id: int) -> np.ndarray:
    where, pairs = collisions
    if not len(where):
        return np.zeros(0, np.int64)
    hit = ((pairs[:, 0] == hero_id) & (pairs[:, 1] == other_id)) | (
        (pairs[:, 1] == hero_id) & (pairs[:, 0] == other_id)
    )
    return where[hit]


def log_marks(
    collisions: tuple[np.ndarray, np.ndarray],
    hero_id: int | None,
    names: dict[int, str],
) -> list[Mark]:
    """A lone log's marks: its collisions (those naming the hero when it has one), a run of
    consecutive frames of one pair as one mark at its first frame."""
    where, pairs = collisions
    marks, open_runs = [], {}
    for pos, (a, b) in zip(where.tolist(), pairs.tolist(), strict=True):
        if hero_id is not None and hero_id not in (a, b):
            continue
        key = (a, b)
        if open_runs.get(key) in (pos, pos - 1):
            open_runs[key] = pos
            continue
        open_runs[key] = pos
        text = f"collision of {_who(a, names)} with {_who(b, names)}"
        marks.append(Mark(pos, "collision", text, None))
    return marks


def _who(actor_id: int, names: dict[int, str]) -> str:
    if actor_id == NOT_AN_ACTOR:
        return "something that is not an actor"
    return f"{actor_id} ({names[actor_id]})" if actor_id in names else str(actor_id)
