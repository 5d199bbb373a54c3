"""CARLA's Landmark: one OpenDRIVE signal as placed on one road (a signal or a signalReference).

The fields are CARLA's (client/Landmark.h): where the placement is (road, s, t),
the signal's own data (id, name, type, subtype, value, unit, sizes, offsets;
angles in radians as the file gives them), the distance from the waypoint a
search started at, the waypoint where it applies, and the signal's transform.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from world.enums import CarlaEnum
from world.geometry import Transform
from world.map.opendrive import Signal, Validity
from world.map.waypoint import Waypoint, public_id

__all__ = ["TRAFFIC_LIGHT_TYPES", "Landmark", "LandmarkOrientation", "LandmarkType", "Placement"]


class LandmarkOrientation(CarlaEnum):
    """Which travel direction a landmark faces: with s (+), against s (-), or both."""

    Positive = 0
    Negative = 1
    Both = 2


class LandmarkType:
    """OpenDRIVE signal type codes CARLA names (carla.LandmarkType), as strings."""

    Danger = "101"
    LanesMerging = "121"
    CautionPedestrian = "133"
    CautionBicycle = "138"
    LevelCrossing = "150"
    YieldSign = "205"
    StopSign = "206"
    MandatoryTurnDirection = "209"
    MandatoryLeftRightDirection = "211"
    TwoChoiceTurnDirection = "214"
    Roundabout = "215"
    PassRightLeft = "222"
    AccessForbidden = "250"
    AccessForbiddenMotorvehicles = "251"
    AccessForbiddenTrucks = "253"
    AccessForbiddenBicycle = "254"
    AccessForbiddenWeight = "263"
    AccessForbiddenWidth = "264"
    AccessForbiddenHeight = "265"
    AccessForbiddenWrongDirection = "267"
    ForbiddenUTurn = "272"
    MaximumSpeed = "274"
    ForbiddenOvertakingMotorvehicles = "276"
    ForbiddenOvertakingTrucks = "277"
    AbsoluteNoStop = "283"
    RestrictedStop = "286"
    HasWayNextIntersection = "301"
    PriorityWay = "306"
    PriorityWayEnd = "307"
    CityBegin = "310"
    CityEnd = "311"
    Highway = "330"
    DeadEnd = "357"
    RecomendedSpeed = "380"
    RecomendedSpeedEnd = "381"


# Signal types CARLA treats as traffic lights (road::SignalType::IsTrafficLight).
TRAFFIC_LIGHT_TYPES = frozenset(
    (
        "1000001",
        "1000002",
        "1000007",
        "1000008",
        "1000009",
        "1000010",
        "1000011",
        "1000012",
        "1000013",
        "1000014",
        "1000015",
        "1000016",
        "1000017",
        "1000018",
        "1000019",
        "1000020",
        "F",
        "W",
        "A",
    )
)

_ORIENTATIONS = {"+": LandmarkOrientation.Positive, "-": LandmarkOrientation.Negative}


@dataclass(slots=True)
class Placement:
    """A signal placed on a road at (s, t) with the lanes it is valid for (a RoadInfoSignal).

    For a <signalReference>, `road`, `s` and `t` are the reference's own, as CARLA's
    MapBuilder stores them; the transform is still the referenced signal's."""

    road: str
    s: float
    t: float
    orientation: str
    signal: Signal
    transform: Transform
    validities: list[Validity] = field(default_factory=list)

    def valid_for(self, lane_id: int) -> bool:
        return any(v.from_lane <= lane_id <= v.to_lane for v in self.validities)


class Landmark:
    """A signal on a road, with CARLA's carla.Landmark attributes."""

    __slots__ = ("_distance", "_placement", "_waypoint")

    def __init__(
        self, placement: Placement, waypoint: Waypoint | None = None, distance: float = 0.0
    ) -> None:
        self._placement = placement
        self._waypoint = waypoint
        self._distance = float(distance)

    @property
    def road_id(self) -> int | str:
        """The road the landmark is placed on (for a signalReference, the referencing road)."""
        return public_id(self._placement.road)

    @property
    def distance(self) -> float:
        return self._distance

    @property
    def s(self) -> float:
        return self._placement.s

    @property
    def t(self) -> float:
        return self._placement.t

    @property
    def id(self) -> str:
        return self._placement.signal.id

    @property
    def name(self) -> str:
        return self._placement.signal.name

    @property
    def is_dynamic(self) -> bool:
        return self._placement.signal.dynamic

    @property
    def orientation(self) -> LandmarkOrientation:
        return _ORIENTATIONS.get(self._placement.orientation, LandmarkOrientation.Both)

    @property
    def z_offset(self) -> float:
        return self._placement.signal.z_offset

    @property
    def country(self) -> str:
        return self._placement.signal.country

    @property
    def type(self) -> str:
        return self._placement.signal.type

    @property
    def sub_type(self) -> str:
        return self._placement.signal.subtype

    @property
    def value(self) -> float:
        value = self._placement.signal.value
        return -1.0 if value is None else value

    @property
    def unit(self) -> str:
        return self._placement.signal.unit

    @property
    def height(self) -> float:
        return self._placement.signal.height or 0.0

    @property
    def width(self) -> float:
        return self._placement.signal.width or 0.0

    @property
    def text(self) -> str:
        return self._placement.signal.text

    @property
    def h_offset(self) -> float:
        return self._placement.signal.h_offset

    @property
    def pitch(self) -> float:
        return self._placement.signal.pitch

    @property
    def roll(self) -> float:
        return self._placement.signal.roll

    @property
    def waypoint(self) -> Waypoint | None:
        return self._waypoint

    @property
    def transform(self) -> Transform:
        return self._placement.transform.copy()

    def get_lane_validities(self) -> list[tuple[int, int]]:
        """(from_lane, to_lane) ranges this landmark applies to."""
        return [(v.from_lane, v.to_lane) for v in self._placement.validities]

    def __repr__(self) -> str:
        return f"Landmark(id={self.id!r}, type={self.type!r}, road_id={self.road_id}, s={self.s})"
