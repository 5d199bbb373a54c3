"""HighwayCutIn (ScenarioRunner's highway_cut_in.py): a vehicle on an on-ramp at
`other_actor_location` joins the ego's road at the junction ahead and cuts in front of
the ego, driving slower (80 % of the ego's speed), so the ego has to brake.

At the trigger the background traffic near the vehicle's place and on the ego's route to
170 m past the junction goes, and the vehicle appears at its place. It drives on the
autopilot, not yielding to other vehicles or signs, to 10 m past the junction's exit on the
ego's side, its speed set each tick so it gets there when the ego reaches the junction's
exit on its route (ScenarioRunner's SyncArrivalWithAgent, until 5 m from the target;
never below 4 m/s, so an ego waiting for it at the junction lets it through). Then it
moves into the ego's lane if it is not there already (0.3 s on its own lane first),
keeps 80 % of the ego's speed for the lane change (2 s) and 3 s more, and goes
(destroyed), as ScenarioRunner's CutIn and ActorDestroy do."""

from __future__ import annotations

from typing import Any

from scenarios.base import Scenario
from scenarios.behaviours import (
    TM_PORT,
    change_lane,
    follow_lane,
    speed_of,
    step,
    wait_until,
)
from scenarios.errors import ScenarioError
from scenarios.library._flows import BLUEPRINT, lifted
from scenarios.params import Param

CUT_IN_DISTANCE = 10.0  # m past the junction's exit
SYNC_END = 5.0  # m from the target: the synchronised approach ends
SPEED_FRACTION = 0.8
SAME_LANE_TIME = 0.3
CHANGE_TIME = 2.0
OTHER_LANE_TIME = 3.0
EXIT_SPACE = 170.0  # m past the junction's exit kept free of background vehicles
CLEAR_RADIUS = 30.0  # m around the vehicle's place: background vehicles removed
MIN_SPEED = 4.0  # m/s: the synchronised speed's floor, so an ego that waits for the
# vehicle at the junction does not hold it there for ever
WALK = 1.0


def _exit_after(wp: Any, toward: Any | None, limit: float = 300.0) -> Any | None:
    """The first waypoint past the next junction along `wp`'s lane (at a fork, the branch
    ending nearest `toward`, else the first)."""
    inside = False
    travelled = 0.0
    while travelled < limit:
        options = wp.next(WALK)
        if not options:
            return None
        if toward is not None:
            options = sorted(options, key=lambda o: o.transform.location.distance(toward))
        wp = options[0]
        travelled += WALK
        if wp.is_junction:
            inside = True
        elif inside:
            return wp
    return None


class HighwayCutIn(Scenario):
    type_name = "HighwayCutIn"
    parameters = (Param("other_actor_location", "location"),)

    def setup(self) -> None:
        carla_map = self.world.get_map()
        self.other_wp = carla_map.get_waypoint(self.params["other_actor_location"])
        if self.other_wp is None:
            raise ScenarioError(f"scenario {self.name}: other_actor_location is off the road")
        self.reference = self._route_exit()
        exit_wp = _exit_after(self.other_wp, self.reference)
        if exit_wp is None or self.reference is None:
            raise ScenarioError(
                f"scenario {self.name}: no junction ahead of other_actor_location "
                f"{self.params['other_actor_location']} and the trigger"
            )
        ahead = exit_wp.next(CUT_IN_DISTANCE)
        if not ahead:
            raise ScenarioError(f"scenario {self.name}: no road to cut in on past the junction")
        self.target = ahead[0].transform.location
        self.vehicle: Any = None

    def _route_exit(self) -> Any | None:
        """Where the ego's route leaves the first junction past the trigger."""
        carla_map = self.world.get_map()
        inside = False
        for tf, _ in self.plan[self.trigger_index :]:
            wp = carla_map.get_waypoint(tf.location)
            if wp is not None and wp.is_junction:
                inside = True
            elif inside:
                return tf.location
        return None

    def behaviour(self) -> None:
        self._clear()
        self.vehicle = self.spawn(BLUEPRINT, lifted(self.other_wp.transform))
        follow_lane(self.vehicle, 0.0, ignore_vehicles=True, ignore_lights=True)
        tm = self.world.get_trafficmanager(TM_PORT)
        tm.ignore_signs_percentage(self.vehicle, 100.0)
        tm.set_path(self.vehicle, [self.reference, self.target])
        wait_until(self._synchronise)
        tm.ignore_vehicles_percentage(self.vehicle, 0.0)
        if not self._in_ego_lane():
            self._hold_speed(SAME_LANE_TIME)
            change_lane(self.vehicle, self._side_of_ego())
        self._hold_speed(CHANGE_TIME + OTHER_LANE_TIME)
        self.vehicle.destroy()

    def _clear(self) -> None:
        """Removes the background vehicles near the vehicle's place and those on the ego's
        route from here to EXIT_SPACE m past the junction, and no more come from the
        vehicle's entry into the junction, which is kept clear (ScenarioRunner clears the
        junction, removes that entry and extends the road exit so the cut-in has room)."""
        background = self.ctx.background
        if background is None:
            return
        to_exit = self.ego.get_location().distance(self.reference)
        background.clear_ahead(0.0, to_exit + EXIT_SPACE)
        background.clear_near(self.other_wp.transform.location, CLEAR_RADIUS)
        background.handle_junction(clear_junction=True, remove_entries=[self.other_wp])

    def _synchronise(self) -> bool:
        """One tick of the synchronised approach: the speed that brings the vehicle to the
        target when the ego reaches the reference; True once within SYNC_END of it."""
        left = self.vehicle.get_location().distance(self.target)
        if left < SYNC_END:
            return True
        ego_speed = speed_of(self.ego)
        ego_left = self.ego.get_location().distance(self.reference)
        speed = left * ego_speed / max(ego_left, 0.1)
        speed = max(speed, MIN_SPEED)
        tm = self.world.get_trafficmanager(TM_PORT)
        tm.set_desired_speed(self.vehicle, speed * 3.6)
        return False

    def _hold_speed(self, seconds: float) -> None:
        tm = self.world.get_trafficmanager(TM_PORT)
        passed = 0.0
        while passed < seconds:
            tm.set_desired_speed(self.vehicle, SPEED_FRACTION * speed_of(self.ego) * 3.6)
            passed += step().delta_seconds

    def _lanes(self) -> tuple[Any, Any]:
        carla_map = self.world.get_map()
        return (
            carla_map.get_waypoint(self.vehicle.get_location()),
            carla_map.get_waypoint(self.ego.get_location()),
        )

    def _in_ego_lane(self) -> bool:
        mine, ego = self._lanes()
        return (mine.road_id, mine.lane_id) == (ego.road_id, ego.lane_id)

    def _side_of_ego(self) -> str:
        mine, _ = self._lanes()
        left = mine.get_left_lane()
        ego_loc = self.ego.get_location()
        right = mine.get_right_lane()
        if left is None:
            return "right"
        if right is None:
            return "left"
        near_left = left.transform.location.distance(ego_loc)
        return "left" if near_left <= right.transform.location.distance(ego_loc) else "right"
