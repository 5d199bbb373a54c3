"""Seeded corruptions of recorder logs, and one pass of a corrupt log through every reader.

Shared by tests/test_fuzz_logs.py (2000 cases in the default suite) and
benchmarks/bench_log_fuzz.py (100k). A case is (base log, mutation kind, seed); the same
triple always gives the same bytes. The kinds: a truncation, bit flips, a packet's size
field or record count overwritten, a run of bytes dropped or repeated (splice). A clean
pass gives text (and a dump that builds back the same bytes) or raises `LogFormatError`;
anything else is a bug.
"""

from __future__ import annotations

import struct
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from recorder import (
    LogReader,
    build_log,
    dump_log,
    open_log,
    query_blocked,
    query_collisions,
    query_info,
)
from recorder.errors import LogFormatError, TruncatedLogWarning

KINDS = ("truncate", "bitflip", "size", "count", "splice")
CLEAN, REJECTED, BUG = "clean", "LogFormatError", "other exception"


@dataclass
class Outcome:
    label: str
    seconds: float
    result: str  # CLEAN (the strict reader read it all), REJECTED or BUG
    error: BaseException | None  # the exception other than LogFormatError, for BUG


def packet_offsets(data: bytes) -> list[int]:
    """The offsets of the packet headers of a well-formed log (header skipped)."""
    return LogReader(data).packet_table.offset.tolist()


def mutate(data: bytes, offsets: list[int], kind: str, rng: np.random.Generator) -> bytes:
    """One corruption of `data` (a well-formed log whose packets start at `offsets`)."""
    raw = bytearray(data)
    if kind == "truncate":
        return bytes(raw[: int(rng.integers(0, len(raw)))])
    if kind == "bitflip":
        for _ in range(int(rng.integers(1, 9))):
            at = int(rng.integers(0, len(raw)))
            raw[at] ^= 1 << int(rng.integers(0, 8))
        return bytes(raw)
    if not offsets:
        return bytes(raw[: len(raw) // 2])
    at = offsets[int(rng.integers(0, len(offsets)))]
    if kind == "size":
        old = struct.unpack_from("<I", raw, at + 1)[0]
        choices = (0, 1, old - 1, old + 1, old + int(rng.integers(2, 100)), 0xFFFFFFFF)
        new = int(choices[int(rng.integers(0, len(choices)))]) & 0xFFFFFFFF
        struct.pack_into("<I", raw, at + 1, new)
        return bytes(raw)
    if kind == "count":
        if at + 7 <= len(raw):
            struct.pack_into("<H", raw, at + 5, int(rng.integers(0, 65536)))
        return bytes(raw)
    # splice: drop or repeat a run of bytes inside the log
    start = int(rng.integers(0, len(raw)))
    stop = min(len(raw), start + int(rng.integers(1, 64)))
    if rng.random() < 0.5:
        return bytes(raw[:start] + raw[stop:])
    return bytes(raw[:stop] + raw[start:stop] + raw[stop:])


def cases(logs: dict[str, bytes], count: int, seed: int) -> Iterator[tuple[str, bytes]]:
    """`count` labelled corrupt logs, cycling through the bases and the mutation kinds."""
    names = sorted(logs)
    offsets = {name: packet_offsets(logs[name]) for name in names}
    root = np.random.SeedSequence(seed)
    for number, child in enumerate(root.spawn(count)):
        name = names[number % len(names)]
        kind = KINDS[(number // len(names)) % len(KINDS)]
        rng = np.random.default_rng(child)
        yield f"{name}/{kind}/{number}", mutate(logs[name], offsets[name], kind, rng)


def exercise(data: bytes) -> bool:
    """The reader (every packet's records, the frame index, seeks; strict and lenient),
    open_log, dump then build, and the three queries. True when the strict reader read
    the whole log cleanly, False when it raised LogFormatError."""
    clean = True
    for lenient in (False, True):
        try:
            reader = LogReader(data, lenient=lenient)
            for packet in reader.packets():
                if packet.id <= 24:
                    reader.records(packet)
            index = reader.frame_index
            if len(index):
                reader.seek_frame(int(index.frame_id[-1]))
                reader.seek_time(float(index.elapsed[-1]))
        except LogFormatError:
            clean = clean and lenient
    try:
        log = open_log(data)
        _ = log.poses(), log.actors
        if build_log(dump_log(data)) != data:
            raise AssertionError("dump then build changed the bytes")
    except LogFormatError:
        clean = False
    for query in (
        lambda: query_info(data),
        lambda: query_info(data, show_all=True),
        lambda: query_collisions(data, "a", "a"),
        lambda: query_collisions(data, "h", "v"),
        lambda: query_blocked(data, 1, 1),
        lambda: query_blocked(data, 0, 10),
        lambda: query_info(data, show_all=True, lenient=True),
    ):
        try:
            with warnings.catch_warnings():  # a cut log is answered up to its last frame
                warnings.simplefilter("ignore", TruncatedLogWarning)
                query().encode("utf-8", "surrogateescape")
        except LogFormatError:
            clean = False
    return clean


def run(label: str, data: bytes) -> Outcome:
    """One case, timed; anything but LogFormatError is recorded as a bug."""
    start = time.perf_counter()
    try:
        result, error = (CLEAN if exercise(data) else REJECTED), None
    except Exception as exc:  # the point of fuzzing: anything but LogFormatError is a bug
        result, error = BUG, exc
    return Outcome(label, time.perf_counter() - start, result, error)
