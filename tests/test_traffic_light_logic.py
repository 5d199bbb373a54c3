"""Light cycles worked by hand from CARLA's controller rules (seed: Traffic lights)."""

from __future__ import annotations

import numpy as np
import pytest

from world.actors.vehicle_state import TrafficLightState as S
from world.errors import WorldError
from world.traffic.signals.lights import STAGE_STATES, TrafficLightGroups


def run(groups: TrafficLightGroups, ticks: int, dt: float = 0.25) -> list[list[S]]:
    """The states of every light after each of `ticks` ticks."""
    out = []
    for _ in range(ticks):
        groups.tick(dt)
        out.append([S(int(v)) for v in groups.state])
    return out


def test_green_turns_yellow_on_tick_41_with_quarter_second_ticks():
    # 40 ticks of 0.25 s give exactly 10.0 s, not past the green time; tick 41 is past it.
    groups = TrafficLightGroups([[[0]]])
    states = run(groups, 41)
    assert states[39] == [S.Green]
    assert groups.get_elapsed_time(0) == 0.0  # restarted on the change
    assert states[40] == [S.Yellow]


def test_two_controllers_take_turns_and_the_other_stays_red():
    # Controller A (light 0) starts green, B (lights 1, 2) red.
    # A: green ticks 1-40, yellow from tick 41 (elapsed 0 there) for ticks 42..53 (3.0 s at 53),
    # red from tick 54, red reaches 2.0 s on tick 62, so on tick 63 B starts green.
    groups = TrafficLightGroups([[[0], [1, 2]]])
    assert [S(int(v)) for v in groups.state] == [S.Green, S.Red, S.Red]
    states = run(groups, 63)
    assert states[40] == [S.Yellow, S.Red, S.Red]
    assert states[52] == [S.Yellow, S.Red, S.Red]
    assert states[53] == [S.Red, S.Red, S.Red]
    assert states[61] == [S.Red, S.Red, S.Red]
    assert states[62] == [S.Red, S.Green, S.Green]
    assert groups.get_elapsed_time(1) == 0.0


def test_lone_light_red_lasts_ten_seconds_then_green_again():
    # One controller with red 10 s: green 40 ticks, yellow ticks 41..53, red from 54;
    # red elapsed reaches 10.0 at tick 94, so tick 95 starts the cycle again (green).
    groups = TrafficLightGroups([[[0]]], red_times=[[10.0]])
    states = run(groups, 95)
    assert states[53] == [S.Red]
    assert states[93] == [S.Red]
    assert states[94] == [S.Green]


def test_set_state_lasts_until_the_next_stage():
    groups = TrafficLightGroups([[[0, 1]]])
    groups.set_state(1, S.Red)
    states = run(groups, 41)
    assert states[39] == [S.Green, S.Red]
    assert states[40] == [S.Yellow, S.Yellow]


def test_freeze_stops_the_clock_and_reset_group_restarts():
    groups = TrafficLightGroups([[[0], [1]]])
    run(groups, 10)
    assert groups.get_elapsed_time(0) == 2.5
    groups.frozen = True
    run(groups, 100)
    assert groups.get_elapsed_time(0) == 2.5
    groups.frozen = False
    run(groups, 40)  # ticks 11..50 of A: yellow from tick 41 (elapsed 0), 9 more ticks
    assert groups.get_state(0) == S.Yellow
    assert groups.get_elapsed_time(0) == 2.25
    groups.reset_group(0)
    assert [S(int(v)) for v in groups.state] == [S.Green, S.Red]
    assert groups.get_elapsed_time(0) == 0.0


def test_stage_times_and_group_lights():
    groups = TrafficLightGroups([[[0], [1, 2]], [[3]]])
    groups.set_stage_time(1, S.Green, 1.0)
    assert groups.get_stage_time(2, S.Green) == 1.0  # shared by the controller
    assert groups.get_stage_time(0, S.Green) == 10.0
    assert groups.group_lights(2) == [0, 1, 2]
    assert groups.group_lights(3) == [3]
    assert groups.pole_index(2) == 2
    with pytest.raises(WorldError, match="no Off stage"):
        groups.get_stage_time(0, S.Off)
    with pytest.raises(WorldError, match="finite"):
        groups.set_stage_time(0, S.Red, float("nan"))


def test_shortened_green_changes_after_the_new_time():
    # Green time 1 s: elapsed 1.0 at tick 4 is not past it, tick 5 is.
    groups = TrafficLightGroups([[[0]]])
    groups.set_stage_time(0, S.Green, 1.0)
    states = run(groups, 5)
    assert states[3] == [S.Green]
    assert states[4] == [S.Yellow]


def numpy_tick(g: TrafficLightGroups, delta_seconds: float) -> np.ndarray:
    """The array form the compiled tick replaced, on the same columns."""
    changed = np.zeros(len(g.stage), dtype=bool)
    active = g.group_first + g.group_current
    elapsed = g.elapsed[active] + np.float32(delta_seconds)
    stage = g.stage[active]
    expired = elapsed > g.stage_times[active, stage]
    elapsed[expired] = 0.0
    g.elapsed[active] = elapsed
    finished = expired & (stage == len(STAGE_STATES) - 1)
    advancing = active[expired & ~finished]
    g.stage[advancing] += 1
    changed[advancing] = True
    done = np.nonzero(finished)[0]
    g.group_current[done] = (g.group_current[done] + 1) % g.group_count[done]
    starting = g.group_first[done] + g.group_current[done]
    g.stage[starting] = 0
    g.elapsed[starting] = 0.0
    changed[starting] = True
    lights = changed[g.light_controller]
    g.state[lights] = STAGE_STATES[g.stage[g.light_controller[lights]]]
    return lights


def test_compiled_tick_equals_the_array_form():
    # Groups of 1-4 controllers with 1-3 lights each, uneven stage times and tick lengths:
    # every column and every tick's changed mask the same, bit for bit (float32 clocks).
    rng = np.random.default_rng(3)
    layout, light = [], 0
    for _ in range(12):
        group = []
        for _ in range(int(rng.integers(1, 5))):
            count = int(rng.integers(1, 4))
            group.append(list(range(light, light + count)))
            light += count
        layout.append(group)
    compiled, array = TrafficLightGroups(layout), TrafficLightGroups(layout)
    times = rng.uniform(0.0, 4.0, compiled.stage_times.shape).astype(np.float32)
    compiled.stage_times[:], array.stage_times[:] = times, times
    changes = 0
    for _ in range(400):
        dt = float(rng.choice([0.05, 0.1, 0.25, 1.0 / 3.0]))
        got, expected = compiled.tick(dt), numpy_tick(array, dt)
        assert np.array_equal(got, expected)
        changes += int(got.sum())
        for name in ("state", "stage", "elapsed", "group_current"):
            assert np.array_equal(getattr(compiled, name), getattr(array, name)), name
    assert changes > 100
