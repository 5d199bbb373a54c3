"""100k seeded corrupted logs through the reader, open_log and dump/build (recorder.fuzz).

Prints how many read cleanly, the mean and the slowest case (the target: none over 1 s).

    .venv/bin/python benchmarks/bench_log_fuzz.py [--count N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from recorder.fuzz import corruptions, exercise

GOLDEN = Path(__file__).resolve().parent.parent.parent / "shared" / "carla-golden"
CASES = ("all_packets", "edge_single_frame", "edge_cases")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--golden", type=Path, default=GOLDEN)
    args = parser.parse_args()
    if not args.golden.is_dir():
        print(f"golden logs not found at {args.golden}", file=sys.stderr)
        return 2
    per_case = args.count // len(CASES)
    slowest = (0.0, "")
    total = clean = 0
    start = time.perf_counter()
    for seed, case in enumerate(CASES):
        log = (args.golden / case / "recording.log").read_bytes()
        for what, data in corruptions(log, per_case, seed + 100):
            t = time.perf_counter()
            clean += exercise(data)
            took = time.perf_counter() - t
            slowest = max(slowest, (took, f"{case}: {what}"))
            total += 1
    elapsed = time.perf_counter() - start
    print(f"{total} corrupted logs, {clean} read cleanly, {total - clean} LogFormatError")
    print(f"mean {elapsed / total * 1e3:.2f} ms, slowest {slowest[0] * 1e3:.1f} ms ({slowest[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
