"""WorldSettings: CARLA's fields and defaults, and the settings lockstep refuses."""

from __future__ import annotations

import math

import pytest

from world.errors import WorldError
from world.map.flat_map import FlatMap
from world.settings import EpisodeSettings, WorldSettings, substep_count
from world.world import World


def test_defaults_are_carlas_with_synchronous_mode():
    s = WorldSettings()
    assert s.synchronous_mode is True
    assert s.fixed_delta_seconds is None
    assert s.substepping is True
    assert s.max_substep_delta_time == 0.01
    assert s.max_substeps == 10
    assert s.no_rendering_mode is False
    assert EpisodeSettings is WorldSettings


@pytest.mark.parametrize(
    "fields, word",
    [
        ({"fixed_delta_seconds": None}, "required"),
        ({"fixed_delta_seconds": 0.0}, "> 0"),
        ({"fixed_delta_seconds": -0.05}, "> 0"),
        ({"fixed_delta_seconds": math.inf}, "finite"),
        ({"fixed_delta_seconds": math.nan}, "finite"),
        ({"fixed_delta_seconds": 0.05, "synchronous_mode": False}, "synchronous"),
        # CARLA's rule: 0.2 > 0.01 * 10 with substepping on
        ({"fixed_delta_seconds": 0.2}, "max_substep_delta_time * max_substeps"),
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


def test_tick_without_a_step_is_refused():
    with pytest.raises(WorldError, match="fixed_delta_seconds"):
        World(FlatMap()).tick()


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
    stamp = world.get_snapshot().timestamp
    assert stamp.frame == 3
    assert stamp.delta_seconds == 0.05
    assert stamp.elapsed_seconds == pytest.approx(0.15, abs=1e-12)
    assert stamp.platform_timestamp == 0.0
