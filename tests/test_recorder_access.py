"""open_log: frames, actors, poses and trajectories, checked against golden SPEC.json values."""

from __future__ import annotations

import csv
import struct

import numpy as np
import pytest

from recorder import LogReader, build_log, dump_log, open_log
from recorder.logfile.packet_ids import PacketId


@pytest.fixture(scope="module")
def edge(shared):
    return open_log(shared / "carla-golden" / "edge_cases" / "recording.log")


# edge_cases/SPEC.json, read by hand: deltas 0.05, 0.05, 0.1, 0.1, 12.5 x4, 0.05 x3 (the first
# is ignored), so the frames start at 0, 0.05, 0.15, 0.25, 12.75, 25.25, 37.75, 50.25, 50.3,
# 50.35, 50.4. Actor 11 (vehicle.audi.a2, role hero) is added in frame 4 and has positions
# x = 100, 110, 120, 130, 140 cm, y = -50.5 cm in frames 4-8, then (600, 0, 0) in frame 11.
# Actor 12 (a walker) is added in frame 4 and removed in frame 9.
ELAPSED = [0.0, 0.05, 0.15, 0.25, 12.75, 25.25, 37.75, 50.25, 50.3, 50.35, 50.4]


def test_frames_are_lazy_views_of_the_index(edge):
    assert len(edge.frames) == 11
    assert [f.id for f in edge.frames] == list(range(1, 12))
    np.testing.assert_allclose([f.elapsed for f in edge.frames], ELAPSED, rtol=0, atol=1e-12)
    assert edge.frames[-1].duration == -1.0
    assert [p.id for p in edge.frames[0].packets()] == [0, 1]  # frame 1 is bare


def test_actors(edge):
    by_id = {a.id: a for a in edge.actors}
    hero = by_id[11]
    assert (hero.type, hero.blueprint, hero.attributes) == (
        1,
        "vehicle.audi.a2",
        {"role_name": "hero"},
    )
    assert (hero.first_frame, hero.last_frame) == (4, 11)
    assert (by_id[12].type, by_id[12].first_frame, by_id[12].last_frame) == (2, 4, 9)


def test_trajectory_in_metres(edge):
    t = edge.trajectory(11)
    assert t["frame"].tolist() == [4, 5, 6, 7, 8, 11]
    assert t["x"].tolist() == [1.0, 1.1, 1.2, 1.3, 1.4, 6.0]
    assert t["y"].tolist() == [-0.505] * 5 + [0.0]
    np.testing.assert_allclose(t["elapsed"], [0.25, 12.75, 25.25, 37.75, 50.25, 50.4], atol=1e-12)
    assert list(t.dtype.names) == ["frame", "elapsed", "x", "y", "z", "roll", "pitch", "yaw"]


def test_rotation_order_roll_pitch_yaw(shared):
    # all_packets frame 2: actor 24's rotation is [0.1, 0.2, -179.0] = (roll, pitch, yaw).
    log = open_log(shared / "carla-golden" / "all_packets" / "recording.log")
    row = log.trajectory(24)[1]
    assert row["frame"] == 2
    assert (row["roll"], row["pitch"], row["yaw"]) == (
        float(np.float32(0.1)),
        float(np.float32(0.2)),
        -179.0,
    )


def test_csv_export(edge, tmp_path):
    path = tmp_path / "poses.csv"
    rows = edge.export_csv(path)
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    assert table[0] == [
        "frame",
        "elapsed",
        "id",
        "type",
        "blueprint",
        "x",
        "y",
        "z",
        "roll",
        "pitch",
        "yaw",
    ]
    assert len(table) == rows + 1
    hero = [r for r in table[1:] if r[2] == "11"]
    assert [r[0] for r in hero] == ["4", "5", "6", "7", "8", "11"]
    assert hero[1][3:6] == ["1", "vehicle.audi.a2", "1.1"]


def _ue5_log() -> bytes:
    """A CARLA 0.10 (UE5) log by hand: header version 1, vectors as doubles, VehicleDoor = 21."""
    header = struct.pack("<HH", 1, 14) + b"CARLA_RECORDER" + struct.pack("<qH", 0, 2) + b"T5"
    start = struct.pack("<BIQdd", 0, 24, 1, -1.0, 0.0)
    add = struct.pack("<HIB3d3dI", 1, 7, 1, 150.0, -20.0, 5.0, 0.0, 0.0, 3.0, 70)
    add += struct.pack("<H", 4) + b"car1" + struct.pack("<H", 0)
    position = struct.pack("<HI6d", 1, 7, 150.0, -20.0, 5.0, 1.0, 2.0, 3.0)
    door = struct.pack("<HIB?", 1, 7, 4, True)
    packets = [(PacketId.EventAdd, add), (PacketId.Position, position), (21, door)]
    body = b"".join(struct.pack("<BI", pid, len(b)) + b for pid, b in packets)
    return header + start + body + struct.pack("<BI", 1, 0)


def test_ue5_log_is_detected_and_decoded():
    opened = open_log(_ue5_log())
    reader = opened.reader
    assert reader.variant == "ue5"
    # A plain LogReader keeps UE4 layouts (what packet consumers expect) but can tell.
    plain = LogReader(_ue5_log())
    assert (plain.variant, plain.detect_variant()) == ("ue4", "ue5")
    row = opened.poses()[0]
    assert (row["id"], row["x"], row["y"], row["z"], row["yaw"]) == (7, 1.5, -0.2, 0.05, 3.0)
    assert [(a.id, a.blueprint) for a in opened.actors] == [(7, "car1")]
    assert reader.kind(21) == PacketId.VehicleDoor
    (door,) = opened.frames[0].records(PacketId.VehicleDoor)
    assert (door.id, door.doors, door.open) == (7, 4, True)


def test_ue5_log_dumps_raw_and_rebuilds():
    log = _ue5_log()
    spec = dump_log(log)
    items = spec["frames"][0]["packets"]
    assert [item["id"] for item in items] == [2, 6, 21]
    assert build_log(spec) == log


def test_trajectories_split_by_actor(edge):
    every = edge.trajectories()
    # Actors with a position, in the order they first appear in edge_cases' frames.
    assert list(every)[:3] == [10, 11, 12]
    assert every[11].tolist() == edge.trajectory(11).tolist()
    # Actor 12 has positions in frames 4-9 and, after its EventDel in frame 9, again in 11.
    assert every[12]["frame"].tolist() == [4, 5, 6, 7, 8, 9, 11]
