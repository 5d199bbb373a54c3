"""The log tools on a sample log written by lockstep's own writer: CARLA's three queries,
open_log, JSON dump and build, CSV export (docs/recorder-queries.md shows the same by hand).
This was `make run` before the runner existed; tests/test_quickstart.py keeps it working."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from recorder import (
    LogWriter,
    PacketId,
    build_log,
    dump_json,
    dump_log,
    open_log,
    query_blocked,
    query_collisions,
    query_info,
)
from recorder.logfile.packets import DTYPES, ActorAttribute, CollisionRecord, EventAddRecord

OUT = Path("runs/quickstart")
TICK = 0.05


def write_sample(path: Path, frames: int = 800, vehicles: int = 8) -> None:
    """Vehicles driving east on parallel lanes at 20 Hz: the hero (id 1) at 5 m/s, the others
    faster; the last one parks after 5 s, and the hero touches its neighbour at frame 100."""
    poses = np.zeros(vehicles, DTYPES[PacketId.Position])
    poses["id"] = np.arange(1, vehicles + 1)
    poses["location"][:, 1] = np.arange(vehicles) * 350.0  # lanes 3.5 m apart, in cm
    speed_cm = (5.0 + np.arange(vehicles)) * 100.0 * TICK  # 5..12 m/s per tick, in cm
    adds = [
        EventAddRecord(
            int(i),
            1,
            (0.0, float(y), 0.0),
            (0.0, 0.0, 0.0),
            int(i),
            "vehicle.audi.a2",
            [ActorAttribute(4, "role_name", "hero" if i == 1 else "autopilot")],
        )
        for i, y in zip(poses["id"], poses["location"][:, 1], strict=True)
    ]
    with LogWriter(path, map_name="town_small", date=0) as writer:
        for k in range(frames):
            packets: dict = {PacketId.Position: poses}
            if k == 0:
                packets[PacketId.EventAdd] = adds
            if k == 100:
                packets[PacketId.Collision] = [CollisionRecord(0, 1, 2, True, False)]
            writer.write_frame(TICK, packets, visual_time=k * TICK)
            if k == 100:
                speed_cm[vehicles - 1] = 0.0
            poses["location"][:, 0] += speed_cm


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    log_path = OUT / "sample.log"
    write_sample(log_path)
    log = open_log(log_path)
    print(f"wrote {log_path}: {log_path.stat().st_size} bytes, {len(log.frames)} frames")
    print("\n$ lockstep info -f sample.log   (first lines)")
    print("\n".join(query_info(log_path).splitlines()[:6]))
    print("\n$ lockstep collisions -f sample.log -t hv")
    print(query_collisions(log_path, "h", "v"))
    print("$ lockstep blocked -f sample.log -t 30 -d 100")
    print(query_blocked(log_path, 30, 100))
    for actor in log.actors[:2]:
        end = log.trajectory(actor.id)[-1]
        print(
            f"actor {actor.id} {actor.blueprint} ({actor.attributes['role_name']}): "
            f"x {end['x']:.2f} m at {end['elapsed']:.2f} s"
        )
    json_path = OUT / "sample.json"
    json_path.write_text(dump_json(dump_log(log_path)))
    same = build_log(dump_log(log_path)) == log_path.read_bytes()
    print(f"dumped to {json_path}; rebuilt from it: {'same bytes' if same else 'DIFFERENT'}")
    rows = log.export_csv(OUT / "sample.csv")
    print(f"exported {rows} poses to {OUT / 'sample.csv'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
