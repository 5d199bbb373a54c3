"""Speed of the log format layer on a deterministic ~100 MB log (CARLA's benchmark shape).

20,000 frames at 0.05 s, 180 vehicles with a Position record every frame, 40 collisions, no
additional data, as the golden README's timing section. Prints seconds, MB/s and the ratio to
CARLA's C++ where the README gives a figure (writing the log from records: 3.4-3.7 s).

    .venv/bin/python benchmarks/bench_log_format.py [--frames N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from recorder import LogReader, LogWriter, PacketId, open_log
from recorder.packets import CODECS, CollisionRecord, EventAddRecord

CARLA_WRITE_SECONDS = 3.4
VEHICLES = 180


def build(frames: int) -> bytes:
    rng = np.random.default_rng(7)
    dtype = CODECS[PacketId.Position].dtype
    poses = np.zeros(VEHICLES, dtype)
    poses["id"] = np.arange(100, 100 + VEHICLES)
    poses["location"] = rng.uniform(-20000, 20000, (VEHICLES, 3)).astype(np.float32)
    speed = rng.uniform(0, 100, (VEHICLES, 3)).astype(np.float32)
    speed[:, 2] = 0
    adds = [
        EventAddRecord(int(i), 1, tuple(map(float, p)), (0.0, 0.0, 0.0), int(i), "vehicle.audi.a2")
        for i, p in zip(poses["id"], poses["location"], strict=True)
    ]
    collision_frames = set(np.linspace(10, frames - 10, 40).astype(int).tolist())
    writer = LogWriter(map_name="Town10HD_Opt", date=1767225600)
    start = time.perf_counter()
    for k in range(frames):
        poses["location"] += speed
        packets = {PacketId.Position: poses}
        if k == 0:
            packets[PacketId.EventAdd] = adds
        if k in collision_frames:
            packets[PacketId.Collision] = [CollisionRecord(k, 100 + k % 180, 101, False, False)]
        writer.write_frame(0.05, packets, visual_time=k * 0.05)
    data = writer.getvalue()
    report("write (numpy poses)", time.perf_counter() - start, len(data), CARLA_WRITE_SECONDS)
    return data


def report(what: str, seconds: float, size: int, carla: float | None = None) -> None:
    line = f"{what:28s} {seconds:8.3f} s  {size / seconds / 1e6:8.1f} MB/s"
    if carla is not None:
        line += f"  ratio to CARLA {seconds / carla:5.2f}"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20000)
    args = parser.parse_args()
    data = build(args.frames)
    print(f"log: {len(data):,} bytes, {args.frames} frames")

    t = time.perf_counter()
    reader = LogReader(data)
    count = sum(1 for _ in reader.packets())
    report(f"packets() ({count} packets)", time.perf_counter() - t, len(data))

    t = time.perf_counter()
    index = LogReader(data).frame_index
    report("frame index", time.perf_counter() - t, len(data))

    reader = LogReader(data)
    index = reader.frame_index
    t = time.perf_counter()
    for k in range(1000):
        reader.seek_frame(int(index.frame_id[k * 17 % len(index)]))
        reader.seek_time(k * 0.7)
    seek = (time.perf_counter() - t) / 2000
    print(f"{'seek (frame or time)':28s} {seek * 1e6:8.2f} us")

    t = time.perf_counter()
    poses = open_log(data).poses()
    report(f"poses() ({len(poses)} rows)", time.perf_counter() - t, len(data))


if __name__ == "__main__":
    main()
