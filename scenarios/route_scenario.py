"""The route scenario as the leaderboard runs it: which of a route's scenarios are kept,
when each is set up and when its behaviour starts.

- Kept (leaderboard 2.0's route parser): a scenario whose trigger lies within 2 m in
  x-y, 2 m in z and 10 degrees of yaw of some point of the route's dense plan; its
  trigger index is the first such point. Others are left out, as the leaderboard does.
  A trigger given without z (a config's `{x, y, yaw}`) takes the z of the map's lane
  under it: the z of the route point it matches in x-y and yaw.
- Set up: a monitor task checks the ego each tick; when the ego is within 500 m of a
  kept scenario's trigger, that scenario's task starts (setup, then waiting).
- Triggered: the scenario's behaviour starts once the ego's route point (the nearest
  plan point, searched forward from the last one) has reached the trigger index, i.e.
  the ego is at the route point within 2 m of the trigger or past it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scenarios.base import Scenario, ScenarioContext
from scenarios.errors import ScenarioError
from scenarios.library import bind_scenario
from scenarios.tasks import stopping, tick
from world.geometry import Location, Rotation, Transform

__all__ = [
    "SETUP_DISTANCE",
    "TRIGGER_ANGLE",
    "TRIGGER_XY",
    "TRIGGER_Z",
    "PlannedScenario",
    "RouteProgress",
    "RouteScenario",
    "has_trigger_z",
    "match_trigger",
    "plan_scenarios",
    "trigger_matches",
]

TRIGGER_XY = 2.0  # m, the leaderboard's DIST_THRESHOLD
TRIGGER_Z = 2.0  # m
TRIGGER_ANGLE = 10.0  # degrees
SETUP_DISTANCE = 500.0  # m from the ego to a trigger when the scenario is built
PROGRESS_WINDOW = 60  # plan points searched ahead of the ego's last route point


def trigger_transform(entry: Mapping[str, Any]) -> Transform:
    """The entry's trigger (z 0 when it gives none: see has_trigger_z)."""
    trigger = entry.get("trigger")
    if not isinstance(trigger, Mapping):
        raise ScenarioError(f"scenario {entry.get('name') or entry.get('type')}: no trigger")
    location = Location(*(float(trigger.get(k, 0.0)) for k in "xyz"))
    return Transform(location, Rotation(yaw=float(trigger.get("yaw", 0.0))))


def has_trigger_z(entry: Mapping[str, Any]) -> bool:
    """Whether the entry's trigger gives its z (a route file's always does)."""
    trigger = entry.get("trigger")
    return isinstance(trigger, Mapping) and "z" in trigger


def trigger_matches(trigger: Transform, point: Transform, with_z: bool = True) -> bool:
    """The leaderboard's rule: < 2 m apart in x-y, < 2 m in z (unless the trigger has no
    z), yaws < 10 degrees apart."""
    dx = trigger.location.x - point.location.x
    dy = trigger.location.y - point.location.y
    dz = abs(trigger.location.z - point.location.z) if with_z else 0.0
    dyaw = (trigger.rotation.yaw - point.rotation.yaw) % 360.0
    close = math.sqrt(dx * dx + dy * dy) < TRIGGER_XY and dz < TRIGGER_Z
    return close and (dyaw < TRIGGER_ANGLE or dyaw > 360.0 - TRIGGER_ANGLE)


def match_trigger(trigger: Transform, plan: Sequence, with_z: bool = True) -> int | None:
    """The first plan index whose point matches `trigger`; None: not on this route."""
    for index, (point, _option) in enumerate(plan):
        if trigger_matches(trigger, point, with_z):
            return index
    return None


@dataclass(frozen=True)
class PlannedScenario:
    """A kept scenario: its name, type, bound parameters, trigger and trigger index."""

    name: str
    cls: type[Scenario]
    params: dict[str, Any]
    trigger: Transform
    index: int


def plan_scenarios(
    entries: Sequence[Mapping[str, Any]], plan: Sequence, *, required: bool = False
) -> list[PlannedScenario]:
    """The entries whose trigger lies on the route, bound, in route order (then entry
    order); a name defaults to <type>_<position in entries>. With `required`, a trigger
    off the route is an error (a route's own inline scenarios), not left out."""
    kept = []
    for position, entry in enumerate(entries):
        cls, params = bind_scenario(entry)
        trigger = trigger_transform(entry)
        with_z = has_trigger_z(entry)
        index = match_trigger(trigger, plan, with_z)
        if index is None:
            if required:
                raise ScenarioError(_off_route(entry, trigger, plan, with_z))
            continue
        if not with_z:
            on_lane = Location(trigger.location.x, trigger.location.y, plan[index][0].location.z)
            trigger = Transform(on_lane, trigger.rotation)
        name = str(entry.get("name") or f"{cls.type_name}_{position}")
        kept.append(PlannedScenario(name, cls, params, trigger, index))
    kept.sort(key=lambda p: p.index)
    return kept


def _off_route(entry: Mapping[str, Any], trigger: Transform, plan: Sequence, with_z: bool) -> str:
    t = trigger.location  # (+ 0.0 below: -0.0 prints as 0)
    if with_z:
        nearest = min(plan, key=lambda p: p[0].location.distance(t))[0]
        given, within = f"{t.x:g}, {t.y:g}, {t.z:g}", f"{TRIGGER_XY:g} m (x-y), {TRIGGER_Z:g} m (z)"
    else:
        nearest = min(plan, key=lambda p: p[0].location.distance_2d(t))[0]
        given, within = f"{t.x:g}, {t.y:g}, no z", f"{TRIGGER_XY:g} m (x-y)"
    n = nearest.location
    return (
        f"scenario {entry.get('name') or entry.get('type')}: its trigger "
        f"({given}, yaw {trigger.rotation.yaw:g}) is not within {within} and "
        f"{TRIGGER_ANGLE:g} degrees of any route point; the nearest is "
        f"({n.x + 0.0:.2f}, {n.y + 0.0:.2f}, {n.z + 0.0:.2f}, yaw {nearest.rotation.yaw + 0.0:.1f})"
    )


class RouteProgress:
    """The ego's route point: the nearest plan point, searched forward from the last one,
    never going back."""

    def __init__(self, plan: Sequence) -> None:
        self.points = np.array(
            [(tf.location.x, tf.location.y, tf.location.z) for tf, _ in plan], dtype=np.float64
        )
        self.index = 0

    def update(self, location: Location) -> int:
        window = self.points[self.index : self.index + PROGRESS_WINDOW]
        here = np.array([location.x, location.y, location.z])
        nearest = int(np.argmin(((window - here) ** 2).sum(axis=1)))
        self.index += nearest
        return self.index


class RouteScenario:
    """Runs a route's kept scenarios: `monitor` is the task that builds each one within
    500 m of its trigger, by `start(fn, *args, name=...)` (the main loop's start)."""

    def __init__(
        self,
        ctx: ScenarioContext,
        planned: Sequence[PlannedScenario],
        rng_for: Callable[[str], np.random.Generator],
        start: Callable[..., Any],
    ) -> None:
        self.ctx = ctx
        self.planned = list(planned)
        self.rng_for = rng_for
        self.start = start
        self.progress = RouteProgress(ctx.plan)
        self.built: list[Scenario] = []
        self.triggered: set[str] = set()

    def route_index(self) -> int:
        return self.progress.index

    def _build(self, planned: PlannedScenario) -> None:
        scenario = planned.cls(
            self.ctx,
            planned.name,
            planned.trigger,
            planned.params,
            self.rng_for(planned.name),
            planned.index,
        )
        self.built.append(scenario)

        def reached() -> bool:
            if self.progress.index >= planned.index:
                self.triggered.add(planned.name)
                return True
            return False

        self.start(scenario.run, reached, name=f"scenario {planned.name}")

    def monitor(self) -> None:
        """The task: each tick, the ego's route point, then any scenario now within 500 m.
        The background activity's task starts with it (it runs right after it each tick)."""
        if self.ctx.background is not None:
            self.start(self.ctx.background.run, name="background")
        waiting = list(self.planned)
        while True:
            location = self.ctx.ego.get_location()
            self.progress.update(location)
            for planned in list(waiting):
                if location.distance(planned.trigger.location) < SETUP_DISTANCE:
                    waiting.remove(planned)
                    self._build(planned)
            if stopping():
                return
            tick()
