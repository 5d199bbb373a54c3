"""Fuzzed OpenDRIVE maps: every corrupt map is refused with its file and line, or reads.

10,000 seeded cases over small shared maps (esmini's) and the junction test map in the
default suite, each read by the parser; one case in 100 also builds the Map (finite lane
geometry, topology, spawn points, a waypoint query) with its memory traced. A failure
prints the seed, the case number and the mutations, so `case(seed, number)` gives the same
text again. 100,000 cases run with `make test-slow`.
"""

from __future__ import annotations

import resource
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from opendrive_fuzz import BUG, CLEAN, REJECTED, MapText, check_case, mutate

SEED = 20261202
# Shared maps the cases are drawn from (small ones: a case is a parse of a few ms), and the
# odds of each; fabriksgatan brings junctions, connections and signals.
SHARED_MAPS = (
    ("esmini/circle_300m.xodr", 0.15),
    ("esmini/crest-curve.xodr", 0.15),
    ("esmini/curves.xodr", 0.15),
    ("esmini/curves_elevation.xodr", 0.15),
    ("esmini/straight_500m_signs.xodr", 0.15),
    ("esmini/fabriksgatan.xodr", 0.05),
)
LOCAL_MAPS = (("tjunction.xodr", 0.20),)
BUILD_EVERY = 100
# Correctness bounds (not benchmarks): a case that takes longer has hung, one that needs
# more memory has tried to allocate from a number it should have refused.
CASE_SECONDS = 10.0
MAP_PEAK_BYTES = 256 * 1024 * 1024
RSS_GROWTH_KIB = 512 * 1024


def _bases(shared: Path) -> tuple[list[MapText], np.ndarray]:
    bases, odds = [], []
    for relative, p in SHARED_MAPS:
        path = shared / "maps" / relative
        bases.append(MapText(f"fuzz/{path.name}", path.read_text(encoding="utf-8")))
        odds.append(p)
    for name, p in LOCAL_MAPS:
        path = Path(__file__).parent / "maps" / name
        bases.append(MapText(f"fuzz/{path.name}", path.read_text(encoding="utf-8")))
        odds.append(p)
    odds = np.array(odds)
    return bases, odds / odds.sum()


def case(bases: list[MapText], odds: np.ndarray, seed: int, number: int):
    """The base map, mutated text and mutations of case `number` under `seed`."""
    rng = np.random.default_rng([seed, number])
    base = bases[int(rng.choice(len(bases), p=odds))]
    text, mutations = mutate(base, rng)
    return base, text, mutations


def _run(shared: Path, cases: int, build_every: int) -> dict[str, int]:
    bases, odds = _bases(shared)
    counts = {CLEAN: 0, REJECTED: 0, BUG: 0}
    failures: list[str] = []
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for number in range(cases):
        base, text, mutations = case(bases, odds, SEED, number)
        build = number % build_every == 0
        if build:
            tracemalloc.start()
        outcome = check_case(text, base.name, build_map=build)
        if build:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            if peak > MAP_PEAK_BYTES:
                outcome.result, outcome.detail = BUG, f"traced peak {peak / 2**20:.0f} MiB"
        if outcome.seconds > CASE_SECONDS:
            outcome.result = BUG
            outcome.detail = f"took {outcome.seconds:.1f} s; {outcome.detail}"
        counts[outcome.result] += 1
        if outcome.result == BUG:
            failures.append(
                f"seed {SEED} case {number} ({base.name}, {'map' if build else 'parse'}): "
                f"{'; '.join(mutations)} -> {outcome.detail}"
            )
    growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert not failures, f"{len(failures)} bad outcomes:\n" + "\n".join(failures[:20])
    assert growth < RSS_GROWTH_KIB, f"peak RSS grew by {growth / 1024:.0f} MiB over the cases"
    return counts


def test_fuzzed_maps_are_refused_or_read(shared) -> None:
    counts = _run(shared, 10_000, BUILD_EVERY)
    # Both outcomes occur: the mutations do reach the checks, and not every one is fatal.
    assert counts[REJECTED] > 3_000 and counts[CLEAN] > 1_000, counts


@pytest.mark.slow
def test_fuzzed_maps_many(shared) -> None:
    counts = _run(shared, 100_000, 20)
    assert counts[REJECTED] > 30_000 and counts[CLEAN] > 10_000, counts


def test_cases_are_reproducible(shared) -> None:
    bases, odds = _bases(shared)
    first = [case(bases, odds, SEED, n)[1:] for n in (0, 17, 999)]
    again = [case(bases, odds, SEED, n)[1:] for n in (0, 17, 999)]
    assert first == again
    assert all(mutations for _, mutations in first)
