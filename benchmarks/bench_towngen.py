"""Town generator speed: build, write and read back the committed towns and a large one.

Run: .venv/bin/python benchmarks/bench_towngen.py
Goal: the medium town (4x4 blocks) generated in well under 1 s, so that regenerating the
committed towns in the test suite stays cheap.
"""

from __future__ import annotations

import sys
import time

from world.map.map import Map
from world.map.opendrive import parse_opendrive, write_opendrive
from world.map.towngen import TOWN_PRESETS, TownSpec, build_town

GOAL_S = 1.0
SPECS = {
    **TOWN_PRESETS,
    "large_6x6_3_lanes": TownSpec(seed=1, blocks_x=6, blocks_y=6, lanes=(1, 3), curves=True,
                                  hills=True),
}  # fmt: skip


def timed(fn) -> tuple[float, object]:
    """Best of three runs: seconds and the last result."""
    best, result = float("inf"), None
    for _ in range(3):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    header = f"{'town':18s} {'roads':>6s} {'kB':>6s} {'build s':>8s} {'write s':>8s} "
    print(header + f"{'parse s':>8s} {'Map s':>7s} {'goal ratio':>10s}")
    for name, spec in SPECS.items():
        build_s, doc = timed(lambda spec=spec: build_town(spec))
        write_s, text = timed(lambda doc=doc: write_opendrive(doc))
        parse_s, _ = timed(lambda text=text: parse_opendrive(text))
        map_s, _ = timed(lambda text=text, name=name: Map(name, text))
        total = build_s + write_s
        print(
            f"{name:18s} {len(doc.roads):6d} {len(text) // 1000:6d} {build_s:8.3f} "
            f"{write_s:8.3f} {parse_s:8.3f} {map_s:7.3f} {total / GOAL_S:10.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
