"""The RSS world model of one tick: the ego against each other road user near it, as CARLA's
RssCheck::CreateWorldModel builds it.

The others are the vehicles and walkers within max(the ego's stopping distance, 100 m) of
the ego, in id order. The constellation callback says, for each, how to check the pair
(structured, unstructured, not relevant) and with which dynamics; ad-rss's world-model
creation turns the pair and the ego's route into constellations. The green traffic lights
on the route give the ego its right of way at the next junction (CARLA's rule: the light
whose box lies on an incoming lane of the route's next junction; green gives priority).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from world.actors.vehicle_state import ActorType, TrafficLightState
from world.sensors.rss.bindings import ad
from world.sensors.rss.data import (
    RssActorConstellationData,
    RssActorConstellationResult,
    RssEgoDynamicsOnRoute,
)
from world.sensors.rss.matching import MatchCache, heading_change, signed_speed
from world.sensors.rss.route import runs_wrong_way

__all__ = ["EgoState", "build_world_model", "object_data", "others_near"]

MIN_RELEVANT_DISTANCE = 100.0  # m: others nearer than this (or the stopping distance) count
LIGHT_MATCH_DISTANCE = 0.25  # m, CARLA's match of a light's box centre to lanes
LIGHT_MATCH_PROBABILITY = 0.1

ConstellationCallback = Callable[[RssActorConstellationData], RssActorConstellationResult]


@dataclass(slots=True)
class EgoState:
    """The ego as this tick's check sees it."""

    actor_id: int
    match: Any  # ad.map.match.Object
    route: Any  # ad.map.route.FullRoute
    motion: RssEgoDynamicsOnRoute
    default_dynamics: Any  # ad.rss.world.RssDynamics


def object_data(
    object_id: int,
    object_type: Any,
    match: Any,
    speed: float,
    yaw_rate: float,
    steering_angle: float,
    dynamics: Any,
) -> Any:
    """An ad.rss.map.RssObjectData with one speed (its range's both ends)."""
    lib = ad()
    physics = lib.physics
    data = lib.rss.map.RssObjectData()
    data.id = object_id
    data.type = object_type
    data.match_object = match
    data.speed_range.minimum = physics.Speed(speed)
    data.speed_range.maximum = physics.Speed(speed)
    data.yaw_rate = physics.AngularVelocity(yaw_rate)
    data.steering_angle = physics.Angle(steering_angle)
    data.rss_dynamics = dynamics
    return data


def _ego_data(ego: EgoState, dynamics: Any) -> Any:
    motion = ego.motion
    return object_data(
        ego.actor_id,
        ad().rss.world.ObjectType.EgoVehicle,
        ego.match,
        float(motion.ego_speed.toBaseType),
        float(motion.ego_heading_change.toBaseType),
        float(motion.ego_steering_angle.toBaseType),
        dynamics,
    )


def others_near(world: Any, ego_id: int, min_stopping_distance: float) -> list[int]:
    """Ids of the live vehicles and walkers (not the ego) near enough to the ego, ascending."""
    actors = world.state_tables().actors
    n = actors.n
    kind = actors.kind[:n]
    road_user = actors.alive[:n] & (
        (kind == int(ActorType.Vehicle)) | (kind == int(ActorType.Walker))
    )
    road_user[ego_id - 1] = False
    offset = actors.pos[:n] - actors.pos[ego_id - 1]
    squared = offset * offset
    distance = np.sqrt(squared[:, 0] + squared[:, 1] + squared[:, 2])
    relevant = max(min_stopping_distance, MIN_RELEVANT_DISTANCE)
    return (np.flatnonzero(road_user & (distance < relevant)) + 1).tolist()


def ask(
    callback: ConstellationCallback, data: RssActorConstellationData
) -> RssActorConstellationResult:
    """The callback's answer; its error (or an answer of the wrong type) gives the defaults,
    with a warning, as CARLA prints the Python error and goes on."""
    try:
        result = callback(data)
    except Exception as exc:  # the user's code: any error it raises is reported, not fatal
        warnings.warn(
            f"sensor.other.rss: the actor constellation callback raised {exc!r}; "
            "the pair is not checked",
            RuntimeWarning,
            stacklevel=2,
        )
        return RssActorConstellationResult()
    if not isinstance(result, RssActorConstellationResult):
        warnings.warn(
            "sensor.other.rss: the actor constellation callback must return an "
            f"RssActorConstellationResult, not {type(result).__name__}; the pair is not checked",
            RuntimeWarning,
            stacklevel=2,
        )
        return RssActorConstellationResult()
    return result


class LightMatches:
    """Each traffic light's box centre matched to the map's lanes, once per light (lights
    never move)."""

    def __init__(self) -> None:
        self._by_id: dict[int, Any] = {}

    def lanes(self, light: Any) -> Any:
        found = self._by_id.get(light.id)
        if found is None:
            lib = ad()
            box = light.trigger_volume
            centre = light.get_transform().transform(box.location)
            found = lib.map.match.AdMapMatching().getMapMatchedPositions(
                lib.map.point.createENUPoint(centre.x, -centre.y, 0.0),
                lib.physics.Distance(LIGHT_MATCH_DISTANCE),
                lib.physics.Probability(LIGHT_MATCH_PROBABILITY),
            )
            self._by_id[light.id] = found
        return found


def green_lights_on_route(world: Any, route: Any, matches: LightMatches) -> Any:
    """The LandmarkIdSet that gives the ego priority at the route's next traffic-light
    junction: one entry (CARLA's stand-in id) when its light is green, else empty."""
    lib = ad()
    green = lib.map.landmark.LandmarkIdSet()
    junction = lib.map.intersection.Intersection.getNextIntersectionOnRoute(route)
    if junction is None or (
        junction.intersectionType != lib.map.intersection.IntersectionType.TrafficLight
    ):
        return green
    incoming = {
        int(lane.mLaneId)
        for lane in junction.incomingLanesOnRoute
        if not runs_wrong_way(route, lane)  # the route spans the road: not its opposite lanes
    }
    actors = world.state_tables().actors
    n = actors.n
    lights = np.flatnonzero(actors.alive[:n] & (actors.kind[:n] == int(ActorType.TrafficLight)))
    for row in lights.tolist():  # a light per loop: each is matched to lanes by ad_map_access
        light = world.get_actor(row + 1)
        for position in matches.lanes(light):
            lane_id = position.lane_point.para_point.lane_id
            if int(lane_id.mLaneId) not in incoming:
                continue
            if light.get_state() == TrafficLightState.Green:
                green.insert(lib.map.landmark.LandmarkId.getMax())
            else:
                green = lib.map.landmark.LandmarkIdSet()  # a red or yellow light: no priority
            break
    return green


def build_world_model(
    world: Any,
    frame: int,
    ego: EgoState,
    callback: ConstellationCallback,
    road_boundaries: bool,
    light_matches: LightMatches,
    matches: MatchCache,
) -> Any:
    """The ad.rss.world.WorldModel of this tick."""
    lib = ad()
    creation = lib.rss.map.RssWorldModelCreation(frame, ego.default_dynamics)
    green = green_lights_on_route(world, ego.route, light_matches)
    near = others_near(world, ego.actor_id, float(ego.motion.min_stopping_distance.toBaseType))
    matches.keep({ego.actor_id, *near})
    for other_id in near:  # per other: ad-rss matches and pairs each object itself
        other = world.get_actor(other_id)
        try:
            transform = other.get_transform()
            match = matches.match(other_id, transform, other.bounding_box.extent)
            data = RssActorConstellationData(ego.match, ego.route, ego.motion, match, other)
            result = ask(callback, data)
            other_data = object_data(
                other_id,
                result.actor_object_type,
                match,
                signed_speed(transform, other.get_velocity()),
                heading_change(other.get_angular_velocity()),
                0.0,
                result.actor_dynamics,
            )
            creation.appendConstellations(
                _ego_data(ego, result.ego_vehicle_dynamics),
                ego.route,
                other_data,
                result.restrict_speed_limit_mode,
                green,
                result.rss_calculation_mode,
            )
        except (RuntimeError, ValueError, IndexError, OverflowError) as exc:  # from ad-rss
            warnings.warn(
                f"sensor.other.rss: actor {other_id} left out of frame {frame}'s check: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
    if road_boundaries:
        dynamics = lib.rss.world.RssDynamics(ego.default_dynamics)
        dynamics.alpha_lat.accel_max = lib.physics.Acceleration(0.0)
        creation.appendRoadBoundaries(
            _ego_data(ego, dynamics), ego.route, lib.rss.map.RssAppendRoadBoundariesMode.RouteOnly
        )
    return creation.getWorldModel()
