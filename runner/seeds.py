"""Seeds per consumer from one evaluation seed, by stable keys (DESIGN.md, determinism rules).

Each consumer (the traffic of a route repetition, the agent, its sensors)
gets its seed from `numpy.random.SeedSequence(seed, spawn_key=keys)`, where a
text key becomes a number through SHA-256 (never Python's salted hash), so
adding a route or a scenario never shifts another consumer's draws.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["consumer_seed"]


def _key_number(key: str | int) -> int:
    if isinstance(key, int):
        return key
    return int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:4], "little")


def consumer_seed(seed: int, *keys: str | int) -> int:
    """A 31-bit seed for the consumer named by `keys` (e.g. "traffic", route id, repetition)."""
    sequence = np.random.SeedSequence(seed, spawn_key=tuple(_key_number(k) for k in keys))
    return int(sequence.generate_state(1, np.uint32)[0] >> 1)
