"""1200 seeded corrupted logs through the reader, open_log and dump/build: clean output (and an
exact rebuild) or LogFormatError, never another exception. benchmarks/bench_log_fuzz.py runs
100k of them and reports the slowest; the query fuzz test adds 2000 more through the reader."""

from __future__ import annotations

import pytest

from recorder.fuzz import corruptions, exercise

CASES = [("all_packets", 500, 1), ("edge_single_frame", 400, 2), ("edge_cases", 300, 3)]


@pytest.mark.parametrize("case, count, seed", CASES)
def test_corrupted_logs_read_cleanly_or_raise_log_format_error(shared, case, count, seed):
    log = (shared / "carla-golden" / case / "recording.log").read_bytes()
    clean = 0
    for what, data in corruptions(log, count, seed):
        try:
            clean += exercise(data)
        except Exception as exc:
            raise AssertionError(f"{case}, {what}: {type(exc).__name__}: {exc}") from exc
    # Both outcomes occur: a flipped bit in a float reads cleanly, a cut log does not.
    assert 0 < clean < count
