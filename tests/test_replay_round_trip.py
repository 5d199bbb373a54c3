"""Record a generated town with traffic, walkers and lights, replay the log into a fresh
world, and check the replay frame by frame against the log.

With a tick of 1/16 s every replay time n/16 s equals frame n's time exactly, so the
fraction is 0 and, by the one-frame-behind rule, each actor shows its pose of frame n-1
(an actor new in frame n: its pose of frame n), float32 for float32. Light states are
frame n's, and the replayed actors are the ones the log has alive at frame n. The last
frame's poses and states are never played (CARLA's rule).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recorder import Recorder, Replayer, open_log
from recorder.logfile.packet_ids import PacketId
from recorder.replay.pose_math import f32

TOWN = Path(__file__).resolve().parents[1] / "configs" / "maps" / "town_small.xodr"
DT = 0.0625  # exact in float32 and in sums of doubles
TICKS = 600


def _world():
    from world.map.map import Map
    from world.settings import WorldSettings
    from world.world import World

    world = World(Map.from_file(TOWN))
    world.apply_settings(WorldSettings(fixed_delta_seconds=DT))
    return world


def _pose_of(actor) -> tuple[tuple[float, ...], tuple[float, ...]]:
    t = actor.get_transform()
    loc = tuple(f32(v * 100.0) for v in (t.location.x, t.location.y, t.location.z))
    rot = tuple(f32(v) for v in (t.rotation.roll, t.rotation.pitch, t.rotation.yaw))
    return loc, rot


@pytest.fixture(scope="module")
def recorded_log(tmp_path_factory) -> Path:
    from world.traffic.scene import populate_traffic

    world = _world()
    scene = populate_traffic(world, 20, 10, 7)
    assert len(scene.vehicles) == 20 and len(scene.walkers) == 10
    path = tmp_path_factory.mktemp("round_trip") / "run.log"
    recorder = Recorder()
    recorder.start(world, path, "town_small", additional_data=True, date=0)
    for _ in range(TICKS):
        recorder.tick(world)
    recorder.stop()
    return path


def test_replay_follows_the_log_frame_by_frame(recorded_log):
    log = open_log(recorded_log)
    frames = log.frames
    assert len(frames) == TICKS
    positions = [{r.id: r for r in f.records(PacketId.Position)} for f in frames]
    states = [f.records(PacketId.State) for f in frames]
    alive: list[set[int]] = []
    live: set[int] = set()
    for f in frames:
        live |= {r.id for r in f.records(PacketId.EventAdd)}
        live -= {r.id for r in f.records(PacketId.EventDel)}
        alive.append(set(live))
    spectator = next(a.id for a in log.actors if a.blueprint == "spectator")
    assert sum(1 for s in states if s) == TICKS  # every frame has its lights' states
    moves = sum(
        1
        for n in range(1, TICKS)
        for i, r in positions[n].items()
        if i in positions[n - 1] and r.location != positions[n - 1][i].location
    )
    assert moves > 10_000  # the traffic and the walkers do move

    world = _world()
    replayer = Replayer()
    replayer.replay_file(world, recorded_log)
    own = {a.id for a in world.get_actors()}  # the spectator and the map's lights and signs
    checked_poses = checked_lights = 0
    for n in range(1, TICKS):
        replayer.step(world)
        assert replayer.current_time == n * DT == frames[n].elapsed
        mapped = replayer.mapped_ids
        # the live actors: the log's at frame n, and nothing else was spawned
        shown = {log_id for log_id, wid in mapped.items() if world.get_actor(wid) is not None}
        assert shown == alive[n] - {spectator}, f"frame {n}"
        extra = {a.id for a in world.get_actors()} - own - set(mapped.values())
        assert not extra, f"frame {n}: actors the log does not have: {extra}"
        # poses one frame behind; the last frame (duration -1) is never found, so its poses
        # and states are not played: the actors keep the poses of the step before
        last = n == TICKS - 1
        for log_id, record in positions[n - 1 if last else n].items():
            if log_id == spectator:
                continue
            before = positions[n - 2 if last else n - 1].get(log_id, record)
            got = _pose_of(world.get_actor(mapped[log_id]))
            assert got == (tuple(before.location), tuple(before.rotation)), (n, log_id)
            checked_poses += 1
        # lights: frame n's states
        for state in [] if last else states[n]:
            light = world.get_actor(mapped[state.id])
            assert int(light.get_state()) == state.state, (n, state.id)
            checked_lights += 1
    assert not replayer.is_enabled()  # the last step reached the end and kept the actors
    assert checked_poses > 20_000 and checked_lights > 1_000
