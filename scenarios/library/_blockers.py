"""What the lane-blocking scenarios share (ScenarioRunner's route_obstacles.py,
construction_crash_vehicle.py, vehicle_opens_door.py): walking a lane back in 1 m steps,
the warning prop at the road's side, a parked vehicle's hand brake, the oncoming flow of
the two-ways variants (OppositeActorFlow), and `LaneBlockScenario`, the behaviour they
have in common (clear the lane, change the oncoming traffic once the ego is near, end
when the ego is past the obstacle or on the scenario timeout)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import actor_flow, in_trigger_distance, is_in_front, wait_until
from scenarios.errors import ScenarioError
from scenarios.placement import move_forward, outer_part, outermost_lane, shifted
from world.actors.controls import VehicleControl
from world.geometry import Location, Transform
from world.map.lane_enums import LaneType

SCENARIO_TIMEOUT = 240.0  # s, ScenarioRunner's _scenario_timeout of these types
TRIGGER_DISTANCE = 50.0  # m from the obstacle at which the opposite traffic changes
WAIT_DURATION = 5.0  # s between that and the change
END_DISTANCE = 50.0  # m past the obstacle at which the scenario ends
FLOW_TIME_DISTANCE = 1.5  # s: OppositeActorFlow's source and sink at 1.5 * limit + 30 m
FLOW_BASE_DISTANCE = 30.0
FLOW_LIFT = 0.5  # m above the lane, as vehicles spawn
PARK_LIFT = 0.5  # m above the lane, a parked car
SOURCE_CLEARANCE = 10.0  # m around the flow's source freed of background vehicles


def move_backward(wp: Any, distance: float) -> Any:
    """`wp` moved back `distance` m along its lane in 1 m steps, stopping before a junction."""
    travelled = 0
    while travelled < distance:
        behind = wp.previous(1.0)
        if not behind or behind[0].is_junction:
            break
        wp = behind[0]
        travelled += 1
    return wp


def check_direction(name: str, direction: str) -> None:
    if direction not in ("left", "right"):
        raise ScenarioError(
            f"scenario {name}: 'direction' must be 'right' or 'left', not {direction!r}"
        )


def spawn_side_prop(scenario: Any, wp: Any, direction: str, blueprint: str) -> Any:
    """The warning prop at the road's side: on the lane past the outermost driving or
    parking lane on `direction`'s side (a sidewalk, say), 0.3 of that lane's width further
    out, turned 90 degrees, physics off."""
    side = outermost_lane(wp, direction, (LaneType.Driving, LaneType.Parking))
    step = side.get_right_lane() if direction == "right" else side.get_left_lane()
    place = step if step is not None and step.lane_id * side.lane_id > 0 else side
    where = shifted(place, 0.3 * side.lane_width, direction, lift=0.2, yaw=90)
    prop = scenario.spawn(blueprint, where)
    prop.set_simulate_physics(False)
    return prop


def clear_stretch(scenario: Any, span: float) -> None:
    """Background cars on the route from the trigger to `span` m past it go, so the
    scenario's actors have that stretch of the lane to themselves."""
    background = scenario.ctx.background
    if background is not None:
        background.clear_route(scenario.trigger_index, scenario.trigger_index + int(span))


def hold(vehicle: Any) -> None:
    """A parked vehicle: the hand brake on."""
    vehicle.apply_control(VehicleControl(hand_brake=True))


def park_car(
    scenario: Any, wp: Any, direction: str, role_name: str = "scenario no lights", **attributes
) -> Any:
    """A car (a generation 2 car, drawn with the scenario's generator; `attributes` narrow
    the draw) spawned on `wp`'s lane and moved to its outer part toward `direction`
    (placement.outer_part), as ScenarioRunner parks cars on a parking lane or sidewalk."""
    blueprint = scenario.random_blueprint("vehicle.*", base_type="car", generation=2, **attributes)
    car = scenario.spawn(blueprint, shifted(wp, 0.0, lift=PARK_LIFT), role_name=role_name)
    car.set_location(outer_part(wp, car, direction, PARK_LIFT))
    return car


def opposite_flow(scenario: Any, obstacle_wp: Any, interval: tuple[float, float]) -> list:
    """Starts the oncoming flow on the lane left of `obstacle_wp` (driven towards the ego)
    until `scenario.over`: spawned 1.5 s * the ego's speed limit + 30 m ahead of the
    obstacle (short of a junction), destroyed as far behind it, at the ego's speed limit,
    a gap drawn from `interval` m each time. The background's own oncoming traffic stops
    meanwhile (and its vehicles near the source go). Returns the live list of its
    vehicles."""
    reference_wp = obstacle_wp.get_left_lane()
    if reference_wp is None or reference_wp.lane_id * obstacle_wp.lane_id > 0:
        raise ScenarioError(f"scenario {scenario.name}: no oncoming lane left of the obstacle")
    speed = float(scenario.ego.get_speed_limit())
    reach = FLOW_TIME_DISTANCE * speed + FLOW_BASE_DISTANCE
    source = move_backward(reference_wp, reach).transform
    sink = move_forward(reference_wp, reach).transform.location
    loc = source.location
    lifted = Transform(Location(loc.x, loc.y, loc.z + FLOW_LIFT), source.rotation)
    live: list = []
    background = scenario.ctx.background
    if background is not None:  # ScenarioRunner's ChangeOppositeBehavior(active=False)
        background.set_opposite_flow(active=False)
        background.clear_near(loc, SOURCE_CLEARANCE)

    def opposite_actor_flow() -> None:
        try:
            actor_flow(
                scenario.world,
                lifted,
                sink,
                speed,
                interval,
                scenario.rng,
                spawned=live,
                until=lambda: getattr(scenario, "over", False),
            )
        finally:
            if background is not None:
                background.set_opposite_flow(active=True)

    scenario.in_parallel(opposite_actor_flow)
    return live


def when_near(
    scenario: Any,
    location: Location | Any,
    then: Callable[[], None],
    distance: float = TRIGGER_DISTANCE,
    delay: float = WAIT_DURATION,
) -> None:
    """Runs `then()` in its own task once the ego is within `distance` m of `location` (or
    an actor) and `delay` s have passed, unless `scenario.over` first."""

    def near_then() -> None:
        over = lambda: getattr(scenario, "over", False)  # noqa: E731
        close = in_trigger_distance(scenario.ego, location, distance)
        if wait_until(lambda: over() or close()) and not over() and not wait_until(over, delay):
            then()

    scenario.in_parallel(near_then)


class LaneBlockScenario(Scenario):
    """A scenario that blocks the ego's lane: `setup()` places the obstacle and sets
    `obstacle_wp` (its lane point), `near` (where the trigger distance is measured from),
    `end_wp` (past it the scenario ends) and `clear_distance` (m of the route ahead cleared
    of background cars). The behaviour clears the lane, then once the ego is within
    `trigger_distance` of `near` and `wait_duration` s later runs `on_near()` in its own
    task (the two-ways types: the oncoming flow; `start_changes()` starts it), and ends
    when the ego is past `end_wp` or after the scenario timeout (ScenarioTimeoutTest)."""

    scenario_timeout = SCENARIO_TIMEOUT
    trigger_distance = TRIGGER_DISTANCE
    wait_duration = WAIT_DURATION
    two_ways = False

    obstacle_wp: Any
    near: Location
    end_wp: Any
    clear_distance: float

    def start_wp(self) -> Any:
        return self.world.get_map().get_waypoint(self.trigger.location)

    def start_changes(self) -> None:
        """What happens beside the obstacle while the scenario waits for the ego: `on_near`
        once the ego is near (a type with its own trigger overrides this)."""
        when_near(self, self.near, self.on_near, self.trigger_distance, self.wait_duration)

    def on_near(self) -> None:
        """The oncoming flow when two-ways (ScenarioRunner's OppositeActorFlow)."""
        if self.two_ways:
            self.flow = opposite_flow(self, self.obstacle_wp, self.params["frequency"])

    def behaviour(self) -> None:
        self.over = False
        self.flow: list = []
        if self.ctx.background is not None:  # ScenarioRunner's LeaveSpaceInFront
            self.ctx.background.clear_ahead(0.0, self.clear_distance)

        self.start_changes()
        try:
            self.wait_for_ego(lambda: is_in_front(self.ego, self.end_wp.transform))
        finally:
            self.over = True


def odometer(actor: Any, distance: float) -> Callable[[], bool]:
    """A predicate: True once `actor` has moved `distance` m (its path, tick by tick)."""
    travelled = 0.0
    last = actor.get_location()

    def far_enough() -> bool:
        nonlocal travelled, last
        here = actor.get_location()
        travelled += here.distance(last)
        last = here
        return travelled >= distance

    return far_enough
