"""Stop and yield timers worked by hand from the seed's rules, with 0.25 s ticks.

Each tick runs the sign timers first, then the box events of that tick (the
world's tick order). Every state a sign tells a vehicle is logged as
(tick, vehicle, state).
"""

from __future__ import annotations

from world.actors.vehicle_state import TrafficLightState as S
from world.traffic.signals.signs import GiveWaySign, SignTimers

DT = 0.25
CAR, OTHER = 7, 9


class Scene:
    def __init__(self, is_stop: bool) -> None:
        self.tick_no = 0
        self.told: list[tuple[int, int, S]] = []
        self.timers = SignTimers()
        self.sign = GiveWaySign(is_stop, self.timers, self._tell)

    def _tell(self, vehicle: int, state: S) -> None:
        self.told.append((self.tick_no, vehicle, state))

    def tick(self, events=()) -> None:
        self.tick_no += 1
        self.timers.tick(DT)
        for event, vehicle in events:
            getattr(self.sign, event)(vehicle)

    def run_to(self, tick: int, at: dict[int, list] | None = None) -> None:
        at = at or {}
        while self.tick_no < tick:
            self.tick(at.get(self.tick_no + 1, ()))


def test_stop_lets_go_after_two_seconds_when_the_check_boxes_are_empty():
    # Entry on tick 1 -> red; the 2 s timer is 1.75 after tick 2 ... 0 after tick 9: green.
    scene = Scene(is_stop=True)
    scene.run_to(12, {1: [("enter_effect", CAR)]})
    assert scene.told == [(1, CAR, S.Red), (9, CAR, S.Green)]


def test_stop_checks_again_each_second_while_a_check_box_is_occupied():
    # OTHER sits in a check box from tick 1; CAR enters the effect box on tick 1 (red).
    # Tick 9 (2 s): occupied -> red, check again 1 s later: tick 13 -> red again (next: 17).
    # OTHER leaves on tick 14, which starts a check 0.5 s later: tick 16 -> green.
    scene = Scene(is_stop=True)
    scene.run_to(
        17,
        {1: [("enter_check", OTHER), ("enter_effect", CAR)], 14: [("leave_check", OTHER)]},
    )
    assert scene.told == [
        (1, CAR, S.Red),
        (9, CAR, S.Red),
        (13, CAR, S.Red),
        (16, CAR, S.Green),
        (17, CAR, S.Green),
    ]


def test_yield_checks_at_once_and_every_half_second():
    scene = Scene(is_stop=False)
    scene.run_to(3, {1: [("enter_effect", CAR)]})
    assert scene.told == [(1, CAR, S.Green)]  # empty check boxes: go at once

    # Occupied: red at once on tick 1, again on ticks 3 and 5 (0.5 s = 2 ticks). OTHER
    # leaves on tick 6: the running chain's check on tick 7 finds the boxes empty (green,
    # chain ends), and the check OTHER's leaving started fires on tick 8 (green again).
    scene = Scene(is_stop=False)
    scene.run_to(
        10, {1: [("enter_check", OTHER), ("enter_effect", CAR)], 6: [("leave_check", OTHER)]}
    )
    assert scene.told == [
        (1, CAR, S.Red),
        (3, CAR, S.Red),
        (5, CAR, S.Red),
        (7, CAR, S.Green),
        (8, CAR, S.Green),
    ]
    assert len(scene.timers) == 0


def test_a_waiting_vehicle_is_not_its_own_obstacle():
    # CAR is in a check box when it enters the effect box: the sign forgets it as a checker.
    scene = Scene(is_stop=False)
    scene.run_to(2, {1: [("enter_check", CAR), ("enter_effect", CAR)]})
    assert scene.told == [(1, CAR, S.Green)]


def test_a_timer_fires_on_the_tick_that_reaches_zero_with_inexact_ticks():
    # 40 ticks of 0.05 s reach 2.0 s within rounding: the stop timer fires on tick 41's
    # timer step when entry was on tick 1 (2.0 - 40 * 0.05 accumulates to ~1e-16).
    told: list[tuple[int, S]] = []
    timers = SignTimers()
    tick_no = [0]
    sign = GiveWaySign(True, timers, lambda v, s: told.append((tick_no[0], s)))
    for tick in range(1, 45):
        tick_no[0] = tick
        timers.tick(0.05)
        if tick == 1:
            sign.enter_effect(CAR)
    assert told == [(1, S.Red), (41, S.Green)]
