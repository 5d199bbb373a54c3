"""Seeded corruptions of OpenDRIVE maps, and one pass of a corrupt map through the reader.

Shared by tests/test_fuzz_opendrive.py. A case is (base map, case number) under a fixed
seed: `numpy.random.default_rng([seed, case])` picks one to three mutations, so the same
pair always gives the same text. The mutations work on the text, not on a parsed tree
(fast, and they can break the XML too): a number attribute replaced by a bad value (NaN,
infinities, -1, 0, 1e13, text that is no number), an id or reference changed, an
attribute dropped, an element dropped or duplicated, the text cut short. A clean pass is
an `OpenDrive` (and, when the map is built, a `Map` with finite lane geometry) or a
LockstepError naming the file and a line; anything else is a bug.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from world.errors import LockstepError
from world.geometry import Location
from world.map.map import Map
from world.map.opendrive import OpenDriveError, parse_opendrive

# Values a number attribute is replaced with: out of range, not finite, or not a number.
BAD_NUMBERS = (
    "nan",
    "NaN",
    "inf",
    "-inf",
    "-1",
    "0",
    "1",
    "1e13",
    "-1e13",
    "1e400",
    "1e-320",
    "",
    "abc",
    "1,5",
    "0x1A",
    "1e",
    "--1",
    "9" * 5000,
    "1" * 400,
)
# Values an id or reference is replaced with.
BAD_IDS = ("999999", "", "-1", "x y", "0")
# Attributes that name another element.
REFERENCE_ATTRIBUTES = frozenset(
    {"id", "elementId", "incomingRoad", "connectingRoad", "junction", "signalId", "from", "to"}
)
MUTATIONS = ("number", "reference", "drop_attribute", "drop_element", "duplicate", "truncate")
# The kinds' odds: numbers most often, the text cut short rarely.
_ODDS = np.array([0.42, 0.14, 0.14, 0.12, 0.12, 0.06])

_TAG = re.compile(r"<(/?)([A-Za-z_][\w.-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>")
_ATTRIBUTE = re.compile(r"\s([A-Za-z_][\w.:-]*)\s*=\s*(\"([^\"]*)\"|'([^']*)')")


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of the text: [start, end), with the element tag and attribute it belongs to."""

    start: int
    end: int
    tag: str
    name: str = ""


class MapText:
    """A map's text with the spans of every attribute (whole and value) and element."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self.attributes: list[Span] = []  # ' name="value"', whole
        self.values: list[Span] = []  # the value inside the quotes
        self.numbers: list[int] = []  # indexes of values that read as numbers
        self.references: list[int] = []  # indexes of values that name other elements
        self.elements: list[Span] = []  # start tag to end tag, root excluded
        open_tags: list[tuple[str, int]] = []
        for tag in _TAG.finditer(text):
            closing, name, body, empty = tag.groups()
            if closing:
                if open_tags and open_tags[-1][0] == name:
                    _, start = open_tags.pop()
                    if open_tags:
                        self.elements.append(Span(start, tag.end(), name))
                continue
            base = tag.start(3)
            for attribute in _ATTRIBUTE.finditer(body):
                group = 3 if attribute.group(3) is not None else 4
                self.attributes.append(
                    Span(base + attribute.start(), base + attribute.end(), name, attribute[1])
                )
                value = Span(base + attribute.start(group), base + attribute.end(group), name)
                value = Span(value.start, value.end, name, attribute[1])
                index = len(self.values)
                self.values.append(value)
                if _is_number(attribute[group]):
                    self.numbers.append(index)
                if attribute[1] in REFERENCE_ATTRIBUTES:
                    self.references.append(index)
            if empty:
                if open_tags:
                    self.elements.append(Span(tag.start(), tag.end(), name))
            else:
                open_tags.append((name, tag.start()))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def mutate(base: MapText, rng: np.random.Generator) -> tuple[str, list[str]]:
    """One to three seeded mutations of `base`'s text, and what each did."""
    text = base.text
    # Mutations apply from the end of the text backward, so earlier spans stay valid.
    edits: list[tuple[int, int, str, str]] = []
    for _ in range(int(rng.integers(1, 4))):
        kind = MUTATIONS[int(rng.choice(len(MUTATIONS), p=_ODDS))]
        edit = _edit(base, kind, rng)
        if edit is not None:
            edits.append(edit)
    edits.sort(key=lambda e: (e[0], e[1]), reverse=True)
    done: list[str] = []
    last_start = len(text) + 1
    for start, end, replacement, description in edits:
        if end > last_start:  # overlaps an edit already made
            continue
        text = text[:start] + replacement + text[end:]
        last_start = start
        done.append(description)
    return text, done


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def _edit(base: MapText, kind: str, rng: np.random.Generator):
    """(start, end, replacement, description) of one mutation, None when the map has no span
    of that kind."""
    text = base.text

    def pick(items: list):
        return items[int(rng.integers(len(items)))] if items else None

    if kind in ("number", "reference"):
        index = pick(base.numbers if kind == "number" else base.references)
        if index is None:
            return None
        span = base.values[index]
        pool = BAD_NUMBERS if kind == "number" else BAD_IDS
        if kind == "reference" and rng.random() < 0.5:
            # another id of the same map: a link to the wrong but existing element
            other = base.values[pick(base.references)]
            value = text[other.start : other.end]
        else:
            value = pool[int(rng.integers(len(pool)))]
        shown = value if len(value) <= 12 else value[:12] + f"...({len(value)} chars)"
        return (
            span.start,
            span.end,
            value,
            f"line {_line(text, span.start)}: <{span.tag}> {span.name}={shown!r}",
        )
    if kind == "drop_attribute":
        span = pick(base.attributes)
        if span is None:
            return None
        where = f"line {_line(text, span.start)}: <{span.tag}>"
        return span.start, span.end, "", f"{where} drop {span.name}"
    if kind in ("drop_element", "duplicate"):
        span = pick(base.elements)
        if span is None:
            return None
        where = f"line {_line(text, span.start)}: <{span.tag}>"
        if kind == "drop_element":
            return span.start, span.end, "", f"{where} dropped"
        copy = text[span.start : span.end]
        return span.end, span.end, copy, f"{where} duplicated"
    cut = int(rng.integers(len(text)))
    return cut, len(text), "", f"cut at offset {cut} (line {_line(text, cut)})"


CLEAN, REJECTED, BUG = "clean", "rejected", "bug"


@dataclass
class Outcome:
    result: str  # CLEAN, REJECTED or BUG
    seconds: float
    detail: str  # the error's text or what was wrong


def check_case(text: str, source: str, build_map: bool) -> Outcome:
    """Reads `text` (and with `build_map` builds the Map and asks it a few questions)."""
    start = time.perf_counter()
    try:
        if build_map:
            world_map = Map(Path(source).stem, text, source=source)
            problem = _map_problem(world_map)
        else:
            parse_opendrive(text, source=source)
            problem = ""
    except OpenDriveError as exc:
        message = str(exc)
        ok = re.match(rf"{re.escape(source)}:\d+: ", message) is not None
        outcome = REJECTED if ok else BUG
        detail = message if ok else f"error without file:line: {message[:300]}"
        return Outcome(outcome, time.perf_counter() - start, detail)
    except LockstepError as exc:
        message = str(exc)
        ok = source in message
        detail = message if ok else f"error without the file: {message[:300]}"
        return Outcome(REJECTED if ok else BUG, time.perf_counter() - start, detail)
    except Exception as exc:  # any other exception is the bug being hunted
        return Outcome(BUG, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"[:300])
    seconds = time.perf_counter() - start
    return Outcome(BUG if problem else CLEAN, seconds, problem)


def _map_problem(world_map: Map) -> str:
    """What is wrong with a map built from an accepted text ("" when nothing): every lane
    centre sample finite, and the queries answering."""
    segments = world_map._segments
    for name in ("a", "b", "width", "yaw_a"):
        values = getattr(segments, name)
        if not np.isfinite(values).all():
            return f"lane segments' {name} not finite"
    world_map.get_topology()
    for point in world_map.get_spawn_points()[:3]:
        location = point.location
        if not all(math.isfinite(v) for v in (location.x, location.y, location.z)):
            return f"spawn point not finite: {location}"
    world_map.get_waypoint(Location(0.0, 0.0, 0.0))
    return ""
