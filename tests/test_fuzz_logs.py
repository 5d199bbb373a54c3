"""2000+ seeded truncated, bit-flipped and size-corrupted logs through the reader and the
queries: only clean text or LogFormatError, never another exception.

Each case's time is measured and the slowest are reported in the failure message (the
limit is 1 s a case; timing is reported, the assertion is on exceptions).
benchmarks/fuzz_logs.py runs 100k cases.
"""

from __future__ import annotations

from tests.log_fuzz import cases, run

SMALL_LOGS = ("all_packets", "edge_cases", "edge_single_frame", "edge_header_only")
CASES = 2000


def test_corrupt_logs_fail_cleanly(shared):
    logs = {
        name: (shared / "carla-golden" / name / "recording.log").read_bytes() for name in SMALL_LOGS
    }
    outcomes = [run(label, data) for label, data in cases(logs, CASES, seed=20261201)]
    assert len(outcomes) == CASES
    slowest = sorted(outcomes, key=lambda o: -o.seconds)[:3]
    timing = ", ".join(f"{o.label} {o.seconds:.3f}s" for o in slowest)
    failures = [o for o in outcomes if o.error is not None]
    details = "; ".join(f"{o.label}: {type(o.error).__name__}: {o.error}" for o in failures[:5])
    assert not failures, f"{len(failures)} cases raised ({details}); slowest: {timing}"
