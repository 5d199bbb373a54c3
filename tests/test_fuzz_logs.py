"""2000 seeded truncated, bit-flipped, size- and count-corrupted and spliced logs through the
reader, open_log, dump/build and the three queries (the small golden logs and a CARLA 0.10
log): only clean text or LogFormatError, never another exception.

Each case is timed and the slowest are reported in the assertion message (the target is
under 1 s a case; benchmarks/bench_log_fuzz.py runs 100k cases and reports the timing).
"""

from __future__ import annotations

from tests.log_fuzz import BUG, CLEAN, REJECTED, cases, run
from tests.test_queries_ue5 import ue5_log

SMALL_LOGS = ("all_packets", "edge_cases", "edge_single_frame", "edge_header_only")
CASES = 2000


def base_logs(shared) -> dict[str, bytes]:
    """The small golden logs and a hand-made CARLA 0.10 (UE5) log."""
    logs = {
        name: (shared / "carla-golden" / name / "recording.log").read_bytes() for name in SMALL_LOGS
    }
    logs["ue5_by_hand"] = ue5_log()
    return logs


def test_corrupt_logs_fail_cleanly(shared):
    logs = base_logs(shared)
    outcomes = [run(label, data) for label, data in cases(logs, CASES, seed=20261201)]
    assert len(outcomes) == CASES
    slowest = sorted(outcomes, key=lambda o: -o.seconds)[:3]
    timing = ", ".join(f"{o.label} {o.seconds:.3f}s" for o in slowest)
    failures = [o for o in outcomes if o.result == BUG]
    details = "; ".join(f"{o.label}: {type(o.error).__name__}: {o.error}" for o in failures[:5])
    assert not failures, f"{len(failures)} cases raised ({details}); slowest: {timing}"
    # Both outcomes occur: a flipped bit in a float reads cleanly, a cut log does not.
    results = {o.result for o in outcomes}
    assert results == {CLEAN, REJECTED}, f"outcomes {results}; slowest: {timing}"
