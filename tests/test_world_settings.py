"""WorldSettings: CARLA's fields and defaults, and the settings lockstep refuses."""

from __future__ import annotations

import math

import pytest

from world.errors import WorldError
from world.map.flat_map import FlatMap
from world.settings import EpisodeSettings, WorldSettings, substep_count
from world.world import World


def test_defaults_are_carlas():
    s = WorldSettings()
    assert s.synchronous_mode is False
    assert s.fixed_delta_seconds is None
    assert s.substepping is True
    assert s.max_substep_delta_time == 0.01
    assert s.max_substeps == 10
    assert s.no_rendering_mode is False
    assert EpisodeSettings is WorldSettings


@pytest.mark.parametrize(
    "fields, word",
    [
        ({"fixed_delta_seconds": math.inf}, "finite"),
        ({"fixed_delta_seconds": math.nan}, "finite"),
        ({"fixed_delta_seconds": "0.05"}, "a number or None"),
        ({"fixed_delta_seconds": 0.05, "max_substeps": 0}, "max_substeps"),
        ({"fixed_delta_seconds": 0.05, "max_substep_delta_time": math.nan}, "finite"),
    ],
)
def test_invalid_settings_are_refused_and_nothing_changes(fields, word):
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.025))
    with pytest.raises(WorldError, match=word.replace("*", r"\*").replace("+", r"\+")):
        world.apply_settings(WorldSettings(**fields))
    assert world.get_settings().fixed_delta_seconds == 0.025


def test_a_step_of_zero_or_less_is_the_variable_step_as_in_carla():
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.0))
    assert world.get_settings().fixed_delta_seconds is None
    world.apply_settings(WorldSettings(fixed_delta_seconds=-0.05))
    assert world.get_settings().fixed_delta_seconds is None


def test_without_substepping_a_long_step_is_allowed():
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.2, substepping=False))
    assert world.tick() == 1


def test_apply_settings_returns_the_frame_and_get_settings_is_a_copy():
    world = World(FlatMap())
    assert world.apply_settings(WorldSettings(fixed_delta_seconds=0.05)) == 0
    world.tick()
    copy = world.get_settings()
    copy.fixed_delta_seconds = 1.0
    assert world.get_settings().fixed_delta_seconds == 0.05
    assert world.apply_settings(WorldSettings(fixed_delta_seconds=0.05)) == 1


def test_a_variable_step_is_a_fixed_twentieth_said_once(capsys):
    world = World(FlatMap())  # CARLA's defaults: asynchronous, fixed_delta_seconds None
    world.tick()
    world.tick()
    assert world.clock().delta_seconds == 0.05
    assert world.get_settings().fixed_delta_seconds is None
    assert capsys.readouterr().err.count("fixed_delta_seconds is None") == 1


def test_a_step_over_the_substep_limit_is_accepted_with_carla_s_warning(capsys):
    world = World(FlatMap())
    # 0.2 > 0.01 * 10: CARLA's client warns, and Unreal cuts the step into 10 substeps
    settings = WorldSettings(synchronous_mode=True, fixed_delta_seconds=0.2)
    world.apply_settings(settings)
    assert "fulfil fixed_delta_seconds <= max_substep_delta_time * max_substeps" in (
        capsys.readouterr().err
    )
    assert substep_count(settings) == 10
    assert world.tick() == 1


def test_synchronous_mode_with_a_variable_step_gets_carla_s_warning(capsys):
    World(FlatMap()).apply_settings(WorldSettings(synchronous_mode=True))
    assert "synchronous mode enabled with variable delta seconds" in capsys.readouterr().err


def test_asynchronous_mode_advances_one_step_per_wait_and_synchronous_does_not():
    world = World(FlatMap())
    world.apply_settings(WorldSettings(synchronous_mode=False, fixed_delta_seconds=0.1))
    assert world.wait_for_tick().frame == 1
    assert world.wait_for_tick().frame == 2
    world.apply_settings(WorldSettings(synchronous_mode=True, fixed_delta_seconds=0.1))
    assert world.wait_for_tick().frame == 2
    assert world.tick() == 3


def test_interrupt_at_frame_completes_the_tick_then_interrupts_once():
    world = World(FlatMap())
    world.interrupt_at_frame = 2
    frames = []
    world.on_tick(lambda snapshot: frames.append(snapshot.frame))
    world.tick()
    with pytest.raises(KeyboardInterrupt):
        world.wait_for_tick()
    assert frames == [1, 2]
    assert world.tick() == 3  # once only: the script's clean-up may tick again


@pytest.mark.parametrize(
    "dt, sub, count, expected",
    [
        (0.05, 0.01, 10, 5),  # 0.05 / 0.01 is 5.000000000000001 in floats: still 5
        (0.1, 0.01, 10, 10),
        (0.029, 0.01, 10, 3),  # ceil(2.9)
        (0.005, 0.01, 10, 1),
        (0.07, 0.025, 10, 3),  # ceil(2.8)
    ],
)
def test_fewest_substeps_no_longer_than_the_maximum(dt, sub, count, expected):
    s = WorldSettings(fixed_delta_seconds=dt, max_substep_delta_time=sub, max_substeps=count)
    s.validate()
    assert substep_count(s) == expected
    assert dt / expected <= sub + 1e-12


def test_timestamps_advance_by_the_fixed_step():
    world = World(FlatMap())
    world.apply_settings(WorldSettings(fixed_delta_seconds=0.05))
    for _ in range(3):
        world.tick()
    stamp = world.clock()
    assert stamp.frame == 3
    assert stamp.delta_seconds == 0.05
    assert stamp.elapsed_seconds == 0.05 + 0.05 + 0.05
    # what a client reads carries Unreal's float32 tick delta, as CARLA's Timestamp does:
    # float32(0.05) = 0.0500000007450580596923828125, summed in doubles
    client = world.get_snapshot().timestamp
    assert client.frame == 3
    assert client.delta_seconds == 0.0500000007450580596923828125
    assert client.elapsed_seconds == 0.0500000007450580596923828125 * 3
    assert stamp.platform_timestamp == 0.0
