"""InvadingTurn (ScenarioRunner's invading_turn.py), for a curve with one lane each way:
oncoming cars cut into the ego's lane. `distance` + 30 m ahead of the trigger, on the
oncoming lane, is the flow's source; from 10 m past it, every 5 m for half of `distance`,
cones stand at that lane's outer side (0.8 of half its width off the centre). From the
trigger, cars spawn at the source (one whenever the last is 40 m from it) and drive at the
ego's speed limit towards the lane point beside the trigger, `offset` m + half the lane
width - 0.7 m left of their lane's centre: with a car 0.7 m wide each side (ScenarioRunner's
constant), `offset` m into the ego's lane. The scenario ends when the ego is past the
source (or after 240 s, a ScenarioTimeoutTest failure). Meanwhile the background leaves
the ego's lane empty, sends no oncoming traffic and its vehicles on the oncoming lane
between the source and the trigger go."""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import destroy_actor, is_in_front, step
from scenarios.errors import ScenarioError
from scenarios.library._blockers import SCENARIO_TIMEOUT, clear_stretch
from scenarios.library._movers import drive_with_offset
from scenarios.params import Param
from scenarios.placement import shifted
from world.geometry import Location, Transform

SOURCE_DISTANCE = 30.0  # m past `distance`: the flow's source
FLOW_GAP = 40.0  # m from the source the last car must be before the next spawns
HALF_CAR = 0.7  # m, ScenarioRunner's "half the vehicle's width"
SINK_DISTANCE = 2.0  # m from the sink a car is taken away
CONE_START, CONE_STEP, CONE_SIDE, CONE_LIFT = 10.0, 5.0, 0.8, 0.3
SPAWN_LIFT = 0.5  # m
CLEAR_STEP = 2.0  # m between the points of the oncoming lane freed of background traffic


class InvadingTurn(Scenario):
    type_name = "InvadingTurn"
    parameters = (Param("distance", "float", 100.0), Param("offset", "float", 0.25))
    scenario_timeout = SCENARIO_TIMEOUT

    def setup(self) -> None:
        distance = self.params["distance"]
        reference = self.world.get_map().get_waypoint(self.trigger.location)
        ahead = reference.next(distance + SOURCE_DISTANCE)
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: no place for the flow's source")
        self.forward_wp = ahead[0]
        self.source_wp = self.forward_wp.get_left_lane()
        self.sink_wp = reference.get_left_lane()
        for wp in (self.source_wp, self.sink_wp):
            if wp is None or wp.lane_id * reference.lane_id > 0:
                raise ScenarioError(f"scenario {self.name}: no oncoming lane beside the route")
        self.invasion = -(self.params["offset"] + self.sink_wp.lane_width / 2.0 - HALF_CAR)
        clear_stretch(self, distance + SOURCE_DISTANCE)
        self._place_cones(0.5 * distance)

    def _place_cones(self, length: float) -> None:
        wp = self.source_wp.next(CONE_START)[0]
        placed = 0.0
        while placed < length:
            wp = wp.next(CONE_STEP)[0]
            tf = shifted(wp, CONE_SIDE * wp.lane_width / 2.0, lift=CONE_LIFT)
            self.spawn("static.prop.constructioncone", tf).set_simulate_physics(False)
            placed += CONE_STEP

    def _drive(self, car: Any, speed: float, sink: Location) -> None:
        drive_with_offset(
            car,
            speed,
            self.invasion,
            until=lambda: self.over or car.get_location().distance(sink) < SINK_DISTANCE,
        )
        destroy_actor(car)

    def _flow(self) -> None:
        speed = float(self.ego.get_speed_limit()) / 3.6
        src = self.source_wp.transform
        source = Transform(
            Location(src.location.x, src.location.y, src.location.z + SPAWN_LIFT), src.rotation
        )
        sink = self.sink_wp.transform.location
        bp = self.world.get_blueprint_library().find(self._blueprint).copy()
        bp.set_attribute("role_name", "scenario")
        live: list[Any] = []
        while not self.over:
            live[:] = [car for car in live if car.is_alive]
            if not live or live[-1].get_location().distance(src.location) > FLOW_GAP:
                car = self.world.try_spawn_actor(bp, source)
                if car is not None:
                    live.append(car)
                    self.in_parallel(self._drive, car, speed, sink)
            step()

    def _background(self, starting: bool) -> None:
        """ScenarioRunner's RemoveRoadLane (the ego's lane) and ChangeOppositeBehavior
        (off), and the oncoming lane from the source to the sink freed; undone at the end."""
        background = self.ctx.background
        if background is None:
            return
        if not starting:
            if getattr(self, "over", None) is not None:  # the behaviour started
                background.readd_lane(0)
                background.set_opposite_flow(active=True)
            return
        background.remove_lane(self.world.get_map().get_waypoint(self.ego.get_location()))
        background.set_opposite_flow(active=False)
        path, wp = [], self.source_wp
        reach = self.params["distance"] + SOURCE_DISTANCE + CLEAR_STEP
        while wp is not None and len(path) * CLEAR_STEP < reach:
            path.append(wp.transform.location)
            ahead = wp.next(CLEAR_STEP)
            wp = ahead[0] if ahead else None
        background.clear_along(path, CLEAR_STEP)

    def cleanup(self) -> None:
        self._background(False)
        super().cleanup()

    def behaviour(self) -> None:
        self.over = False
        self._background(True)
        self._blueprint = self.random_blueprint("vehicle.*", base_type="car", has_lights="true")
        self.in_parallel(self._flow)
        try:
            self.wait_for_ego(lambda: is_in_front(self.ego, self.forward_wp.transform))
        finally:
            self.over = True
