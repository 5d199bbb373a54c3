"""The OpenDRIVE document as plain dataclasses, in the file's own terms and right-handed frame.

Values keep the file's units (metres, radians) and its ids as strings. Lane
records keep `s_offset` relative to their lane section, as written; road-level
profiles (elevation, superelevation, laneOffset) keep absolute `s`. Nothing
here evaluates geometry: see `world.map.opendrive.evaluation`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
    "ArcGeometry",
    "Connection",
    "Control",
    "Controller",
    "CornerLocal",
    "CornerRoad",
    "CrossfallRecord",
    "CubicRecord",
    "Geometry",
    "Header",
    "InertialPosition",
    "Junction",
    "JunctionController",
    "Lane",
    "LaneHeight",
    "LaneLink",
    "LaneSection",
    "LaneSpeed",
    "LineGeometry",
    "ObjectRepeat",
    "OpenDrive",
    "Outline",
    "ParamPoly3Geometry",
    "ParkingSpace",
    "Poly3Geometry",
    "Road",
    "RoadLink",
    "RoadMark",
    "RoadMarkLine",
    "RoadObject",
    "RoadType",
    "ShapeRecord",
    "Signal",
    "SignalDependency",
    "SignalReference",
    "Speed",
    "SpiralGeometry",
    "Validity",
    "speed_to_kmh",
]

# Factors from a speed unit of OpenDRIVE's <speed unit=...> to km/h.
_KMH_PER_UNIT = {"km/h": 1.0, "m/s": 3.6, "mph": 1.609344}


def speed_to_kmh(value: float, unit: str) -> float:
    """A speed in km/h; OpenDRIVE's default unit is m/s. Raises KeyError on an unknown unit."""
    return value * _KMH_PER_UNIT[unit or "m/s"]


@dataclass(slots=True)
class Header:
    """<header>: revision, name, bounds, the raw <geoReference> text with lat_0/lon_0, and
    its <userData code value> records (code -> value, the first of a code wins)."""

    rev_major: int = 1
    rev_minor: int = 4
    name: str = ""
    version: str = ""
    date: str = ""
    vendor: str = ""
    north: float = 0.0
    south: float = 0.0
    east: float = 0.0
    west: float = 0.0
    geo_reference: str = ""
    lat_0: float | None = None
    lon_0: float | None = None
    user_data: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class RoadLink:
    """A road's <predecessor>/<successor>: element type "road" or "junction", its id, contact.

    `contact_point` is "start", "end" or None (junction links have none).
    """

    element_type: str
    element_id: str
    contact_point: str | None = None


@dataclass(slots=True)
class Speed:
    """A speed limit as written (value and unit) with km/h derived; value inf means no limit."""

    max: float
    unit: str = "m/s"

    @property
    def kmh(self) -> float:
        return speed_to_kmh(self.max, self.unit)


@dataclass(slots=True)
class RoadType:
    """<type s type country>: the road type from s on, with its optional speed limit."""

    s: float
    type: str
    country: str = ""
    speed: Speed | None = None


@dataclass(slots=True)
class CubicRecord:
    """One cubic polynomial record a + b*ds + c*ds^2 + d*ds^3 starting at `s`.

    For road profiles `s` is absolute; for lane width/border records it is the
    record's sOffset from its lane section's start.
    """

    s: float
    a: float = 0.0
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0


@dataclass(slots=True)
class CrossfallRecord:
    """<lateralProfile><crossfall side s a b c d>: the road falls by this angle (rad) away
    from the reference line on `side` ("both", "left" or "right")."""

    s: float
    a: float = 0.0
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0
    side: str = "both"


@dataclass(slots=True)
class ShapeRecord:
    """<lateralProfile><shape s t a b c d>: parsed, not evaluated."""

    s: float
    t: float
    a: float = 0.0
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0


@dataclass(slots=True)
class Geometry:
    """A planView <geometry>: start s, start point, start heading (rad), length."""

    s: float
    x: float
    y: float
    hdg: float
    length: float


@dataclass(slots=True)
class LineGeometry(Geometry):
    """<line/>: straight along `hdg`."""


@dataclass(slots=True)
class ArcGeometry(Geometry):
    """<arc curvature>: constant curvature (1/m, positive turns left)."""

    curvature: float = 0.0


@dataclass(slots=True)
class SpiralGeometry(Geometry):
    """<spiral curvStart curvEnd>: a clothoid, curvature linear in s."""

    curv_start: float = 0.0
    curv_end: float = 0.0


@dataclass(slots=True)
class Poly3Geometry(Geometry):
    """Legacy <poly3 a b c d>: v = a + b*u + c*u^2 + d*u^3 in the local (u, v) frame."""

    a: float = 0.0
    b: float = 0.0
    c: float = 0.0
    d: float = 0.0


@dataclass(slots=True)
class ParamPoly3Geometry(Geometry):
    """<paramPoly3>: cubics u(p), v(p); p = s - s0 (arcLength) or (s - s0)/length (normalized)."""

    aU: float = 0.0
    bU: float = 0.0
    cU: float = 0.0
    dU: float = 0.0
    aV: float = 0.0
    bV: float = 0.0
    cV: float = 0.0
    dV: float = 0.0
    p_range: str = "normalized"


@dataclass(slots=True)
class RoadMarkLine:
    """A roadMark's <type><line>: a line `t_offset` from the border, painted `length`
    metres then left `space` metres, from `s_offset` past the roadMark's start."""

    length: float = 0.0
    space: float = 0.0
    t_offset: float = 0.0
    s_offset: float = 0.0
    width: float | None = None
    rule: str = "none"


@dataclass(slots=True)
class RoadMark:
    """<roadMark> of a lane's outer border from `s_offset` on; `lines` are its <type>'s
    <line> records, where the file gives them."""

    s_offset: float
    type: str = "none"
    weight: str = "standard"
    color: str = "standard"
    material: str = "standard"
    width: float | None = None
    lane_change: str = "both"
    height: float = 0.0
    lines: list[RoadMarkLine] = field(default_factory=list)


@dataclass(slots=True)
class LaneSpeed:
    """Lane <speed sOffset max unit>."""

    s_offset: float
    speed: Speed


@dataclass(slots=True)
class LaneHeight:
    """Lane <height sOffset inner outer>: surface offsets at the inner and outer border."""

    s_offset: float
    inner: float = 0.0
    outer: float = 0.0


@dataclass(slots=True)
class Lane:
    """A <lane> of a lane section. Lane 0 (the centre) has no widths."""

    id: int
    type: str = "none"
    level: bool = False
    widths: list[CubicRecord] = field(default_factory=list)
    borders: list[CubicRecord] = field(default_factory=list)
    road_marks: list[RoadMark] = field(default_factory=list)
    predecessor: int | None = None
    successor: int | None = None
    speeds: list[LaneSpeed] = field(default_factory=list)
    heights: list[LaneHeight] = field(default_factory=list)


@dataclass(slots=True)
class LaneSection:
    """A <laneSection>; `lanes` maps lane id to lane, in ascending id order."""

    s: float
    single_side: bool = False
    lanes: dict[int, Lane] = field(default_factory=dict)

    @property
    def left_ids(self) -> list[int]:
        """Ids of the left lanes (positive), from the centre outward."""
        return [i for i in self.lanes if i > 0]

    @property
    def right_ids(self) -> list[int]:
        """Ids of the right lanes (negative), from the centre outward."""
        return [i for i in reversed(self.lanes) if i < 0]


@dataclass(slots=True)
class Validity:
    """<validity fromLane toLane>: the lanes a signal applies to."""

    from_lane: int
    to_lane: int


@dataclass(slots=True)
class SignalDependency:
    """<dependency id type>: another signal that this one controls or depends on."""

    id: str
    type: str = ""


@dataclass(slots=True)
class InertialPosition:
    """A signal's <positionInertial x y z hdg pitch roll> (OpenDRIVE 1.5+), replacing (s, t)."""

    x: float
    y: float
    z: float = 0.0
    hdg: float = 0.0
    pitch: float = 0.0
    roll: float = 0.0


@dataclass(slots=True)
class Signal:
    """<signal> on a road at (s, t); angles in radians, orientation "+", "-" or "none"."""

    id: str
    s: float
    t: float
    name: str = ""
    dynamic: bool = False
    orientation: str = "none"
    z_offset: float = 0.0
    h_offset: float = 0.0
    country: str = ""
    type: str = ""
    subtype: str = ""
    value: float | None = None
    unit: str = ""
    height: float | None = None
    width: float | None = None
    text: str = ""
    pitch: float = 0.0
    roll: float = 0.0
    validities: list[Validity] = field(default_factory=list)
    dependencies: list[SignalDependency] = field(default_factory=list)
    position_inertial: InertialPosition | None = None


@dataclass(slots=True)
class SignalReference:
    """<signalReference>: a signal of another road placed also on this one."""

    id: str
    s: float
    t: float
    orientation: str = "none"
    validities: list[Validity] = field(default_factory=list)


@dataclass(slots=True)
class CornerLocal:
    """<cornerLocal u v z height>: an outline corner in the object's own frame."""

    u: float
    v: float
    z: float = 0.0
    height: float = 0.0


@dataclass(slots=True)
class CornerRoad:
    """<cornerRoad s t dz height>: an outline corner in road coordinates."""

    s: float
    t: float
    dz: float = 0.0
    height: float = 0.0


@dataclass(slots=True)
class Outline:
    """An object <outline>: its corners, in order."""

    id: str = ""
    closed: bool = True
    corners: list[CornerLocal | CornerRoad] = field(default_factory=list)


@dataclass(slots=True)
class ObjectRepeat:
    """<repeat>: the object repeated along s; None where the file leaves a value out."""

    s: float
    length: float
    distance: float = 0.0
    t_start: float | None = None
    t_end: float | None = None
    width_start: float | None = None
    width_end: float | None = None
    height_start: float | None = None
    height_end: float | None = None
    z_offset_start: float | None = None
    z_offset_end: float | None = None


@dataclass(slots=True)
class ParkingSpace:
    """An object's <parkingSpace access restrictions> (OpenDRIVE 1.4 parking spaces)."""

    access: str = "all"
    restrictions: str = ""


@dataclass(slots=True)
class RoadObject:
    """<object> on a road (crosswalks, parking spaces, poles, ...); angles in radians."""

    id: str
    s: float
    t: float
    type: str = ""
    subtype: str = ""
    name: str = ""
    z_offset: float = 0.0
    hdg: float = 0.0
    pitch: float = 0.0
    roll: float = 0.0
    orientation: str = "none"
    length: float | None = None
    width: float | None = None
    height: float | None = None
    radius: float | None = None
    outlines: list[Outline] = field(default_factory=list)
    repeats: list[ObjectRepeat] = field(default_factory=list)
    validities: list[Validity] = field(default_factory=list)
    parking_space: ParkingSpace | None = None


@dataclass(slots=True)
class Road:
    """A <road>: links, types, planView, profiles, lane sections, signals, objects."""

    id: str
    length: float
    name: str = ""
    junction: str = "-1"
    rule: str = "RHT"
    predecessor: RoadLink | None = None
    successor: RoadLink | None = None
    types: list[RoadType] = field(default_factory=list)
    geometries: list[Geometry] = field(default_factory=list)
    elevation: list[CubicRecord] = field(default_factory=list)
    superelevation: list[CubicRecord] = field(default_factory=list)
    crossfall: list[CrossfallRecord] = field(default_factory=list)
    shapes: list[ShapeRecord] = field(default_factory=list)
    lane_offsets: list[CubicRecord] = field(default_factory=list)
    lane_sections: list[LaneSection] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    signal_references: list[SignalReference] = field(default_factory=list)
    objects: list[RoadObject] = field(default_factory=list)

    def speed_limit_kmh(self, s: float) -> float | None:
        """The road type speed limit (km/h) in force at s, or None when no type gives one."""
        current = None
        for record in self.types:
            if record.s <= s:
                current = record
        if current is None or current.speed is None or math.isinf(current.speed.max):
            return None
        return current.speed.kmh

    def section_end(self, index: int) -> float:
        """End s of lane section `index` as libOpenDRIVE takes it: the road length for the last,
        else one ulp below the next section's start, so that s still belongs to this section."""
        if index == len(self.lane_sections) - 1:
            return self.length
        return math.nextafter(self.lane_sections[index + 1].s, -math.inf)


@dataclass(slots=True)
class LaneLink:
    """A junction connection's <laneLink from to>."""

    from_lane: int
    to_lane: int


@dataclass(slots=True)
class Connection:
    """A junction <connection>: incoming road -> connecting road (entered at contact_point)."""

    id: str
    incoming_road: str
    connecting_road: str
    contact_point: str = "start"
    lane_links: list[LaneLink] = field(default_factory=list)


@dataclass(slots=True)
class JunctionController:
    """A junction's <controller id type sequence>."""

    id: str
    type: str = ""
    sequence: int | None = None


@dataclass(slots=True)
class Junction:
    """A <junction> with its connections and controllers."""

    id: str
    name: str = ""
    type: str = "default"
    connections: list[Connection] = field(default_factory=list)
    controllers: list[JunctionController] = field(default_factory=list)


@dataclass(slots=True)
class Control:
    """A controller's <control signalId type>."""

    signal_id: str
    type: str = ""


@dataclass(slots=True)
class Controller:
    """A top-level <controller>: a group of signals switched together."""

    id: str
    name: str = ""
    sequence: int | None = None
    controls: list[Control] = field(default_factory=list)


@dataclass(slots=True)
class OpenDrive:
    """A whole document: header, roads, junctions and controllers by id, in document order."""

    header: Header
    roads: dict[str, Road] = field(default_factory=dict)
    junctions: dict[str, Junction] = field(default_factory=dict)
    controllers: dict[str, Controller] = field(default_factory=dict)
    source: str = "<string>"
    # what the read repaired of the file's sloppiness, one line per kind (parser.py)
    repairs: list[str] = field(default_factory=list)
