"""Runs 100k seeded corrupt logs through the reader and the three queries.

Only clean text or LogFormatError may come out; the script prints the count, every other
exception (first few), and the time per case (median, 99th percentile, slowest, and how
many took over 1 s). Exit status 1 when a case raised anything else.

    python benchmarks/fuzz_logs.py [--cases N] [--seed S] [--with-large]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import find_shared
from tests.log_fuzz import cases, run
from tests.test_fuzz_logs import SMALL_LOGS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--with-large", action="store_true", help="also corrupt town_drive and the real logs"
    )
    args = parser.parse_args()
    shared = find_shared()
    if shared is None:
        print("shared data not found (set LOCKSTEP_SHARED)")
        return 2
    golden = shared / "carla-golden"
    logs = {name: (golden / name / "recording.log").read_bytes() for name in SMALL_LOGS}
    if args.with_large:
        logs["town_drive"] = (golden / "town_drive" / "recording.log").read_bytes()
        for folder in sorted((shared / "carla-logs").iterdir()):
            if (folder / "recording.log").exists():
                logs[folder.name] = (folder / "recording.log").read_bytes()
    start = time.perf_counter()
    seconds = []
    failures = []
    for label, data in cases(logs, args.cases, args.seed):
        outcome = run(label, data)
        seconds.append(outcome.seconds)
        if outcome.error is not None:
            failures.append(outcome)
    times = np.asarray(seconds)
    print(f"{len(times)} cases from {len(logs)} logs in {time.perf_counter() - start:.1f} s")
    print(
        f"per case: median {np.median(times) * 1e3:.2f} ms, p99 "
        f"{np.percentile(times, 99) * 1e3:.2f} ms, slowest {times.max():.3f} s, "
        f"over 1 s: {int((times > 1).sum())}"
    )
    print(f"other exceptions: {len(failures)}")
    for outcome in failures[:10]:
        print(f"  {outcome.label}: {type(outcome.error).__name__}: {outcome.error}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
