"""The town as plain records (roads, lanes, junctions, signals...) before it is written as XML."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Geometry:
    """One planView record: kind is "line", "arc" (curvature) or "spiral" (curv_start..end)."""

    s: float
    x: float
    y: float
    hdg: float
    length: float
    kind: str
    curvature: float = 0.0
    curv_start: float = 0.0
    curv_end: float = 0.0


@dataclass(frozen=True)
class RoadMark:
    """A lane's outer road mark (OpenDRIVE type, colour and laneChange)."""

    type: str = "none"
    color: str = "white"
    lane_change: str = "none"


@dataclass(frozen=True)
class Lane:
    """One lane of the single lane section; predecessor/successor are linked lane ids."""

    id: int
    type: str
    width: float
    mark: RoadMark
    predecessor: int | None = None
    successor: int | None = None
    height: float = 0.0


@dataclass(frozen=True)
class Link:
    """A road's predecessor or successor: a road (with contact point) or a junction."""

    element_type: str
    element_id: str
    contact: str | None = None


@dataclass(frozen=True)
class Signal:
    """A `<signal>` on a road, valid for lanes from_lane..to_lane."""

    id: str
    name: str
    s: float
    t: float
    orientation: str
    dynamic: bool
    type: str
    subtype: str
    value: float
    from_lane: int
    to_lane: int
    z_offset: float = 0.0
    height: float = 1.0
    width: float = 1.0
    unit: str | None = None


@dataclass(frozen=True)
class Crosswalk:
    """A crosswalk `<object>` centred at (s, t), `length` along the road and `width` across."""

    id: str
    s: float
    t: float
    length: float
    width: float


@dataclass
class Road:
    """One road: reference line, elevation (s, a, b, c, d) records, a laneOffset cubic
    (a, b, c, d) and one lane section."""

    id: str
    name: str
    junction: str
    geometries: list[Geometry]
    left: list[Lane]
    right: list[Lane]
    center_mark: RoadMark
    speed_kmh: int
    elevation: list[tuple[float, float, float, float, float]]
    predecessor: Link | None = None
    successor: Link | None = None
    lane_offset: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    signals: list[Signal] = field(default_factory=list)
    crosswalks: list[Crosswalk] = field(default_factory=list)

    @property
    def length(self) -> float:
        return sum(g.length for g in self.geometries)


@dataclass(frozen=True)
class Connection:
    """A junction connection: lane links (incoming lane, connecting lane), contact at start."""

    id: int
    incoming: str
    connecting: str
    lane_links: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Controller:
    """A traffic-light controller: the signals it switches together."""

    id: str
    sequence: int
    signal_ids: tuple[str, ...]


@dataclass
class Junction:
    """One junction per crossing, with its connections and (if signalised) controllers."""

    id: str
    name: str
    connections: list[Connection] = field(default_factory=list)
    controllers: list[Controller] = field(default_factory=list)


@dataclass
class Town:
    """A whole generated town, ready for the XML writer."""

    name: str
    roads: list[Road]
    junctions: list[Junction]
    bounds: tuple[float, float, float, float]  # west, south, east, north (OpenDRIVE frame)
