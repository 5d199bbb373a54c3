"""MinSpeedTest (ScenarioRunner's MinimumSpeedRouteTest, 4 checkpoints): at each quarter of
the route, the ego's mean speed against the mean speed of the background traffic."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from runner.criteria.base import Criterion, RoutePath, TickView
from runner.scoring.events import TrafficEvent, TrafficEventType
from world.geometry import Transform

WINDOW = 2
RATIO = 1
BACKGROUND_ROLE = "background"


class MinSpeedTest(Criterion):
    """A checkpoint below 100 % gives a MIN_SPEED_INFRACTION with its value; traffic means
    the world's vehicles whose role_name is `traffic_role` ('background', as the leaderboard's
    background activity names them); ticks without any such vehicle do not count."""

    name = "MinSpeedTest"

    def __init__(
        self,
        route: Sequence[Transform] | RoutePath,
        checkpoints: int = 4,
        traffic_role: str = BACKGROUND_ROLE,
    ) -> None:
        super().__init__()
        self.traffic_role = traffic_role
        self.path = RoutePath.of(route)
        self.success_value = 100
        self.actual_value: float | int = 100
        self._checkpoint_dist = self.path.accum[-1] / checkpoints
        self._index = 0
        self._current_dist = 0.0
        self._mean_speed = 0.0
        self._actor_speed = 0.0
        self._points = 0
        self.checkpoint_values: list[float | int] = []
        self._frame = 0
        self._rows = np.zeros(0, np.intp)  # the traffic vehicles' actor rows
        self._actor_count = -1
        self._roster = -1  # the world's roster when the rows were last checked

    def update(self, tick: TickView) -> None:
        self._frame = tick.frame
        passed = self.path.last_passed(self._index, WINDOW + 1, tick.location)
        if passed >= 0:
            self._index = passed
        if self.path.accum[self._index] - self._current_dist > self._checkpoint_dist:
            self._checkpoint()
            self._current_dist = self.path.accum[self._index]
            self._mean_speed = 0.0
            self._actor_speed = 0.0
            self._points = 0
        speeds = self._traffic_speeds(tick.world)
        if speeds:
            frame_mean = 0.0
            for speed in speeds:
                frame_mean += speed
            frame_mean /= len(speeds)
            self._mean_speed += frame_mean
            self._actor_speed += tick.speed
            self._points += 1

    def _traffic_speeds(self, world) -> list[float]:
        """Planar speeds of the traffic vehicles, in id order, read from the actor table
        (row = id - 1, world.state) in one gather. Which actors are traffic is looked up
        again only when the number of actors changes or one of them is gone, which is
        checked only after a spawn or a destroy (World.roster)."""
        actors = world.state_tables().actors
        roster = world.roster
        if roster != self._roster:  # a spawn or a destroy since the rows were last checked
            self._roster = roster
            count = len(world.get_snapshot())
            if count == self._actor_count and all(actors.alive.take(self._rows).tolist()):
                return self._speeds(actors)
            self._actor_count = count
            self._rows = np.array(
                [
                    v.id - 1
                    for v in world.get_actors().filter("vehicle*")
                    if v.attributes.get("role_name") == self.traffic_role
                ],
                dtype=np.intp,
            )
        return self._speeds(actors)

    def _speeds(self, actors) -> list[float]:
        velocities = actors.vel.take(self._rows, axis=0).tolist()
        return [(x * x + y * y) ** 0.5 for x, y, _ in velocities]

    def _checkpoint(self) -> None:
        if self._points > 0 and self._mean_speed:
            mean = self._mean_speed / self._points
            actor = self._actor_speed / self._points
            value: float | int = round(actor / (RATIO * mean) * 100, 2)
        else:
            value = 100
        if value >= self.success_value:
            self.test_status = "SUCCESS"
        else:
            self.test_status = "FAILURE"
            self.events.append(
                TrafficEvent(
                    TrafficEventType.MIN_SPEED_INFRACTION,
                    self._frame,
                    f"Average speed is {value}% of the surrounding traffic's one",
                    {"percentage": value},
                )
            )
        self.checkpoint_values.append(value)

    def terminate(self, tick: TickView | None) -> None:
        """Routes end near 99 %: past 95 % the last checkpoint is still counted."""
        if tick is not None:
            self._frame = tick.frame
        if self.path.accum[self._index] / self.path.accum[-1] > 0.95:
            self._checkpoint()
        if self.checkpoint_values:
            values = self.checkpoint_values
            self.actual_value = round(sum(values) / len(values), 2)
        super().terminate(tick)
