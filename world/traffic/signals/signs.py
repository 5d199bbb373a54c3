"""Stop and yield signs: who waits in the effect boxes, who is seen in the check boxes, and when.

The rules are CARLA's sign components (Carla/Traffic/StopSignComponent and
YieldSignComponent) as the seed states them:

* a stop sign's effect box tells an entering vehicle red; after 2 s the sign lets
  the waiting vehicles go (green) if its check boxes are empty, otherwise tells
  them red again and checks after 1 s more;
* a yield sign checks at once when a vehicle enters its effect box, and again
  after 0.5 s while its check boxes hold someone;
* a vehicle entering a check box triggers a check at once; one leaving a check
  box starts a check after 0.5 s.

The delayed checks are a scheduled-callback queue per sign (`SignTimers`, one
list for all signs). A timer fires on the first tick that brings it to zero or
below; "zero" allows 1e-9 s of float rounding, so a 2 s timer fires after
exactly 40 ticks of 0.05 s, as a user expects.
"""

from __future__ import annotations

from collections.abc import Callable

from world.actors.vehicle_state import TrafficLightState

__all__ = [
    "CHECK_AFTER_LEAVING",
    "STOP_FIRST_CHECK",
    "STOP_RECHECK",
    "YIELD_RECHECK",
    "GiveWaySign",
    "SignTimers",
]

STOP_FIRST_CHECK = 2.0
STOP_RECHECK = 1.0
YIELD_RECHECK = 0.5
CHECK_AFTER_LEAVING = 0.5
_TIMER_EPSILON = 1e-9

# Sets a vehicle's (actor id) traffic-light state, as CARLA's sign tells the vehicle's controller.
StateSetter = Callable[[int, TrafficLightState], None]


class SignTimers:
    """The pending delayed checks of all signs, run down together each tick: a few at a time,
    so plain lists (numpy's per-call cost was most of a tick's work on them); the same
    float64 subtractions and tests."""

    def __init__(self) -> None:
        self._remaining: list[float] = []
        self._sign: list[int] = []
        self._signs: list[GiveWaySign] = []

    def register(self, sign: GiveWaySign) -> int:
        self._signs.append(sign)
        return len(self._signs) - 1

    def schedule(self, sign_index: int, seconds: float) -> None:
        self._remaining.append(float(seconds))
        self._sign.append(int(sign_index))

    def __len__(self) -> int:
        return len(self._remaining)

    def tick(self, delta_seconds: float) -> None:
        """Runs every timer down by one tick and fires the due ones, oldest first."""
        if not self._remaining:
            return
        delta_seconds = float(delta_seconds)
        remaining = self._remaining = [r - delta_seconds for r in self._remaining]
        if not any(r <= _TIMER_EPSILON for r in remaining):
            return
        fired = [s for r, s in zip(remaining, self._sign, strict=True) if r <= _TIMER_EPSILON]
        kept = [k for k, r in enumerate(remaining) if not r <= _TIMER_EPSILON]
        self._remaining = [remaining[k] for k in kept]
        self._sign = [self._sign[k] for k in kept]
        for index in fired:
            self._signs[index].give_way_if_possible()


class GiveWaySign:
    """One stop or yield sign's vehicles: waiting in its effect boxes, seen in its check boxes."""

    def __init__(self, is_stop: bool, timers: SignTimers, set_vehicle_state: StateSetter) -> None:
        self.is_stop = is_stop
        self._timers = timers
        self._index = timers.register(self)
        self._set_state = set_vehicle_state
        # Vehicle actor ids in arrival order; the waiting list keeps one entry per entered box.
        self.waiting: list[int] = []
        self.to_check: dict[int, int] = {}

    @property
    def recheck_time(self) -> float:
        return STOP_RECHECK if self.is_stop else YIELD_RECHECK

    def give_way_if_possible(self) -> None:
        """Green for the waiting vehicles if no one is in the check boxes, else red and wait."""
        if not self.to_check:
            for vehicle in self.waiting:
                self._set_state(vehicle, TrafficLightState.Green)
        elif self.waiting:
            for vehicle in self.waiting:
                self._set_state(vehicle, TrafficLightState.Red)
            self._timers.schedule(self._index, self.recheck_time)

    def _forget_waiting_in_checks(self) -> None:
        for vehicle in self.waiting:
            self.to_check.pop(vehicle, None)

    def enter_effect(self, vehicle: int) -> None:
        self.waiting.append(vehicle)
        if self.is_stop:
            self._set_state(vehicle, TrafficLightState.Red)
            self._timers.schedule(self._index, STOP_FIRST_CHECK)
            self._forget_waiting_in_checks()
        else:
            self._forget_waiting_in_checks()
            self.give_way_if_possible()

    def leave_effect(self, vehicle: int) -> None:
        self.waiting = [v for v in self.waiting if v != vehicle]

    def enter_check(self, vehicle: int) -> None:
        if vehicle not in self.waiting:
            self.to_check[vehicle] = self.to_check.get(vehicle, 0) + 1
        self.give_way_if_possible()

    def leave_check(self, vehicle: int) -> None:
        if vehicle in self.to_check:
            self.to_check[vehicle] -= 1
            if self.to_check[vehicle] <= 0:
                del self.to_check[vehicle]
        self._timers.schedule(self._index, CHECK_AFTER_LEAVING)
