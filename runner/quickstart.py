"""`make run`: until the runner exists, a sample log written by lockstep's own recorder writer,
then the log tools on it (open_log, JSON dump and build, CSV export)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from recorder import LogWriter, PacketId, build_log, dump_json, dump_log, open_log
from recorder.packets import DTYPES, ActorAttribute, EventAddRecord

OUT = Path("runs/quickstart")


def write_sample(path: Path, frames: int = 200, vehicles: int = 8) -> None:
    """Vehicles driving east on parallel lanes at different speeds, 20 Hz."""
    poses = np.zeros(vehicles, DTYPES[PacketId.Position])
    poses["id"] = np.arange(1, vehicles + 1)
    poses["location"][:, 1] = np.arange(vehicles) * 350.0  # lanes 3.5 m apart, in cm
    speed_cm = (5.0 + np.arange(vehicles)) * 100.0 * 0.05  # 5..12 m/s per 0.05 s tick
    adds = [
        EventAddRecord(
            int(i), 1, (0.0, float(y), 0.0), (0.0, 0.0, 0.0), int(i), "vehicle.audi.a2",
            [ActorAttribute(4, "role_name", "hero" if i == 1 else "autopilot")],
        )
        for i, y in zip(poses["id"], poses["location"][:, 1], strict=True)
    ]  # fmt: skip
    with LogWriter(path, map_name="Town01", date=0) as writer:
        for k in range(frames):
            packets = {PacketId.Position: poses}
            if k == 0:
                packets[PacketId.EventAdd] = adds
            writer.write_frame(0.05, packets, visual_time=k * 0.05)
            poses["location"][:, 0] += speed_cm


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    log_path = OUT / "sample.log"
    write_sample(log_path)
    log = open_log(log_path)
    print(f"wrote {log_path}: {log_path.stat().st_size} bytes, {len(log.frames)} frames")
    for actor in log.actors[:3]:
        end = log.trajectory(actor.id)[-1]
        print(
            f"  actor {actor.id} {actor.blueprint} ({actor.attributes['role_name']}): "
            f"x {end['x']:.2f} m at {end['elapsed']:.2f} s"
        )
    json_path = OUT / "sample.json"
    json_path.write_text(dump_json(dump_log(log_path)))
    rebuilt = build_log(dump_log(log_path))
    same = rebuilt == log_path.read_bytes()
    print(f"dumped to {json_path}; rebuilt from it: {'same bytes' if same else 'DIFFERENT'}")
    rows = log.export_csv(OUT / "sample.csv")
    print(f"exported {rows} poses to {OUT / 'sample.csv'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
