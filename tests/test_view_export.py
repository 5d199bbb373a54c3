"""`lockstep export`: a route as MCAP (Foxglove's schemas, read back with the `mcap` reader and
its protobuf decoder) and as a Rerun recording (read back with rerun's RRD reader): one scene
update per frame with every actor, poses equal to the log's in float32 after the
right-handed turn (x, -y, z; the quaternion of roll, -pitch, -yaw), the infractions."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from view_helpers import rush_run

from recorder import PacketId, open_log
from runner.cli import main

MISSING = [m for m in ("foxglove", "mcap", "mcap_protobuf") if importlib.util.find_spec(m) is None]
NO_RERUN = importlib.util.find_spec("rerun") is None
for why in ([f"{', '.join(MISSING)} not installed"] if MISSING else []) + (
    ["rerun-sdk not installed"] if NO_RERUN else []
):
    print(f"test_view_export: some tests skipped: {why} (pip install 'lockstep[test]')",
          file=sys.stderr)  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return rush_run(tmp_path_factory.mktemp("rush"), routes="0")


def _drawn_poses(log) -> dict[int, dict[int, tuple]]:
    """Per frame (index): each vehicle's, walker's and prop's Position record."""
    kinds = {a.id: a for a in log.actors}
    out = {}
    for pos in range(len(log.frames)):
        out[pos] = {
            r.id: r
            for r in log.frames[pos].records(PacketId.Position)
            if r.id in kinds
            and (kinds[r.id].type in (1, 2) or kinds[r.id].blueprint.startswith("static."))
        }
    return out


def _quaternion(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """x, y, z, w of CARLA's rotation (degrees) turned right-handed, worked with math."""
    r, p, y = math.radians(roll) / 2, -math.radians(pitch) / 2, -math.radians(yaw) / 2
    cr, sr, cp, sp, cy, sy = (
        math.cos(r),
        math.sin(r),
        math.cos(p),
        math.sin(p),
        math.cos(y),
        math.sin(y),
    )
    return np.array([sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                     cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy])  # fmt: skip


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
def test_mcap_holds_every_frames_actors_at_the_logs_poses(run: Path, tmp_path: Path) -> None:
    from mcap.reader import make_reader
    from mcap_protobuf.decoder import DecoderFactory

    log_path = run / "RouteScenario_0_rep0.log"
    out = tmp_path / "route.mcap"
    assert main(["export", str(log_path), "--mcap", str(out)]) == 0
    log = open_log(log_path)
    poses = _drawn_poses(log)
    date_ns = log.header.date * 1_000_000_000
    times = [date_ns + round(f.elapsed * 1e9) for f in log.frames]
    updates, transforms, infractions = [], [], []
    with open(out, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for _, channel, message, decoded in reader.iter_decoded_messages():
            if channel.topic == "/actors":
                updates.append((message.log_time, decoded))
            elif channel.topic == "/tf":
                transforms.append((message.log_time, decoded))
            elif channel.topic == "/infractions/log":
                infractions.append(decoded)
    assert [t for t, _ in updates] == times == [t for t, _ in transforms]
    for pos, (_, update) in enumerate(updates):
        assert sorted(int(e.id) for e in update.entities) == sorted(poses[pos])
    for pos in (0, 100, len(times) - 1):
        for t in transforms[pos][1].transforms:
            record = poses[pos][int(t.child_frame_id.split("/")[1])]
            x, y, z = (np.float32(v / 100.0) for v in record.location)
            got = t.translation
            assert (np.float32(got.x), np.float32(got.y), np.float32(got.z)) == (x, -y, z)
            q = t.rotation
            want = _quaternion(*record.rotation)
            assert np.allclose([q.x, q.y, q.z, q.w], want, atol=1e-12)
    (collision,) = infractions
    assert "(x=167.703, y=1.75, z=0.0)" in collision.message
    assert collision.name == "collisions_vehicle"


@pytest.mark.skipif(bool(MISSING), reason=f"{', '.join(MISSING)} not installed")
def test_mcap_of_a_carla_log(shared: Path, tmp_path: Path) -> None:
    from mcap.reader import make_reader

    log_path = shared / "carla-logs" / "DistanceToLaneCenter_2020" / "recording.log"
    town = shared / "maps" / "carla" / "Town01.xodr"
    out = tmp_path / "carla.mcap"
    assert main(["export", str(log_path), "--map", str(town), "--mcap", str(out)]) == 0
    with open(out, "rb") as f:
        summary = make_reader(f).get_summary()
    counts = {
        summary.channels[k].topic: n for k, n in summary.statistics.channel_message_counts.items()
    }
    log = open_log(log_path)
    hero = next(a for a in log.actors if a.attributes.get("role_name") == "hero")
    assert counts["/actors"] == counts["/tf"] == len(log.frames) == 461
    assert counts["/hero/pose"] == len(log.trajectory(hero.id))  # the frames that place it
    assert counts["/map"] == 1


@pytest.mark.skipif(NO_RERUN, reason="rerun-sdk not installed")
def test_rerun_holds_the_heros_logged_pose(run: Path, tmp_path: Path) -> None:
    import rerun.chunk as rc

    log_path = run / "RouteScenario_0_rep0.log"
    out = tmp_path / "route.rrd"
    assert main(["export", str(log_path), "--rerun", str(out)]) == 0
    log = open_log(log_path)
    hero = next(a for a in log.actors if a.attributes.get("role_name") == "hero")
    want = {
        int(f): (np.float32(x), np.float32(-y), np.float32(z))
        for f, x, y, z in log.trajectory(hero.id)[["frame", "x", "y", "z"]].tolist()
    }
    got, boxes = {}, 0
    for chunk in rc.RrdReader(out).stream():
        if chunk.entity_path == "/world/hero":
            batch = chunk.to_record_batch()
            for frame, value in zip(batch.column("frame").to_pylist(),
                                    batch.column("Transform3D:translation").to_pylist(),
                                    strict=True):  # fmt: skip
                got[frame] = tuple(np.float32(v) for v in value[0])
        elif chunk.entity_path == "/world/actors":
            boxes += chunk.num_rows
    assert got == want
    assert boxes == len(log.frames)
