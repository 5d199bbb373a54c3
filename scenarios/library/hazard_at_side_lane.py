"""HazardAtSideLane and HazardAtSideLaneTwoWays (ScenarioRunner's route_obstacles.py): two
bicycles ride at the right side of the ego's lane, 0.55 of half the lane width right of
the centre, the first `distance` m ahead of the trigger and the second 9 m further, each
at `bicycle_speed` km/h for `bicycle_drive_distance` m and then braking to a stop. The ego
must pass them (in the two-ways type by borrowing the oncoming lane, whose traffic then
comes every `frequency` m). The scenario ends once the ego is past the second bicycle and
has driven 50 m more (or after 240 s, a ScenarioTimeoutTest failure)."""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import drive_distance, is_in_front
from scenarios.library._blockers import (
    END_DISTANCE,
    SCENARIO_TIMEOUT,
    clear_stretch,
    hold,
    opposite_flow,
    when_near,
)
from scenarios.library._movers import drive_with_offset
from scenarios.library._pending import HAZARD
from scenarios.params import Param
from scenarios.placement import move_forward, shifted

BICYCLES = ("vehicle.bh.crossbike", "vehicle.diamondback.century", "vehicle.gazelle.omafiets")
OBSTACLE_DISTANCE = 9.0  # m from the first bicycle to the second
OFFSET = 0.55  # of half the lane width, right of the centre
EXTRA_SPACE = 20.0  # m of the route past the second bicycle cleared of background cars
SPAWN_LIFT = 0.5  # m


class HazardAtSideLane(Scenario):
    type_name = "HazardAtSideLane"
    parameters = HAZARD
    scenario_timeout = SCENARIO_TIMEOUT
    two_ways = False

    def setup(self) -> None:
        clear_stretch(self, self.params["distance"] + OBSTACLE_DISTANCE + EXTRA_SPACE)
        start = self.world.get_map().get_waypoint(self.trigger.location)
        self.offset = OFFSET * start.lane_width / 2.0
        first = move_forward(start, self.params["distance"])
        second = move_forward(first, OBSTACLE_DISTANCE)
        self.bicycles: list[Any] = []
        for wp in (first, second):
            blueprint = BICYCLES[int(self.rng.integers(len(BICYCLES)))]
            bicycle = self.spawn(blueprint, shifted(wp, self.offset, lift=SPAWN_LIFT))
            hold(bicycle)
            self.bicycles.append(bicycle)
        self.first_wp = first

    def _ride(self, bicycle: Any) -> None:
        speed = self.params["bicycle_speed"] / 3.6
        drive_with_offset(
            bicycle,
            speed,
            self.offset,
            distance=self.params["bicycle_drive_distance"],
            until=lambda: self.over,
        )
        hold(bicycle)

    def on_near(self) -> None:
        """The oncoming traffic every `frequency` m, for the two-ways type."""
        if self.two_ways:
            gap = self.params["frequency"]
            self.flow = opposite_flow(self, self.first_wp, (gap, gap))

    def behaviour(self) -> None:
        self.over = False
        self.flow: list = []
        if self.ctx.background is not None:  # ScenarioRunner's LeaveSpaceInFront
            span = self.params["distance"] + OBSTACLE_DISTANCE + EXTRA_SPACE
            self.ctx.background.clear_ahead(0.0, span)
        for bicycle in self.bicycles:
            self.in_parallel(self._ride, bicycle)
        when_near(self, self.bicycles[0], self.on_near)
        last = self.bicycles[-1]
        try:
            if self.wait_for_ego(lambda: is_in_front(self.ego, last)):
                drive_distance(self.ego, END_DISTANCE)
        finally:
            self.over = True


class HazardAtSideLaneTwoWays(HazardAtSideLane):
    type_name = "HazardAtSideLaneTwoWays"
    parameters = (*HAZARD, Param("frequency", "float", 100.0))
    two_ways = True
