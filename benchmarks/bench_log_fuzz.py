"""Runs 100k seeded corrupt logs through the reader, open_log, dump/build and the queries.

Only clean text or LogFormatError may come out. Prints the rate, the outcome counts (read
cleanly, LogFormatError, any other exception with the first few), the time per case
(median, 99th percentile, how many took over 1 s) and the slowest case. Exit status 1 when
a case raised anything else.

    .venv/bin/python benchmarks/bench_log_fuzz.py [--cases N] [--seed S] [--with-large]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import find_shared
from tests.log_fuzz import BUG, CLEAN, REJECTED, cases, run
from tests.test_fuzz_logs import base_logs


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
    logs = base_logs(shared)
    if args.with_large:
        logs["town_drive"] = (golden / "town_drive" / "recording.log").read_bytes()
        for folder in sorted((shared / "carla-logs").iterdir()):
            if (folder / "recording.log").exists():
                logs[folder.name] = (folder / "recording.log").read_bytes()
    start = time.perf_counter()
    seconds = []
    results: Counter[str] = Counter()
    failures = []
    slowest = None
    for label, data in cases(logs, args.cases, args.seed):
        outcome = run(label, data)
        seconds.append(outcome.seconds)
        results[outcome.result] += 1
        if outcome.result == BUG:
            failures.append(outcome)
        if slowest is None or outcome.seconds > slowest.seconds:
            slowest = outcome
    total = time.perf_counter() - start
    times = np.asarray(seconds)
    print(f"{len(times)} cases from {len(logs)} logs in {total:.1f} s: {len(times) / total:.0f}/s")
    print(
        f"outcomes: {results[CLEAN]} read cleanly, {results[REJECTED]} LogFormatError, "
        f"{results[BUG]} other exceptions"
    )
    print(
        f"per case: median {np.median(times) * 1e3:.2f} ms, p99 "
        f"{np.percentile(times, 99) * 1e3:.2f} ms, over 1 s: {int((times > 1).sum())}"
    )
    if slowest is not None:
        print(f"slowest: {slowest.label} {slowest.seconds * 1e3:.1f} ms ({slowest.result})")
    for outcome in failures[:10]:
        print(f"  {outcome.label}: {type(outcome.error).__name__}: {outcome.error}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
