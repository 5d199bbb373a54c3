"""Times the log tools on a deterministic ~100 MB log, against CARLA's own C++ figures.

The log has the shape of the one timed in ../shared/carla-golden/README.md: 20,000 frames
at 0.05 s, 180 moving vehicles with a Position record every frame (each stops now and
then, so the blocked query has rows), 40 collisions, no additional data. It is written
with the project's LogWriter (timed: CARLA writes it in 3.4-3.7 s). Then: the three queries,
info -a, the packet walk, the frame index and seeks, open_log's poses, the JSON dump, each
with MB/s and the ratio to CARLA's time where the README gives one (below 1 = faster).

    python benchmarks/bench_log.py [--frames N] [--keep PATH] [--skip-dump]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recorder import (
    LogReader,
    LogWriter,
    PacketId,
    dump_log,
    open_log,
    query_blocked,
    query_collisions,
    query_info,
)
from recorder.packets import DTYPES, ActorAttribute, CollisionRecord, EventAddRecord

FRAMES = 20_000
ACTORS = 180
DELTA = 0.05
COLLISIONS = 40
# CARLA's query code on the README's 100 MB log (median of 3, seconds).
CARLA = {
    "info": 0.41,
    "info -a": 19.5,
    "collisions a a": 0.45,
    "collisions h v": 0.44,
    "blocked 30 10": 1.28,
    "blocked 5 100": 1.27,
    "blocked 1 1": 1.23,
    "write log": 3.4,
}
# The goals: no slower than CARLA, 1.5x for info -a.
GOAL = {"info -a": 1.5}


def actor_tracks(frames: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (frames, actors, 3) in cm and yaw (frames, actors): each vehicle drives a
    circle at its own speed and stands still for 8 s out of every 40 s, phase-shifted."""
    t = np.arange(frames)[:, None] * DELTA
    k = np.arange(ACTORS)[None, :]
    speed = 500.0 + 10.0 * k  # cm/s
    cycle = 40.0
    phase = (t + 0.37 * k) % cycle
    moving_time = np.minimum(phase, cycle - 8.0) + np.floor((t + 0.37 * k) / cycle) * (cycle - 8)
    radius = 5000.0 + 100.0 * k
    angle = speed * moving_time / radius
    xyz = np.stack(
        [radius * np.cos(angle), radius * np.sin(angle), np.full_like(angle, 30.0)], axis=-1
    )
    return xyz.astype(np.float32), np.degrees(angle + np.pi / 2).astype(np.float32)


def build(path: Path, frames: int) -> float:
    """Writes the log; returns the seconds spent writing frames."""
    xyz, yaw = actor_tracks(frames)
    ids = np.arange(100, 100 + ACTORS, dtype=np.uint32)
    records = np.zeros(ACTORS, DTYPES[PacketId.Position])
    records["id"] = ids
    adds = []
    for n, i in enumerate(ids.tolist()):
        role = ActorAttribute(2, "role_name", "hero" if n == 0 else "autopilot")
        where = tuple(map(float, xyz[0, n]))
        turn = (0.0, 0.0, float(yaw[0, n]))
        adds.append(EventAddRecord(i, 1, where, turn, i, "vehicle.tesla.model3", [role]))
    hits = {}
    step = frames // COLLISIONS
    for c in range(COLLISIONS):
        frame = 10 + c * step
        a, b = int(ids[c % ACTORS]), int(ids[(c * 7 + 3) % ACTORS])
        hits[frame] = [CollisionRecord(c, a, b, a == int(ids[0]), b == int(ids[0]))]
    start = time.perf_counter()
    with LogWriter(path, map_name="Carla/Maps/Town10HD_Opt", date=1767225600) as writer:
        for f in range(frames):
            records["location"] = xyz[f]
            records["rotation"][:, 2] = yaw[f]
            packets = {PacketId.Position: records}
            if f == 0:
                packets[PacketId.EventAdd] = adds
            if f in hits:
                packets[PacketId.Collision] = hits[f]
            writer.write_frame(np.float32(DELTA), packets, visual_time=f * DELTA)
    return time.perf_counter() - start


def timed(label: str, size_mb: float, run, extra: str = "") -> float:
    start = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - start
    ratio = ""
    if label in CARLA:
        r = seconds / CARLA[label]
        goal = GOAL.get(label, 1.0)
        ratio = f"  x{r:5.2f} of CARLA's {CARLA[label]:.2f} s ({'ok' if r <= goal else 'SLOW'})"
    detail = extra or (
        f"  -> {len(result) / 1e6:.1f} MB of text" if isinstance(result, str) else ""
    )
    print(f"{label:16s} {seconds:8.3f} s {size_mb / seconds:9.1f} MB/s{ratio}{detail}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=FRAMES)
    parser.add_argument("--keep", type=Path, help="write the log here and keep it")
    parser.add_argument("--skip-dump", action="store_true", help="leave out the JSON dump")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "bench.log"
        write = build(path, args.frames)
        size_mb = path.stat().st_size / 1e6
        print(f"log: {path.stat().st_size:,} bytes, {args.frames} frames, {ACTORS} actors")
        r = write / CARLA["write log"]
        print(
            f"{'write log':16s} {write:8.3f} s {size_mb / write:9.1f} MB/s  x{r:5.2f} of CARLA's "
            f"{CARLA['write log']:.2f} s ({'ok' if r <= 1 else 'SLOW'})"
        )
        data = path.read_bytes()
        timed("info", size_mb, lambda: query_info(data))
        timed("collisions a a", size_mb, lambda: query_collisions(data, "a", "a"))
        timed("collisions h v", size_mb, lambda: query_collisions(data, "h", "v"))
        timed("blocked 30 10", size_mb, lambda: query_blocked(data, 30, 10))
        timed("blocked 5 100", size_mb, lambda: query_blocked(data, 5, 100))
        timed("blocked 1 1", size_mb, lambda: query_blocked(data, 1, 1))
        timed("info -a", size_mb, lambda: query_info(data, show_all=True))
        timed("packets()", size_mb, lambda: sum(1 for _ in LogReader(data).packets()))
        reader = LogReader(data)
        timed("index build", size_mb, lambda: reader.frame_index)
        last = int(reader.frame_index.frame_id[-1])
        start = time.perf_counter()
        for k in range(1000):
            reader.seek_frame(1 + (k * 7919) % last)
            reader.seek_time((k * 0.37) % (last * DELTA))
        print(f"{'seek':16s} {(time.perf_counter() - start) / 2000 * 1e6:8.2f} us a seek")
        timed("poses()", size_mb, lambda: open_log(data).poses())
        if not args.skip_dump:
            timed("dump", size_mb, lambda: dump_log(reader))
    return 0


if __name__ == "__main__":
    sys.exit(main())
