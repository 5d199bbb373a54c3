"""What the lane-blocking scenarios share (ScenarioRunner's route_obstacles.py,
construction_crash_vehicle.py, vehicle_opens_door.py): walking a lane in 1 m steps up to
a junction, displacing a transform sideways, a random car, the warning prop at the road's
side, and the oncoming flow of the two-ways variants (OppositeActorFlow)."""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import actor_flow, in_trigger_distance, wait_until
from scenarios.errors import ScenarioError
from world.actors.controls import VehicleControl
from world.geometry import Location, Rotation, Transform
from world.map.lane_enums import LaneType

SCENARIO_TIMEOUT = 240.0  # s, ScenarioRunner's _scenario_timeout of these types
TRIGGER_DISTANCE = 50.0  # m from the obstacle at which the opposite traffic changes
WAIT_DURATION = 5.0  # s between that and the change
END_DISTANCE = 50.0  # m past the obstacle at which the scenario ends
FLOW_TIME_DISTANCE = 1.5  # s: OppositeActorFlow's source and sink at 1.5 * limit + 30 m
FLOW_BASE_DISTANCE = 30.0


def move_forward(wp: Any, distance: float) -> Any:
    """`wp` moved `distance` m along its lane in 1 m steps, stopping before a junction."""
    travelled = 0
    while travelled < distance:
        ahead = wp.next(1.0)
        if not ahead or ahead[0].is_junction:
            break
        wp = ahead[0]
        travelled += 1
    return wp


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


def displaced(wp: Any, sideways: float, lift: float = 0.0, yaw: float = 0.0) -> Transform:
    """The waypoint's transform moved `sideways` m to its right (negative: left), lifted
    `lift` m and turned `yaw` degrees."""
    tf = wp.transform
    right = tf.get_right_vector()
    loc = tf.location
    where = Location(loc.x + sideways * right.x, loc.y + sideways * right.y, loc.z + lift)
    rot = tf.rotation
    return Transform(where, Rotation(rot.pitch, rot.yaw + yaw, rot.roll))


def side_sign(direction: str) -> float:
    """+1 for "right", -1 for "left": the sign of a sideways displacement."""
    return 1.0 if direction == "right" else -1.0


def random_car(scenario: Any) -> str:
    """A generation-2 car's blueprint id drawn with the scenario's generator
    (ScenarioRunner's attribute filter {base_type: car, generation: 2})."""
    library = scenario.world.get_blueprint_library().filter("vehicle.*")
    ids = sorted(
        bp.id
        for bp in library
        if bp.has_attribute("base_type")
        and bp.get_attribute("base_type").as_str() == "car"
        and bp.has_attribute("generation")
        and bp.get_attribute("generation").as_int() == 2
    )
    if not ids:
        raise ScenarioError(f"scenario {scenario.name}: no generation-2 car in the library")
    return ids[int(scenario.rng.integers(len(ids)))]


def spawn_side_prop(scenario: Any, wp: Any, direction: str, blueprint: str) -> Any:
    """The warning prop at the road's side: past the outermost driving or parking lane on
    `direction`'s side, 0.3 of that lane's width further out, turned 90 degrees, physics
    off."""
    outer, beyond = wp, None
    while True:
        side = outer.get_right_lane() if direction == "right" else outer.get_left_lane()
        if side is None or side.lane_type not in (LaneType.Driving, LaneType.Parking):
            beyond = side
            break
        outer = side
    base = beyond if beyond is not None else outer
    shift = side_sign(direction) * 0.3 * outer.lane_width
    prop = scenario.spawn(blueprint, displaced(base, shift, 0.2, 90.0))
    prop.set_simulate_physics(False)
    return prop


def hold(vehicle: Any) -> None:
    """A parked vehicle: the hand brake on."""
    vehicle.apply_control(VehicleControl(hand_brake=True))


def opposite_flow(scenario: Any, obstacle_wp: Any, interval: tuple[float, float]) -> list:
    """Starts the oncoming flow on the lane left of `obstacle_wp` (driven towards the
    ego): spawned 1.5 s * the ego's speed limit + 30 m ahead of the
    obstacle, destroyed as far behind it, at the ego's speed limit, a gap drawn from
    `interval` m each time. Returns the live list of the flow's vehicles."""
    reference_wp = obstacle_wp.get_left_lane()
    if reference_wp is None or reference_wp.lane_id * obstacle_wp.lane_id > 0:
        raise ScenarioError(f"scenario {scenario.name}: no oncoming lane left of the obstacle")
    speed = float(scenario.ego.get_speed_limit())
    reach = FLOW_TIME_DISTANCE * speed + FLOW_BASE_DISTANCE
    source = move_backward(reference_wp, reach).transform
    sink = move_forward(reference_wp, reach).transform.location
    lifted = Transform(
        Location(source.location.x, source.location.y, source.location.z + 0.5), source.rotation
    )
    live: list = []

    def opposite_actor_flow() -> None:
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

    scenario.in_parallel(opposite_actor_flow)
    return live


def is_past(actor: Any, tf: Transform) -> bool:
    """ScenarioRunner's WaitUntilInFrontPosition without distance check: `actor` is ahead
    of `tf` along its heading."""
    loc, forward = actor.get_location(), tf.get_forward_vector()
    return (loc.x - tf.location.x) * forward.x + (loc.y - tf.location.y) * forward.y > 0.0


class LaneBlockScenario(Scenario):
    """A scenario that blocks the ego's lane: `setup()` places the obstacle and sets
    `obstacle_wp` (its lane point), `near` (where the trigger distance is measured from),
    `end_wp` (past it the scenario ends) and `clear_distance` (m of the route ahead cleared
    of background cars). The behaviour clears the lane, then once the ego is within
    `trigger_distance` of `near` and `wait_duration` s later starts `on_near()` (the
    two-ways types: the oncoming flow), and ends when the ego is past `end_wp` or after
    the scenario timeout (ScenarioTimeoutTest)."""

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

    def on_near(self) -> None:
        """Runs in its own task once the ego is near: the oncoming flow when two-ways."""
        if self.two_ways:
            self.flow = opposite_flow(self, self.obstacle_wp, self.params["frequency"])

    def behaviour(self) -> None:
        self.over = False
        self.flow: list = []
        if self.ctx.background is not None:
            self.ctx.background.clear_ahead(0.0, self.clear_distance)

        def near_then_change() -> None:
            close = in_trigger_distance(self.ego, self.near, self.trigger_distance)
            if not wait_until(lambda: self.over or close()):
                return
            if not wait_until(lambda: self.over, self.wait_duration):
                self.on_near()

        self.in_parallel(near_then_change)
        try:
            self.wait_for_ego(lambda: is_past(self.ego, self.end_wp.transform))
        finally:
            self.over = True


def heading_gap(a: float, b: float) -> float:
    """Degrees between two yaws, 0..180."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def lateral_offset(wp: Any, location: Location) -> float:
    """m of `location` to the right of `wp`'s lane centre (negative: left)."""
    tf = wp.transform
    right = tf.get_right_vector()
    dx, dy = location.x - tf.location.x, location.y - tf.location.y
    return dx * right.x + dy * right.y


__all__ = [
    "END_DISTANCE",
    "SCENARIO_TIMEOUT",
    "TRIGGER_DISTANCE",
    "WAIT_DURATION",
    "LaneBlockScenario",
    "check_direction",
    "displaced",
    "heading_gap",
    "hold",
    "is_past",
    "lateral_offset",
    "move_backward",
    "move_forward",
    "opposite_flow",
    "random_car",
    "side_sign",
    "spawn_side_prop",
]
