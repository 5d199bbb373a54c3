"""One listening RSS sensor's check, tick by tick, as CARLA's RssCheck::CheckObjects runs it.

Each tick: match the ego to the map (a jump of more than 10 m since the last tick drops
the route), keep its route, work its motion on the route, ask the constellation callback
for the ego's own dynamics, build the world model with every road user near, let ad-rss
work the proper response, and loosen what the road's borders alone asked (CARLA's
AnalyseCheckResults: a border never makes the ego brake; a lateral restriction a border
alone asked marks the ego as crossing it).

The default constellation callback is CARLA's: walkers are checked unstructured with the
pedestrian dynamics, vehicles structured with the other-vehicle dynamics (no acceleration
for one standing still), and the ego's lateral acceleration allowance grows to the
average lateral acceleration it shows (at most 20 m/s²).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from world.sensors.rss.bindings import ad
from world.sensors.rss.data import (
    RssActorConstellationData,
    RssActorConstellationResult,
    RssEgoDynamicsOnRoute,
    RssRoadBoundariesMode,
)
from world.sensors.rss.dynamics import other_vehicle_dynamics, pedestrian_dynamics, vehicle_dynamics
from world.sensors.rss.ego_motion import ego_motion_on_route
from world.sensors.rss.matching import MatchCache, heading_change, signed_speed
from world.sensors.rss.route import RouteKeeper
from world.sensors.rss.world_model import (
    ConstellationCallback,
    EgoState,
    LightMatches,
    ask,
    build_world_model,
)
from world.snapshot import Timestamp

__all__ = ["CheckOutcome", "RssCheck"]

JUMP_DISTANCE = 10.0  # m: the ego moved further than this in one tick: plan a new route
MAX_LATERAL_ALLOWANCE = 20.0  # m/s²


@dataclass(slots=True)
class CheckOutcome:
    """What one tick's check hands the sensor's RssResponse."""

    valid: bool
    proper_response: Any
    rss_state_snapshot: Any
    situation_snapshot: Any
    world_model: Any
    ego_dynamics_on_route: RssEgoDynamicsOnRoute


def _copy_dynamics(dynamics: Any) -> Any:
    return ad().rss.world.RssDynamics(dynamics)


class RssCheck:
    """The RSS state of one sensor while it listens: route, motion, dynamics, ad-rss's checker."""

    def __init__(
        self,
        ego: Any,
        max_steering_angle: float,
        callback: ConstellationCallback | None,
        rng: np.random.Generator,
    ) -> None:
        lib = ad()
        self.ego_vehicle_dynamics = vehicle_dynamics()
        self.other_vehicle_dynamics = other_vehicle_dynamics()
        self.pedestrian_dynamics = pedestrian_dynamics()
        self.road_boundaries_mode = RssRoadBoundariesMode.Off
        self._max_steering_angle = max_steering_angle  # rad, at steer 1
        self._callback = callback if callback is not None else self._default_callback
        self.routes = RouteKeeper(rng)
        self._lights = LightMatches()
        self._matches = MatchCache()
        self._core = lib.rss.core.RssCheck()
        self._motion = RssEgoDynamicsOnRoute()
        self._default_ego = _copy_dynamics(self.ego_vehicle_dynamics)
        self._ego_match = lib.map.match.Object()  # not matched yet: no jump to see
        if callback is not None:  # CARLA asks a user's callback for the ego's dynamics at once
            self._ego_match = self._matches.match(
                ego.id, ego.get_transform(), ego.bounding_box.extent
            )
            self._update_default_dynamics()

    def check(self, world: Any, ego: Any, timestamp: Timestamp) -> CheckOutcome:
        """This tick's check of `ego` in `world`; a failure of ad-rss gives an invalid outcome."""
        lib = ad()
        try:
            return self._check(world, ego, timestamp)
        except (RuntimeError, ValueError, IndexError, OverflowError) as exc:  # from ad-rss
            warnings.warn(
                f"sensor.other.rss: frame {timestamp.frame}'s check failed: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
            return CheckOutcome(
                False,
                lib.rss.state.ProperResponse(),
                lib.rss.state.RssStateSnapshot(),
                lib.rss.core.RssSituationSnapshot(),
                lib.rss.world.WorldModel(),
                RssEgoDynamicsOnRoute(),
            )

    def _check(self, world: Any, ego: Any, timestamp: Timestamp) -> CheckOutcome:
        lib = ad()
        transform = ego.get_transform()
        match = self._matches.match(ego.id, transform, ego.bounding_box.extent)
        before = self._ego_match.enu_position.center_point
        if lib.map.point.isValid(before, False):
            jump = float(lib.map.point.distance(before, match.enu_position.center_point).toBaseType)
            if jump > JUMP_DISTANCE:
                self.routes.drop()
        self._ego_match = match
        self.routes.update(match)
        speed = signed_speed(transform, ego.get_velocity())
        steering = -self._max_steering_angle * float(ego.get_control().steer)
        self._motion = ego_motion_on_route(
            timestamp,
            speed,
            heading_change(ego.get_angular_velocity()),
            steering,
            match,
            self.routes.route,
            self._default_ego,
            self._motion,
        )
        self._update_default_dynamics()
        state = EgoState(ego.id, match, self.routes.route, self._motion, self._default_ego)
        world_model = build_world_model(
            world,
            timestamp.frame,
            state,
            self._callback,
            self.road_boundaries_mode == RssRoadBoundariesMode.On,
            self._lights,
            self._matches,
        )
        situation = lib.rss.core.RssSituationSnapshot()
        states = lib.rss.state.RssStateSnapshot()
        response = lib.rss.state.ProperResponse()
        if not self._core.calculateProperResponse(world_model, situation, states, response):
            none_lat = getattr(lib.rss.state.LateralResponse, "None")
            response.lateral_response_right = none_lat
            response.lateral_response_left = none_lat
            response.longitudinal_response = getattr(lib.rss.state.LongitudinalResponse, "None")
        self._loosen_border_responses(states, response)
        return CheckOutcome(True, response, states, situation, world_model, self._motion.copy())

    def _update_default_dynamics(self) -> None:
        """The ego's dynamics for the world model: the callback's answer with no other actor."""
        data = RssActorConstellationData(
            self._ego_match, self.routes.route, self._motion, ad().map.match.Object(), None
        )
        self._default_ego = ask(self._callback, data).ego_vehicle_dynamics

    def _loosen_border_responses(self, states: Any, response: Any) -> None:
        """Keeps only the restrictions other road users (not the borders alone) asked for."""
        lib = ad()
        state_ops = lib.rss.state
        no_lon = getattr(state_ops.LongitudinalResponse, "None")
        no_lat = getattr(state_ops.LateralResponse, "None")
        right_border = lib.rss.structured.getRightBorderObjectId()
        left_border = lib.rss.structured.getLeftBorderObjectId()
        left_border_danger = right_border_danger = False
        lon_by_user = left_by_user = right_by_user = False
        for state in states.individual_responses:
            if not state_ops.isDangerous(state):
                continue
            if state.object_id == right_border:
                right_border_danger = True
            elif state.object_id == left_border:
                left_border_danger = True
            else:
                lon_by_user |= state.longitudinal_state.response != no_lon
                left_by_user |= state.lateral_state_left.response != no_lat
                right_by_user |= state.lateral_state_right.response != no_lat
        restrictions = response.acceleration_restrictions
        if not lon_by_user and response.longitudinal_response != no_lon:
            response.longitudinal_response = no_lon
            restrictions.longitudinal_range.maximum = self._default_ego.alpha_lon.accel_max
        if not left_by_user and not left_border_danger and response.lateral_response_left != no_lat:
            response.lateral_response_left = no_lat
            restrictions.lateral_left_range.maximum = self._default_ego.alpha_lat.accel_max
            self._motion.crossing_border = True
        if (
            not right_by_user
            and not right_border_danger
            and response.lateral_response_right != no_lat
        ):
            response.lateral_response_right = no_lat
            restrictions.lateral_right_range.maximum = self._default_ego.alpha_lat.accel_max
            self._motion.crossing_border = True

    def _default_callback(self, data: RssActorConstellationData) -> RssActorConstellationResult:
        """CARLA's default answer for a pair (see the module's docstring)."""
        lib = ad()
        modes = lib.rss.map.RssConstellationCreationMode
        result = RssActorConstellationResult(
            rss_calculation_mode=modes.NotRelevant,
            restrict_speed_limit_mode=lib.rss.map.RssRestrictSpeedLimitMode.IncreasedSpeedLimit10,
            ego_vehicle_dynamics=_copy_dynamics(self.ego_vehicle_dynamics),
            actor_object_type=lib.rss.world.ObjectType.Invalid,
            actor_dynamics=_copy_dynamics(self.other_vehicle_dynamics),
        )
        other = data.other_actor
        if other is not None:
            if other.type_id.startswith("walker."):
                result.rss_calculation_mode = modes.Unstructured
                result.actor_object_type = lib.rss.world.ObjectType.Pedestrian
                result.actor_dynamics = _copy_dynamics(self.pedestrian_dynamics)
            elif other.type_id.startswith("vehicle."):
                result.rss_calculation_mode = modes.Structured
                result.actor_object_type = lib.rss.world.ObjectType.OtherVehicle
                if signed_speed(other.get_transform(), other.get_velocity()) == 0.0:
                    # standing: it is not assumed to start off within its response time
                    result.actor_dynamics.alpha_lon.accel_max = lib.physics.Acceleration(0.0)
        lateral = math.fabs(float(data.ego_dynamics_on_route.avg_route_accel_lat.toBaseType))
        allowance = result.ego_vehicle_dynamics.alpha_lat
        if lateral > float(allowance.accel_max.toBaseType):
            allowance.accel_max = lib.physics.Acceleration(min(MAX_LATERAL_ALLOWANCE, lateral))
        return result
