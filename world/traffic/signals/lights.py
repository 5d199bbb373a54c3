"""Traffic-light controllers and groups: CARLA's light cycles, stepped for all lights at once.

A light belongs to a controller and a controller to a group (one group per
junction). A controller runs its stages in turn, green 10 s, yellow 3 s and red
2 s by default; a group runs its controllers in turn, the lights of the others
staying red. A stage changes on the first tick that takes the controller's
elapsed time past the stage's time, and the elapsed time then restarts from zero
(CARLA's UTrafficLightController::AdvanceTimeAndCycleFinished): with 0.25 s ticks
green turns yellow on tick 41. Times are float32, as UE4 keeps them, so the
accumulated elapsed time has CARLA's rounding.

Controllers are stored contiguously per group; one active controller per group
advances each tick, all groups in one compiled pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from world.actors.vehicle_state import TrafficLightState
from world.errors import WorldError
from world.kernels.compiled import njit

__all__ = [
    "DEFAULT_STAGE_TIMES",
    "LONE_LIGHT_RED_TIME",
    "STAGE_STATES",
    "TrafficLightGroups",
]

# The stage order of every controller and its default times in seconds.
STAGE_STATES = np.array(
    [TrafficLightState.Green, TrafficLightState.Yellow, TrafficLightState.Red], dtype=np.int8
)
DEFAULT_STAGE_TIMES = (10.0, 3.0, 2.0)
# A light outside any controller gets its own group whose red stage lasts 10 s.
LONE_LIGHT_RED_TIME = 10.0
_GREEN, _YELLOW, _RED = 0, 1, 2
_LAST_STAGE = len(STAGE_STATES) - 1


class TrafficLightGroups:
    """The controllers and groups of a world's lights; lights are indices 0..n-1.

    `groups[g]` lists group g's controllers in the order they take turns, each
    controller a list of light indices; `red_times` optionally overrides a
    controller's red time (same nesting, None keeps the default).
    """

    def __init__(
        self,
        groups: Sequence[Sequence[Sequence[int]]],
        red_times: Sequence[Sequence[float | None]] | None = None,
    ) -> None:
        ctrl_lights: list[list[int]] = []
        group_first, group_count, times = [], [], []
        for g, controllers in enumerate(groups):
            if not controllers:
                raise WorldError(f"traffic-light group {g} has no controller")
            group_first.append(len(ctrl_lights))
            group_count.append(len(controllers))
            for c, lights in enumerate(controllers):
                ctrl_lights.append(list(lights))
                red = red_times[g][c] if red_times is not None else None
                green, yellow, default_red = DEFAULT_STAGE_TIMES
                times.append((green, yellow, default_red if red is None else red))
        n_lights = sum(len(lights) for lights in ctrl_lights)
        self.light_controller = np.full(n_lights, -1, dtype=np.int64)
        for c, lights in enumerate(ctrl_lights):
            for light in lights:
                if not 0 <= light < n_lights or self.light_controller[light] != -1:
                    raise WorldError(f"traffic light {light} is missing or in two controllers")
                self.light_controller[light] = c
        self._controller_lights = ctrl_lights
        self.controller_group = np.repeat(np.arange(len(group_first)), group_count)
        self.group_first = np.array(group_first, dtype=np.int64)
        self.group_count = np.array(group_count, dtype=np.int64)
        self.group_current = np.zeros(len(group_first), dtype=np.int64)
        self.stage_times = np.array(times, dtype=np.float32).reshape(-1, 3)
        self.stage = np.full(len(ctrl_lights), _LAST_STAGE, dtype=np.int8)
        self.elapsed = np.zeros(len(ctrl_lights), dtype=np.float32)
        self.state = np.full(n_lights, TrafficLightState.Red, dtype=np.int8)
        self.frozen = False
        self._step = (np.nan, np.float32(np.nan))  # the last step and its float32 (advance)
        for g in range(len(group_first)):
            self.reset_group(g)

    # -- stepping -------------------------------------------------------------------------

    def tick(self, delta_seconds: float) -> np.ndarray:
        """Advances every unfrozen group by one tick; returns the mask of lights that changed."""
        changed = np.zeros(len(self.state), dtype=bool)
        self.advance(delta_seconds, changed)
        return changed

    def advance(self, delta_seconds: float, changed: np.ndarray) -> int:
        """`tick` marking the lights that changed in `changed` (a mask over the lights, the
        others left as they are): the number that changed (0 on most ticks, when the world's
        tick has nothing to tell the vehicles)."""
        if self.frozen or len(self.group_first) == 0:
            return 0
        if self._step[0] is not delta_seconds:  # (the world's step: the same float each tick)
            self._step = (delta_seconds, np.float32(delta_seconds))
        return _advance_groups(
            self.group_first,
            self.group_count,
            self.group_current,
            self.stage,
            self.elapsed,
            self.stage_times,
            self._step[1],
            self.light_controller,
            STAGE_STATES,
            self.state,
            changed,
        )

    def _show_stages(self, controllers: np.ndarray) -> np.ndarray:
        """Sets the lights of the marked controllers to their stage; returns the lights' mask."""
        lights = controllers[self.light_controller]
        self.state[lights] = STAGE_STATES[self.stage[self.light_controller[lights]]]
        return lights

    # -- groups ---------------------------------------------------------------------------

    def group_of(self, light: int) -> int:
        return int(self.controller_group[self.light_controller[light]])

    def reset_group(self, group: int) -> np.ndarray:
        """Every controller of the group to red, then its first controller starts green."""
        first, count = int(self.group_first[group]), int(self.group_count[group])
        members = np.zeros(len(self.stage), dtype=bool)
        members[first : first + count] = True
        self.stage[members] = _LAST_STAGE
        self.elapsed[members] = 0.0
        self.group_current[group] = 0
        self.stage[first] = _GREEN
        return self._show_stages(members)

    def reset_all(self) -> np.ndarray:
        changed = np.zeros(len(self.state), dtype=bool)
        for g in range(len(self.group_first)):
            changed |= self.reset_group(g)
        return changed

    def group_lights(self, light: int) -> list[int]:
        """The lights of the light's group, controller by controller."""
        g = self.group_of(light)
        first, count = int(self.group_first[g]), int(self.group_count[g])
        return [i for c in range(first, first + count) for i in self._controller_lights[c]]

    # -- one light --------------------------------------------------------------------------

    def set_state(self, light: int, state: TrafficLightState) -> None:
        """Sets one light; its controller is not told, so its next stage sets the light again."""
        self.state[light] = int(TrafficLightState(state))

    def get_state(self, light: int) -> TrafficLightState:
        return TrafficLightState(int(self.state[light]))

    def get_elapsed_time(self, light: int) -> float:
        """Seconds the light's controller has spent in its current stage."""
        return float(self.elapsed[self.light_controller[light]])

    def set_elapsed_time(self, light: int, seconds: float) -> None:
        self.elapsed[self.light_controller[light]] = seconds

    def get_stage_time(self, light: int, state: TrafficLightState) -> float:
        return float(self.stage_times[self.light_controller[light], _stage_index(state)])

    def set_stage_time(self, light: int, state: TrafficLightState, seconds: float) -> None:
        """Sets the time of one stage of the light's controller (all its lights share it)."""
        if not np.isfinite(seconds) or seconds < 0.0:
            raise WorldError(f"a traffic-light time must be finite and >= 0, got {seconds!r}")
        self.stage_times[self.light_controller[light], _stage_index(state)] = seconds

    def pole_index(self, light: int) -> int:
        """The light's position in its group (CARLA's get_pole_index)."""
        return self.group_lights(light).index(light)


@njit(cache=True)
def _advance_groups(
    group_first,
    group_count,
    group_current,
    stage,
    elapsed,
    stage_times,
    dt,
    light_controller,
    stage_states,
    state,
    changed,
):
    """One tick of every group's active controller (float32 clock, `dt` float32): a stage past
    its time advances, the last one hands over to the group's next controller in green; the
    lights of the controllers that changed take their stage's state and are marked; returns
    how many lights changed."""
    moved = np.zeros(len(stage), dtype=np.bool_)
    any_moved = False
    for g in range(len(group_first)):
        c = group_first[g] + group_current[g]
        clock = elapsed[c] + dt
        if not clock > stage_times[c, stage[c]]:
            elapsed[c] = clock
            continue
        elapsed[c] = 0.0
        if stage[c] == _LAST_STAGE:
            group_current[g] = (group_current[g] + 1) % group_count[g]
            c = group_first[g] + group_current[g]
            stage[c] = _GREEN
            elapsed[c] = 0.0
        else:
            stage[c] += 1
        moved[c] = True
        any_moved = True
    count = 0
    if not any_moved:
        return count
    for light in range(len(light_controller)):
        c = light_controller[light]
        if moved[c]:
            state[light] = stage_states[stage[c]]
            changed[light] = True
            count += 1
    return count


def _stage_index(state: TrafficLightState) -> int:
    state = TrafficLightState(state)
    for i, s in enumerate(STAGE_STATES):
        if s == state:
            return i
    raise WorldError(f"a traffic light has no {state} stage (only Green, Yellow and Red)")
