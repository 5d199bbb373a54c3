"""The RSS sensor's data classes, as CARLA's RSS build names them.

`RssResponse` is what the sensor's listener gets each tick; `RssEgoDynamicsOnRoute` the
ego's motion against its route; `RssActorConstellationData` / `RssActorConstellationResult`
what a constellation callback is asked and answers. Their values are the ad-rss /
ad-map-access types (`ad.physics.Speed`, `ad.map.point.ENUPoint`, ...), made on first use,
so importing this module needs none of those libraries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from world.enums import CarlaEnum
from world.sensors.data import SensorData
from world.sensors.rss.bindings import ad
from world.snapshot import Timestamp

__all__ = [
    "RssActorConstellationData",
    "RssActorConstellationResult",
    "RssEgoDynamicsOnRoute",
    "RssLogLevel",
    "RssResponse",
    "RssRoadBoundariesMode",
]


class RssRoadBoundariesMode(CarlaEnum):
    """Whether the road's borders of the ego's route take part in the check (Off by default)."""

    Off = 0
    On = 1


class RssLogLevel(CarlaEnum):
    """The RSS libraries' log levels (spdlog's), for set_log_level / set_map_log_level."""

    trace = 0
    debug = 1
    info = 2
    warn = 3
    err = 4
    critical = 5
    off = 6


def _copy(value: Any) -> Any:
    """A copy of an ad value (their types copy on construction); plain values as they are."""
    return type(value)(value) if hasattr(value, "assign") else value


# (field, ad type path) of RssEgoDynamicsOnRoute's ad-typed fields, in CARLA's print order
_DYNAMICS_FIELDS = (
    ("ego_speed", "physics.Speed"),
    ("min_stopping_distance", "physics.Distance"),
    ("ego_center", "map.point.ENUPoint"),
    ("ego_heading", "map.point.ENUHeading"),
    ("ego_heading_change", "physics.AngularVelocity"),
    ("ego_steering_angle", "physics.Angle"),
    ("ego_center_within_route", None),
    ("crossing_border", None),
    ("route_heading", "map.point.ENUHeading"),
    ("route_nominal_center", "map.point.ENUPoint"),
    ("heading_diff", "map.point.ENUHeading"),
    ("route_speed_lat", "physics.Speed"),
    ("route_speed_lon", "physics.Speed"),
    ("route_accel_lat", "physics.Acceleration"),
    ("route_accel_lon", "physics.Acceleration"),
    ("avg_route_accel_lat", "physics.Acceleration"),
    ("avg_route_accel_lon", "physics.Acceleration"),
)


def _zero(path: str) -> Any:
    """A zero of the ad type at `path` (ENU points start at the origin)."""
    kind: Any = ad()
    if path == "map.point.ENUPoint":
        return kind.map.point.createENUPoint(0.0, 0.0, 0.0)
    for part in path.split("."):
        kind = getattr(kind, part)
    return kind(0.0)


class RssEgoDynamicsOnRoute:
    """The ego's dynamics against its route (CARLA's carla.RssEgoDynamicsOnRoute).

    The two wall-clock fields CARLA fills (time_since_epoch_check_start_ms and
    _end_ms) stay 0.0: lockstep keeps the wall clock out of sensor data.
    """

    __slots__ = (
        "timestamp",
        "time_since_epoch_check_start_ms",
        "time_since_epoch_check_end_ms",
        *(name for name, _ in _DYNAMICS_FIELDS),
    )

    def __init__(self) -> None:
        self.timestamp = Timestamp()
        self.time_since_epoch_check_start_ms = 0.0
        self.time_since_epoch_check_end_ms = 0.0
        for name, path in _DYNAMICS_FIELDS:
            setattr(self, name, False if path is None else _zero(path))

    def copy(self) -> RssEgoDynamicsOnRoute:
        """A deep copy (the ad values copied too)."""
        other = RssEgoDynamicsOnRoute.__new__(RssEgoDynamicsOnRoute)
        for name in self.__slots__:
            setattr(other, name, _copy(getattr(self, name)))
        return other

    def __str__(self) -> str:
        parts = [
            f"timestamp={self.timestamp}",
            f"time_since_epoch_check_start_ms={self.time_since_epoch_check_start_ms}",
            f"time_since_epoch_check_end_ms={self.time_since_epoch_check_end_ms}",
        ]
        for name, path in _DYNAMICS_FIELDS:
            value = getattr(self, name)
            parts.append(f"{name}={int(value) if path is None else value}")
        return f"EgoDynamicsOnRoute({', '.join(parts)})"

    __repr__ = __str__


@dataclass(slots=True)
class RssResponse(SensorData):
    """sensor.other.rss: one tick's RSS check of the parent vehicle (CARLA's carla.RssResponse).

    `response_valid` is False when the check failed; the other fields then hold what was
    computed before the failure.
    """

    response_valid: bool = False
    proper_response: Any = None
    rss_state_snapshot: Any = None
    situation_snapshot: Any = None
    world_model: Any = None
    ego_dynamics_on_route: RssEgoDynamicsOnRoute | None = None

    @property
    def acceleration_restriction(self) -> Any:
        """The proper response's acceleration restrictions (the older API's field)."""
        return self.proper_response.acceleration_restrictions

    def __str__(self) -> str:
        return (
            f"{self._head()}, valid={int(self.response_valid)}, "
            f"proper_response={self.proper_response}, "
            f"rss_state_snapshot={self.rss_state_snapshot}, "
            f"situation_snapshot={self.situation_snapshot}, world_model={self.world_model}, "
            f"ego_dynamics_on_route={self.ego_dynamics_on_route})"
        )


@dataclass(frozen=True, slots=True)
class RssActorConstellationData:
    """What a constellation callback is asked about: the ego and one other actor (or none,
    when the sensor asks for the ego's own dynamics)."""

    ego_match_object: Any
    ego_route: Any
    ego_dynamics_on_route: RssEgoDynamicsOnRoute
    other_match_object: Any
    other_actor: Any

    def __str__(self) -> str:
        other = (
            ""
            if self.other_actor is None
            else f"actor_id={self.other_actor.id}, actor_dynamics={self.other_match_object}, "
        )
        return (
            f"ActorConstellationData({other}ego_match_object={self.ego_match_object}, "
            f"ego_route={self.ego_route}, ego_dynamics_on_route={self.ego_dynamics_on_route})"
        )


@dataclass(slots=True)
class RssActorConstellationResult:
    """A constellation callback's answer: how to check the pair, and with which dynamics."""

    rss_calculation_mode: Any = field(
        default_factory=lambda: ad().rss.map.RssConstellationCreationMode.NotRelevant
    )
    restrict_speed_limit_mode: Any = field(
        default_factory=lambda: getattr(ad().rss.map.RssRestrictSpeedLimitMode, "None")
    )
    ego_vehicle_dynamics: Any = field(default_factory=lambda: ad().rss.world.RssDynamics())
    actor_object_type: Any = field(default_factory=lambda: ad().rss.world.ObjectType.Invalid)
    actor_dynamics: Any = field(default_factory=lambda: ad().rss.world.RssDynamics())

    def __str__(self) -> str:
        return (
            f"ActorConstellationResult(rss_calculation_mode={self.rss_calculation_mode}, "
            f"restrict_speed_limit_mode={self.restrict_speed_limit_mode}, "
            f"ego_vehicle_dynamics={self.ego_vehicle_dynamics}, "
            f"actor_object_type={self.actor_object_type}, "
            f"actor_dynamics={self.actor_dynamics})"
        )
