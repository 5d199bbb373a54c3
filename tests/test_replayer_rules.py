"""The seed's worked examples of the replayer, checked by hand against CARLA's rules."""

from __future__ import annotations

import math

import pytest
from replay_logs import CAR, WALKER, two_actor_log
from world_helpers import flat_world

from recorder.errors import ReplayError
from recorder.replay.pose_math import f32, lerp_angle
from recorder.replay.replayer import Replayer
from recorder.replay.standin import RecordingHelper, StandinWorld

F32_005 = 0.05000000074505806  # float(0.05): what a world tick of 0.05 s hands the replayer


def recorded(tmp_path, data: bytes, factor: float = 1.0):
    """A replayer over a stand-in world that collects its calls, with the log on disk."""
    path = tmp_path / "run.log"
    path.write_bytes(data)
    calls: list[dict] = []
    replayer = Replayer(RecordingHelper(StandinWorld(1), calls.append))
    replayer.set_time_factor(factor)
    return replayer, path, calls


def positions(calls: list[dict], actor: int) -> list[dict]:
    return [c for c in calls if c["call"] == "ProcessReplayerPosition" and c["id1"] == actor]


def test_fraction_is_time_into_the_frame_over_its_duration(tmp_path):
    replayer, path, calls = recorded(tmp_path, two_actor_log([0.0, 100.0, 300.0, 600.0]))
    replayer.replay_file(None, path)
    for _ in range(3):
        calls.clear()
        replayer.tick(0.05)
    # t = 3 * float(0.05) lies in frame 1 (t(1) = 0.1, d(1) = 0.1): per = (t - 0.1) / 0.1
    t = 3 * F32_005
    (car,) = positions(calls, CAR)
    assert replayer.current_time == t
    assert car["per"] == (t - 0.1) / 0.1
    # one frame behind: between frame 0 (x = 0) and frame 1 (x = 100 cm)
    assert car["loc1"][0] == 0.0 and car["loc2"][0] == 100.0
    assert car["location"][0] == f32(f32((t - 0.1) / 0.1) * 100.0)


def test_angle_from_174_to_minus_178_passes_180():
    assert lerp_angle(174.0, -178.0, 0.5) == 178.0
    assert lerp_angle(174.0, -178.0, 0.75) == 180.0
    assert lerp_angle(-178.0, 174.0, 0.5) == -182.0  # the short way, not wrapped after


def test_no_interpolation_at_time_factor_2(tmp_path):
    replayer, path, calls = recorded(tmp_path, two_actor_log([0.0, 100.0, 300.0, 600.0]), 2.0)
    replayer.replay_file(None, path)
    replayer.tick(0.05)  # t = 0.1: frame 1 found
    calls.clear()
    replayer.tick(0.025)  # t = 0.15: still frame 1, half way
    (car,) = positions(calls, CAR)
    assert car["per"] == 0.0
    assert car["location"] == car["loc1"] == [0.0, 0.0, 0.0]  # frame 0's pose exactly


def _world_replay(tmp_path, data: bytes):
    world = flat_world(0.1)
    path = tmp_path / "run.log"
    path.write_bytes(data)
    replayer = Replayer()
    replayer.replay_file(world, path)
    return world, replayer


def _live_types(world) -> list[str]:
    return sorted(a.type_id for a in world.get_actors() if a.type_id != "spectator")


def test_a_replay_stopping_at_its_end_keeps_its_actors(tmp_path):
    world, replayer = _world_replay(tmp_path, two_actor_log([0.0, 100.0, 300.0, 600.0]))
    steps = 0
    while replayer.is_enabled():
        replayer.step(world)
        steps += 1
    assert steps == 3  # 0.3 s of log at 0.1 s a tick
    assert _live_types(world) == ["vehicle.tesla.model3", "walker.pedestrian.0001"]
    car = next(a for a in world.get_actors() if a.type_id == "vehicle.tesla.model3")
    # the end of a replay gives the car back to physics, stopped, in first gear
    row = car.id - 1
    assert world._vehicles.control_gear[world._actors.vrow[row]] == 1  # the control applied
    assert world._actors.simulate_physics[row] and world._actors.gravity[row]
    assert car.get_velocity().length() == 0.0


def test_stop_runs_the_rest_of_the_events_unless_it_keeps_the_actors(tmp_path):
    data = two_actor_log([0.0, 100.0, 300.0, 600.0], delete_car_in_last_frame=True)
    world, replayer = _world_replay(tmp_path, data)
    replayer.step(world)
    replayer.stop()  # the car's EventDel of the last frame runs first
    assert _live_types(world) == ["walker.pedestrian.0001"]

    world, replayer = _world_replay(tmp_path, data)
    replayer.step(world)
    replayer.stop(keep_actors=True)
    assert _live_types(world) == ["vehicle.tesla.model3", "walker.pedestrian.0001"]


def test_gait_after_a_seek_equals_gait_played_from_the_start(tmp_path):
    speeds = [0.0, 80.0, 140.0, 140.0, 120.0, 60.0, 0.0, 0.0]
    data = two_actor_log([0.0] * 8, walker_speed=speeds)
    world, played = _world_replay(tmp_path, data)
    walker = played.mapped_ids[WALKER]
    for _ in range(5):
        played.step(world)
    t = played.current_time
    assert 0.5 < t < 0.6
    gait = played.walker_gait(walker)
    # walked: 80, 140, 140, 120 cm/s over whole frames of 0.1 s, then 60 cm/s for t - 0.5
    walked = 8.0 + 14.0 + 14.0 + 12.0 + 60.0 * (t - 0.5)
    assert gait is not None and math.isclose(gait[0], walked / 130.0 % 1.0, rel_tol=1e-12)

    world2 = flat_world(0.1)
    seeked = Replayer()
    path = tmp_path / "run.log"
    seeked.replay_file(world2, path, time_start=t)
    assert seeked.walker_gait(seeked.mapped_ids[WALKER]) == gait


@pytest.mark.parametrize("delta", [-0.05, math.nan, math.inf])
def test_bad_time_advances_raise_before_anything_changes(tmp_path, delta):
    world, replayer = _world_replay(tmp_path, two_actor_log([0.0, 100.0, 300.0]))
    before = (replayer.current_time, world.get_snapshot().frame)
    with pytest.raises(ReplayError):
        replayer.tick(delta)
    world.apply_settings(world.get_settings())
    assert (replayer.current_time, world.get_snapshot().frame) == before
    assert replayer.is_enabled()


def test_step_checks_the_scaled_time_before_the_world_ticks(tmp_path):
    world, replayer = _world_replay(tmp_path, two_actor_log([0.0, 100.0, 300.0]))
    replayer.current_time = 1.7e308
    replayer.set_time_factor(1e308)  # 0.1 s of world time adds 1e307: the replay time overflows
    frame = world.get_snapshot().frame
    with pytest.raises(ReplayError, match="overflows"):
        replayer.step(world)
    assert world.get_snapshot().frame == frame


def test_an_invalid_frame_duration_raises_and_disables_the_replay(tmp_path):
    from recorder.logfile.writer import LogWriter

    w = LogWriter(None, map_name="test", date=0, version=2)
    for delta in (0.1, math.nan, 0.1):  # the second frame's delta is the first's duration
        w.write_frame(delta)
    replayer, path, _ = recorded(tmp_path, w.getvalue())
    with pytest.raises(ReplayError, match="duration nan"):
        replayer.replay_file(None, path, time_start=0.05)
    assert not replayer.is_enabled()


def test_the_spectator_follows_the_logged_actor_at_the_offset(tmp_path):
    world = flat_world(0.1)
    path = tmp_path / "run.log"
    path.write_bytes(two_actor_log([0.0, 100.0, 300.0, 600.0]))
    replayer = Replayer()
    replayer.replay_file(world, path, follow_id=CAR)
    replayer.step(world)
    car = world.get_actor(replayer.mapped_ids[CAR]).get_location()
    spectator = world.get_spectator().get_transform()
    # the default offset: 10 m behind, 5 m up, pitched down 25 degrees, in the car's frame
    assert math.isclose(spectator.location.x, car.x - 10.0, abs_tol=1e-9)
    assert math.isclose(spectator.location.z, car.z + 5.0, abs_tol=1e-9)
    assert math.isclose(spectator.rotation.pitch, -25.0, abs_tol=1e-9)
