"""Scenario criteria reach the route's scoring: a scenario whose wait for the ego runs out
adds a ScenarioTimeoutTest failure (event SCENARIO_TIMEOUT) after the route's criteria; a
type not written yet fails its route clearly at run time."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from scenario_runs import run_scenario_route

from runner.criteria import ScenarioTimeoutTest
from runner.loop import MainLoop
from runner.route_scenarios import ScenarioCriteriaSink
from runner.scoring.events import TrafficEventType
from scenarios.base import Scenario, ScenarioContext
from world.geometry import Location, Transform


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


class Impatient(Scenario):
    type_name = "Impatient"
    scenario_timeout = 0.5  # s: 10 ticks of 0.05 s

    def behaviour(self) -> None:
        self.waited = self.wait_for_ego(lambda: False)
        self.gave_up_at = self.world.frame


def test_a_scenario_timeout_is_scored_after_the_route_criteria():
    added = []
    sink = ScenarioCriteriaSink(SimpleNamespace(add=added.append))
    world = FakeWorld()
    scenario = Impatient(
        ScenarioContext(world, None, [], criteria=sink),
        "Impatient_1",
        Transform(Location()),
        {},
        None,
    )
    assert [type(c) for c in added] == [ScenarioTimeoutTest]
    loop = MainLoop(world)
    loop.start(scenario.run, lambda: True)
    loop.run(max_ticks=30)
    assert scenario.waited is False
    assert scenario.gave_up_at == 10  # started at frame 0, 10 ticks of 0.05 s
    added[0].terminate(None)
    assert [e.kind for e in added[0].events] == [TrafficEventType.SCENARIO_TIMEOUT]
    assert added[0].events[0].message == "Agent timed out a scenario"


def test_a_type_not_written_yet_fails_its_route_clearly(tmp_path):
    from scenarios.library._pending import PENDING

    if not PENDING:
        pytest.skip("every scenario type is written")
    name = sorted(PENDING)[0]
    trigger = {"x": 30.0, "y": 1.75, "yaw": 0.0}
    outcome, _, _ = run_scenario_route(
        tmp_path,
        "pending",
        [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]],
        [{"type": name, "name": f"{name}_7", "trigger": trigger}],
    )
    assert outcome.failure.value == "simulation_runtime"
    assert outcome.message == (
        f"task scenario {name}_7 raised ScenarioNotImplementedError: "
        f"scenario type {name} is not implemented yet"
    )


def test_a_config_route_scenario_off_its_route_fails_the_load(tmp_path):
    trigger = {"x": 30.0, "y": 5.25, "yaw": 0.0}  # 3.5 m off the lane centre y = 1.75
    outcome, _, _ = run_scenario_route(
        tmp_path,
        "off",
        [[20.0, 1.75, 0.0], [60.0, 1.75, 0.0]],
        [{"type": "HardBreakRoute", "trigger": trigger}],
    )
    assert outcome.failure.value == "scenario_load"
    assert outcome.message.startswith(
        "ScenarioError: scenario HardBreakRoute: its trigger (30, 5.25, no z, yaw 0) is not within"
    )
    assert outcome.message.endswith("the nearest is (30.00, 1.75, 0.00, yaw 0.0)")
