"""The route scenario's rules, worked by hand: a trigger is kept when a route point is
< 2 m away in x-y, < 2 m in z and < 10 degrees in yaw (the leaderboard's route parser);
a scenario is set up when the ego is < 500 m from its trigger and its behaviour starts
when the ego's route point reaches the trigger's."""

from __future__ import annotations

from types import SimpleNamespace
from typing import ClassVar

import pytest

from runner.loop import MainLoop
from scenarios.base import Scenario, ScenarioContext
from scenarios.errors import ScenarioError
from scenarios.route_scenario import (
    PlannedScenario,
    RouteScenario,
    match_trigger,
    plan_scenarios,
    trigger_matches,
)
from scenarios.tasks import TickInfo
from world.geometry import Location, Rotation, Transform


def tf(x: float, y: float = 0.0, z: float = 0.0, yaw: float = 0.0) -> Transform:
    return Transform(Location(x, y, z), Rotation(yaw=yaw))


def test_distance_in_xy_under_2_m():
    assert trigger_matches(tf(10.0), tf(11.9))
    assert not trigger_matches(tf(10.0), tf(12.0))  # 2.0 is not under 2
    assert trigger_matches(tf(0.0), tf(1.5, 1.3))  # sqrt(2.25 + 1.69) = 1.985
    assert not trigger_matches(tf(0.0), tf(1.5, 1.35))  # sqrt(2.25 + 1.8225) = 2.018


def test_height_apart_from_xy():
    assert trigger_matches(tf(0.0, z=0.0), tf(0.0, z=1.9))
    assert not trigger_matches(tf(0.0, z=0.0), tf(0.0, z=2.1))
    assert not trigger_matches(tf(0.0, z=3.0), tf(0.0, z=0.0))
    assert trigger_matches(tf(0.0), tf(1.5, z=1.5))  # 2.12 m in 3D, kept: x-y and z apart


def test_yaw_within_10_degrees_modulo_360():
    assert trigger_matches(tf(0.0, yaw=0.0), tf(0.0, yaw=9.9))  # (0 - 9.9) % 360 = 350.1
    assert not trigger_matches(tf(0.0, yaw=0.0), tf(0.0, yaw=10.5))  # 349.5
    assert trigger_matches(tf(0.0, yaw=355.0), tf(0.0, yaw=-4.0))  # 359
    assert trigger_matches(tf(0.0, yaw=185.0), tf(0.0, yaw=-180.0))  # 5
    assert not trigger_matches(tf(0.0, yaw=90.0), tf(0.0, yaw=-90.0))  # 180


def straight_plan(length: int) -> list:
    return [(tf(float(i)), None) for i in range(length + 1)]


def test_first_matching_point_and_scenarios_off_the_route():
    plan = straight_plan(100)
    assert match_trigger(tf(40.4), plan) == 39  # 38: 2.4 m away; 39: 1.4 m
    assert match_trigger(tf(40.0, 3.0), plan) is None
    assert match_trigger(tf(40.0, yaw=180.0), plan) is None  # the other way
    entries = [
        {"type": "HardBreakRoute", "name": "late", "trigger": {"x": 80.0, "y": 0.0, "yaw": 0.0}},
        {"type": "HardBreakRoute", "trigger": {"x": 50.0, "y": 5.0, "yaw": 0.0}},
        {"type": "HardBreakRoute", "trigger": {"x": 20.0, "y": 0.5, "yaw": 3.0}},
    ]
    kept = plan_scenarios(entries, plan)
    assert [(p.name, p.index) for p in kept] == [("HardBreakRoute_2", 19), ("late", 79)]
    with pytest.raises(ScenarioError) as err:
        plan_scenarios(entries, plan, required=True)
    assert str(err.value) == (
        "scenario HardBreakRoute: its trigger (50, 5, no z, yaw 0) is not within 2 m (x-y) "
        "and 10 degrees of any route point; the nearest is (50.00, 0.00, 0.00, yaw 0.0)"
    )
    with_z = [{"type": "HardBreakRoute", "trigger": {"x": 50.0, "y": 5.0, "z": 1.0}}]
    with pytest.raises(ScenarioError) as err:
        plan_scenarios(with_z, plan, required=True)
    assert str(err.value).startswith(
        "scenario HardBreakRoute: its trigger (50, 5, 1, yaw 0) is not within 2 m (x-y), "
        "2 m (z) and 10 degrees"
    )


def test_a_trigger_without_z_takes_the_route_point_s_z():
    """On a road 30 m up a hill a config's {x, y, yaw} trigger matches in x-y and yaw and
    takes the z of the route point it matched; a trigger that gives z = 0 is 30 m off."""
    plan = [(tf(float(i), z=30.0), None) for i in range(101)]
    entry = {"type": "HardBreakRoute", "trigger": {"x": 40.4, "y": 0.0, "yaw": 0.0}}
    (kept,) = plan_scenarios([entry], plan, required=True)
    assert kept.index == 39  # as in x-y alone: 39 is 1.4 m away, 38 is 2.4 m
    assert (kept.trigger.location.x, kept.trigger.location.z) == (40.4, 30.0)
    flat = {"type": "HardBreakRoute", "trigger": {"x": 40.4, "y": 0.0, "z": 0.0, "yaw": 0.0}}
    assert plan_scenarios([flat], plan) == []


class FakeWorld:
    def __init__(self) -> None:
        self.frame = 0

    def get_snapshot(self):
        stamp = SimpleNamespace(frame=self.frame, elapsed_seconds=self.frame * 0.05)
        stamp.delta_seconds = 0.05
        return SimpleNamespace(timestamp=stamp)

    def clock(self):
        return self.get_snapshot().timestamp

    def tick(self) -> None:
        self.frame += 1


class FakeEgo:
    def __init__(self, x: float) -> None:
        self.x = x

    def get_location(self) -> Location:
        return Location(self.x, 0.0, 0.0)


class Probe(Scenario):
    type_name = "Probe"
    log: ClassVar[list] = []

    def setup(self) -> None:
        Probe.log.append(("setup", self.world.frame))

    def behaviour(self) -> None:
        Probe.log.append(("behaviour", self.world.frame))


def test_set_up_within_500_m_and_started_at_the_trigger_point():
    Probe.log = []
    world, ego = FakeWorld(), FakeEgo(399.0)
    plan = straight_plan(1000)
    trigger = tf(900.0)
    ctx = ScenarioContext(world, ego, plan)
    loop = MainLoop(world)
    planned = [PlannedScenario("probe", Probe, {}, trigger, match_trigger(trigger, plan))]
    assert planned[0].index == 899  # 1.0 m from the trigger; 898 is 2.0 m away
    route = RouteScenario(ctx, planned, lambda name: None, loop.start)
    loop.start(route.monitor)
    frames = []

    def move(info: TickInfo) -> str | None:
        frames.append((world.frame, ego.x))
        ego.x += 0.5  # 0.5 m a tick: 399.5 is 500.5 m away, 400.0 is 500.0, 400.5 is 499.5
        return "done" if world.frame >= 1100 else None

    loop.after_tick = move
    loop.run()
    # the monitor saw the ego at 400.5 m (499.5 m away) at frame 3; the scenario's task
    # started at the next iteration and ran its setup then
    setup = next(f for kind, f in Probe.log if kind == "setup")
    assert setup == 4
    # at frame f the ego is at x = 399 + 0.5 f; route point 899 is the nearest once x passes
    # 898.5 (at 898.5 points 898 and 899 tie and the first wins): frame 1000, x = 899; the
    # monitor runs before the scenario's task in that iteration, so the behaviour starts then
    behaviour = next(f for kind, f in Probe.log if kind == "behaviour")
    assert behaviour == 1000
