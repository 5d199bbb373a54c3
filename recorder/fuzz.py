"""Seeded corruptions of a log (truncations, bit flips, corrupted packet sizes) for robustness
tests and benchmarks: every reader path must give clean output or a LogFormatError."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import numpy as np

from recorder.errors import LogFormatError
from recorder.json_codec import build_log, dump_log
from recorder.log_access import open_log
from recorder.reader import LogReader


def corruptions(log: bytes, count: int, seed: int) -> Iterator[tuple[str, bytes]]:
    """`count` corrupted copies of `log`, each with a short description of the damage."""
    rng = np.random.default_rng(seed)
    starts = LogReader(log).packet_table.offset
    for _ in range(count):
        kind = int(rng.integers(3))
        data = bytearray(log)
        if kind == 0:
            cut = int(rng.integers(len(log)))
            yield f"truncated to {cut} bytes", bytes(data[:cut])
            continue
        if kind == 1:
            bits = rng.integers(len(log) * 8, size=int(rng.integers(1, 4)))
            for bit in bits.tolist():
                data[bit // 8] ^= 1 << (bit % 8)
            yield f"bits {bits.tolist()} flipped", bytes(data)
            continue
        at = int(starts[int(rng.integers(len(starts)))]) if len(starts) else 0
        size = int(rng.choice([rng.integers(0, 64), rng.integers(0, 1 << 32)]))
        if at + 5 <= len(data):
            struct.pack_into("<I", data, at + 1, size)
        yield f"packet at byte {at} given size {size}", bytes(data)


def exercise(data: bytes) -> bool:
    """Every reading path on one log; True when it reads cleanly, False on LogFormatError.

    A clean read must also dump and build back to the same bytes, and a lenient read may
    fail only where the header itself is broken.
    """
    try:
        LogReader(data)
    except LogFormatError:
        return False
    lenient = LogReader(data, lenient=True)
    _ = lenient.frame_index, lenient.packet_table
    try:
        reader = LogReader(data)
        _ = reader.frame_index
        for packet in reader.packets():
            if packet.id <= 24:
                reader.records(packet)
        log = open_log(data)
        _ = log.poses(), log.actors
        spec = dump_log(data)
    except LogFormatError:
        return False
    if build_log(spec) != data:
        raise AssertionError("dump then build changed the bytes")
    return True
