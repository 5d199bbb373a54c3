"""The Recorder on a live world: 600 ticks of the small generated town with autopilot
traffic, AI walkers and the map's lights, additional data on, held frame by frame against
what the world held after each tick (tests/recorder_runs.py)."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from recorder_runs import REPO, record_town

from recorder import (
    LogReader,
    PacketId,
    build_log,
    dump_log,
    open_log,
    query_blocked,
    query_collisions,
    query_info,
)

TICKS = 600


@pytest.fixture(scope="module")
def town(tmp_path_factory):
    return record_town(tmp_path_factory.mktemp("rec") / "town.log", TICKS)


def _frame_arrays(path: Path, packet: PacketId) -> list[np.ndarray]:
    """One array (or record list) per frame: the records of its packet of that kind."""
    log = open_log(path)
    out = []
    for frame in log.frames:
        found = None
        for raw in frame.packets():
            if raw.id == packet:
                codec = log.reader.codecs[packet]
                found = log.reader.array(raw) if codec.layout else log.reader.records(raw)
        out.append(found)
    return out


def _canonical_degrees(x: float) -> float:
    """An angle in (-180, 180]: IEEE remainder by 360 (exact), -180 taken as 180."""
    r = math.remainder(x, 360.0)
    return 180.0 if r == -180.0 else r


def test_every_frame_positions_equal_the_world_after_its_tick(town):
    frames = _frame_arrays(town.path, PacketId.Position)
    assert len(frames) == TICKS
    moved = 0
    for k, (records, state) in enumerate(zip(frames, town.ticks, strict=True)):
        assert records["id"].tolist() == state.ids.tolist(), f"frame {k + 1}"
        assert np.array_equal(records["location"], state.location_cm), f"frame {k + 1}"
        for rec_rot, (pitch, yaw, roll) in zip(records["rotation"], state.rotation, strict=True):
            assert abs(pitch) <= 90.0  # no body in the town tips over
            want = np.array([_canonical_degrees(roll), pitch, _canonical_degrees(yaw)], np.float32)
            want[[0, 2]] = np.where(want[[0, 2]] == -180.0, 180.0, want[[0, 2]])  # range's end
            assert rec_rot.tolist() == want.tolist(), f"frame {k + 1}"
        if k and not np.array_equal(records["location"], frames[k - 1]["location"][: len(records)]):
            moved += 1
    assert moved > TICKS // 2  # the traffic moves


def test_turning_cars_yaw_is_kept_in_carla_range(town):
    """Cars turn through south (yaw 180) and the world and the log keep yaw in (-180, 180]
    (a float32 rounding to -180 is written as 180)."""
    raw = np.concatenate([t.rotation[:, 1] for t in town.ticks])
    assert raw.max() > 170.0 and raw.min() < -170.0, "no car turned through 180 degrees"
    assert raw.max() <= 180.0 and raw.min() > -180.0
    logged = np.concatenate(
        [r["rotation"][:, 2] for r in _frame_arrays(town.path, PacketId.Position)]
    )
    assert logged.max() <= 180.0 and logged.min() > -180.0


def test_every_frame_light_states_equal_the_world(town):
    frames = _frame_arrays(town.path, PacketId.State)
    assert len(town.ticks[0].light_ids) > 0
    changed = 0
    for k, (records, state) in enumerate(zip(frames, town.ticks, strict=True)):
        assert records["id"].tolist() == state.light_ids.tolist()
        assert records["state"].tolist() == state.light_state.tolist(), f"frame {k + 1}"
        assert records["elapsed"].tolist() == state.light_elapsed.tolist(), f"frame {k + 1}"
        assert not records["frozen"].any()
        if k and records["state"].tolist() != frames[k - 1]["state"].tolist():
            changed += 1
    assert changed >= 2  # 600 ticks of 0.05 s see the lights change


def test_adds_and_deletes_match_spawns_and_destroys(town):
    adds = _frame_arrays(town.path, PacketId.EventAdd)
    dels = _frame_arrays(town.path, PacketId.EventDel)
    parents = _frame_arrays(town.path, PacketId.EventParent)
    first = {r.id for r in adds[0]}
    assert first == town.ticks[0].alive
    for k in range(1, TICKS):
        added = {r.id for r in adds[k]}
        want = {i for i, t in town.spawned.items() if t == k + 1}
        assert added == want, f"frame {k + 1}"
        gone = set(dels[k]["id"].tolist())
        assert gone == {i for i, t in town.destroyed.items() if t == k + 1}, f"frame {k + 1}"
        assert (town.ticks[k - 1].alive | added) - gone == town.ticks[k].alive
    # the sensor spawned attached: its pose in the hero's frame, then its parent
    sensor_add = next(r for r in adds[2] if r.id == town.sensor)
    assert sensor_add.location == (0.0, 0.0, 0.0) and sensor_add.type == 5
    assert parents[2].tolist() == [(town.sensor, town.hero)]
    assert all(len(p) == 0 for k, p in enumerate(parents) if k != 2)
    hero_add = next(r for r in adds[0] if r.id == town.hero)
    assert {a.id: (a.type, a.value) for a in hero_add.attributes}["role_name"] == (3, "hero")


def test_collisions_appear_once_per_pair_in_the_order_they_happened(town):
    frames = _frame_arrays(town.path, PacketId.Collision)
    numbers = []
    for k, (records, state) in enumerate(zip(frames, town.ticks, strict=True)):
        pairs = list(zip(records["id1"].tolist(), records["id2"].tolist(), strict=True))
        assert len(pairs) == len(set(pairs))
        sensing = k + 1 >= 3 and k + 1 <= 30  # the sensor lives from tick 3 to tick 30
        assert pairs == ([(town.hero, o) for o in state.hero_hits] if sensing else []), k + 1
        assert records["hero1"].all() and not records["hero2"].any()
        numbers += records["id"].tolist()
    assert len(numbers) >= 5 and numbers == list(range(len(numbers)))


def test_a_destroyed_collision_sensor_is_released_once(town):
    """Destroyed after tick 30's collisions: frame 30 holds its deletion and what it heard
    in that tick; no later frame deletes it again."""
    dels = _frame_arrays(town.path, PacketId.EventDel)
    collisions = _frame_arrays(town.path, PacketId.Collision)
    assert town.ticks[29].hero_hits, "the hero touches the victim in tick 30"
    assert town.sensor in dels[29]["id"].tolist()
    assert len(collisions[29]) == len(town.ticks[29].hero_hits)
    assert sum(town.sensor in d["id"].tolist() for d in dels) == 1


def test_first_frame_holds_every_actor_and_the_weather(town):
    log = open_log(town.path)
    first = log.frames[0]
    adds = first.records(PacketId.EventAdd)
    assert [r.id for r in adds] == sorted(town.ticks[0].alive)
    assert adds[0].blueprint == "spectator" and adds[0].uid == 0
    assert first.records(PacketId.EventParent) == []
    assert len(first.records(PacketId.Weather)) == 1
    assert all(len(f.records(PacketId.Weather)) == 0 for f in log.frames[1:])
    kinds = Counter(r.type for r in adds)
    assert kinds[1] >= 10 and kinds[2] >= 5 and kinds[3] > 0 and kinds[4] > 0
    # additional data: a box for each actor that is not a light or sign, a trigger volume for
    # each light and sign with a road box, a physics control for each car, light times
    boxes = first.records(PacketId.BoundingBox)
    assert [b.id for b in boxes] == [r.id for r in adds if r.type not in (3, 4)]
    assert [p.id for p in first.records(PacketId.PhysicsControl)] == [
        r.id for r in adds if r.type == 1
    ]
    assert len(first.records(PacketId.TrafficLightTime)) == kinds[3]
    assert first.records(PacketId.TrafficLightTime)[0].green_time == 10.0


def test_frame_times_are_carlas(town):
    index = LogReader(town.path).frame_index
    assert index.frame_id.tolist() == list(range(1, TICKS + 1))
    assert index.elapsed[0] == 0.0 and index.duration[-1] == -1.0
    assert np.all(index.duration[:-1] == 0.05)
    elapsed = 0.0
    for k in range(1, TICKS):
        elapsed += 0.05
        assert index.elapsed[k] == elapsed


def test_queries_on_the_log_equal_those_on_its_json_rebuild(town, tmp_path):
    rebuilt = tmp_path / "rebuilt.log"
    rebuilt.write_bytes(build_log(dump_log(town.path)))
    assert rebuilt.read_bytes() == town.path.read_bytes()
    for show_all in (False, True):
        assert query_info(town.path, show_all) == query_info(rebuilt, show_all)
    for c1, c2 in (("a", "a"), ("h", "v"), ("v", "v"), ("h", "a")):
        assert query_collisions(town.path, c1, c2) == query_collisions(rebuilt, c1, c2)
    assert "vehicle.lincoln.mkz_2017" in query_collisions(town.path, "a", "a")
    for t, d in ((30, 10), (5, 100), (1, 1)):
        assert query_blocked(town.path, t, d) == query_blocked(rebuilt, t, d)


def _masked(path: Path) -> bytes:
    """A log with its header date and PlatformTime values zeroed (the two allowed to vary)."""
    data = bytearray(path.read_bytes())
    reader = LogReader(bytes(data))
    date_at = 2 + 2 + len(reader.header.magic)
    data[date_at : date_at + 8] = bytes(8)
    table = reader.packet_table
    for offset in table.offset[table.id == PacketId.PlatformTime].tolist():
        data[offset + 5 : offset + 13] = bytes(8)
    return bytes(data)


def test_two_recordings_of_one_seeded_run_are_the_same_bytes(tmp_path):
    a = record_town(tmp_path / "a.log", 150, date=1)
    b = record_town(tmp_path / "b.log", 150, date=2)
    assert a.path.read_bytes() != b.path.read_bytes()  # the date and platform times differ
    assert _masked(a.path) == _masked(b.path)


_CRASHING = """
import os, sys
sys.path.insert(0, {tests!r})
from recorder_runs import record_town
import recorder.live.recorder as rr
calls = 0
original = rr.Recorder.record
def record(self, world):
    global calls
    calls += 1
    if calls == 41:
        os._exit(3)  # dies as a killed run does: no stop, nothing closed
    return original(self, world)
rr.Recorder.record = record
record_town(__import__("pathlib").Path({path!r}), 100)
"""


def test_a_killed_run_leaves_its_frames_readable(tmp_path):
    path = tmp_path / "killed.log"
    code = _CRASHING.format(tests=str(REPO / "tests"), path=str(path))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, timeout=300)
    assert done.returncode == 3
    log = open_log(path)
    assert len(log.frames) == 40 and log.frames[-1].duration == -1.0
    assert "\nFrames: 40\n" in query_info(path, False)
    # cut inside the last frame: the lenient reader keeps the 39 whole ones
    data = path.read_bytes()
    cut = tmp_path / "cut.log"
    cut.write_bytes(data[: int(log.frames[-1].offset) + 100])
    assert len(open_log(cut, lenient=True).frames) == 39
    cli = subprocess.run(
        [sys.executable, "-m", "runner.cli", "info", "-f", str(cut)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert "Frames: 39\n" in cli.stdout
