"""Read an OpenDRIVE 1.4-1.8 document into `world.map.opendrive.model` dataclasses.

The tree is built by the standard library's C parser for speed; only when an
element is rejected is the text parsed a second time with expat to find that
element's line for the error message.

Every number must be finite and within world.map.opendrive.limits (a bound on every
magnitude and on a spiral's turn, lengths up to MAX_LENGTH), and every road link, junction
reference, junction connection and signal reference must name a road, junction or signal
of the document. A lane link to a lane the linked section lacks is kept, and the road
graph ignores it, as CARLA and libOpenDRIVE do.

The rounding and sloppiness of real exported maps (CARLA's own towns among them) load,
repaired, each kind said once with a count in `OpenDrive.repairs`: a planView geometry
shorter than MIN_LENGTH (CARLA's towns hold one of 9.4e-7 m) is dropped, its neighbours
covering its stretch of s; an s or sOffset outside its road (a signalReference 0.9 m past
its road's end) is clamped into the road, where CARLA places it too.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.parsers import expat

from world.map.opendrive.errors import OpenDriveError
from world.map.opendrive.limits import (
    MAX_INTEGER,
    MAX_LENGTH,
    MAX_MAGNITUDE,
    MAX_SPIRAL_TURN,
    MIN_LENGTH,
    S_SLACK,
    read_map_bytes,
)
from world.map.opendrive.model import (
    ArcGeometry,
    Connection,
    Control,
    Controller,
    CornerLocal,
    CornerRoad,
    CrossfallRecord,
    CubicRecord,
    Geometry,
    Header,
    InertialPosition,
    Junction,
    JunctionController,
    Lane,
    LaneHeight,
    LaneLink,
    LaneSection,
    LaneSpeed,
    LineGeometry,
    ObjectRepeat,
    OpenDrive,
    Outline,
    ParamPoly3Geometry,
    ParkingSpace,
    Poly3Geometry,
    Road,
    RoadLink,
    RoadMark,
    RoadMarkLine,
    RoadObject,
    RoadType,
    ShapeRecord,
    Signal,
    SignalDependency,
    SignalReference,
    Speed,
    SpiralGeometry,
    Validity,
)

__all__ = ["geo_reference_origin", "load_opendrive", "parse_opendrive"]

_SPEED_UNITS = ("m/s", "mph", "km/h")
_NO_LIMIT = ("no limit", "undefined")


class _RejectedError(Exception):
    """An element that cannot be read; turned into OpenDriveError with its line."""

    def __init__(self, element: ET.Element, message: str) -> None:
        super().__init__(message)
        self.element = element
        self.message = message


def load_opendrive(path: str | Path) -> OpenDrive:
    """Read an .xodr file (a regular file within limits.MAX_FILE_BYTES). OSError propagates;
    bad content, a non-regular or huge file raise OpenDriveError."""
    path = Path(path)
    return parse_opendrive(read_map_bytes(path), source=str(path))


class _Repairs:
    """What a read repaired, by kind: (element, what was done) -> count and the largest
    amount (m) found; one line each, in the order first met."""

    def __init__(self) -> None:
        self.kinds: dict[tuple[str, str], list[float]] = {}

    def note(self, element: str, what: str, amount: float) -> None:
        seen = self.kinds.setdefault((element, what), [0, 0.0])
        seen[0] += 1
        seen[1] = max(seen[1], amount)

    def lines(self) -> list[str]:
        return [
            what.format(count=int(count), tag=f"<{element}>", amount=amount)
            for (element, what), (count, amount) in self.kinds.items()
        ]


_repairs = _Repairs()  # the read in progress's (a read is one call, on one thread)

_TINY_GEOMETRY = (
    "{count} {tag} shorter than " + f"{MIN_LENGTH:g}" + " m (the longest {amount:.2g} m): "
    "dropped, the road's neighbouring geometries cover their stretch of s"
)
_S_OUTSIDE = (
    "{count} {tag} with an s outside its road (up to {amount:.3g} m): clamped into the road, "
    "where CARLA places them"
)


def parse_opendrive(text: str | bytes, source: str = "<string>") -> OpenDrive:
    """Parse OpenDRIVE XML text; `source` names the file in error messages."""
    global _repairs
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise OpenDriveError(f"not well-formed XML ({exc})", source=source, line=line) from None
    _repairs = _Repairs()
    try:
        if root.tag != "OpenDRIVE":
            raise _RejectedError(root, f"expected root element <OpenDRIVE>, found <{root.tag}>")
        doc = _read_document(root, source)
        doc.repairs = _repairs.lines()
        return doc
    except _RejectedError as exc:
        raise OpenDriveError(
            exc.message,
            source=source,
            element=exc.element.tag,
            line=_line_of(text, root, exc.element),
            element_id=exc.element.get("id"),
            within=_within(root, exc.element),
        ) from None


def _within(root: ET.Element, element: ET.Element) -> tuple[str, ...]:
    """The enclosing elements that name `element`, innermost first, as `tag id='...'`: the
    nearest one with an id and, when that is not a top-level element (a road, junction or
    controller), the top-level one holding it too."""
    parents = {child: parent for parent in root.iter() for child in parent}
    found: list[str] = []
    here = parents.get(element)
    while here is not None and here is not root:
        top = parents.get(here) is root
        if here.get("id") is not None and (not found or top):
            shown = here.get("id", "")
            shown = shown if len(shown) <= 40 else shown[:40] + "..."
            found.append(f"{here.tag} id={shown!r}")
        here = parents.get(here)
    return tuple(found)


def _shown(value: str) -> str:
    """A found value as a message quotes it: repr of at most 40 characters."""
    return repr(value) if len(value) <= 40 else repr(value[:40]) + f" (+{len(value) - 40} chars)"


def _line_of(text: str | bytes, root: ET.Element, element: ET.Element) -> int | None:
    """The line of `element`, found by re-parsing with expat and counting elements in order."""
    index = next((i for i, e in enumerate(root.iter()) if e is element), None)
    if index is None:
        return None
    lines: list[int] = []
    parser = expat.ParserCreate()

    def start(name: str, attrs: dict[str, str]) -> None:
        lines.append(parser.CurrentLineNumber)

    parser.StartElementHandler = start
    parser.Parse(text, True)
    return lines[index] if index < len(lines) else None


# ---- attribute helpers ----------------------------------------------------------------------


def _req(e: ET.Element, name: str) -> str:
    value = e.get(name)
    if value is None:
        raise _RejectedError(e, f"missing attribute '{name}'")
    return value


def _float(e: ET.Element, name: str, default: float | None = 0.0) -> float:
    """A float attribute; `default` None makes it required."""
    value = e.get(name)
    if value is None:
        if default is None:
            raise _RejectedError(e, f"missing attribute '{name}' (expected a number)")
        return default
    return _number(e, name, value)


def _opt_float(e: ET.Element, name: str) -> float | None:
    """A float attribute that may be absent or empty (None then)."""
    value = e.get(name)
    return None if value is None or value == "" else _number(e, name, value)


def _number(e: ET.Element, name: str, value: str) -> float:
    """A finite number of magnitude at most MAX_MAGNITUDE."""
    try:
        number = float(value)
    except ValueError:
        raise _RejectedError(
            e, f"attribute '{name}': expected a number, found {_shown(value)}"
        ) from None
    if not math.isfinite(number) or abs(number) > MAX_MAGNITUDE:
        raise _RejectedError(
            e,
            f"attribute '{name}': expected a finite number of magnitude at most "
            f"{MAX_MAGNITUDE:g}, found {_shown(value)}",
        )
    return number


def _ranged(
    e: ET.Element, name: str, value: float, low: float, high: float, what: str = ""
) -> float:
    """`value` of attribute `name` if low <= value <= high, else rejected saying so."""
    if not low <= value <= high:
        raise _RejectedError(
            e, f"attribute '{name}': expected {what or f'{low:g} .. {high:g}'}, found {value!r}"
        )
    return value


def _length(e: ET.Element, name: str, low: float = MIN_LENGTH) -> float:
    """A required length (road, geometry): `low` .. MAX_LENGTH metres."""
    what = f"a length of {low:g} .. {MAX_LENGTH:g} m"
    return _ranged(e, name, _float(e, name, None), low, MAX_LENGTH, what)


def _s(e: ET.Element, name: str, road_length: float, default: float | None = 0.0) -> float:
    """An s or sOffset of its road: one more than S_SLACK outside [0, road_length] is
    clamped into it (a repair, noted)."""
    value = _float(e, name, default)
    if -S_SLACK <= value <= road_length + S_SLACK:
        return value
    _repairs.note(e.tag, _S_OUTSIDE, max(-value, value - road_length))
    return min(max(value, 0.0), road_length)


def _int(e: ET.Element, name: str, default: int | None = None) -> int:
    value = e.get(name)
    if value is None:
        if default is None:
            raise _RejectedError(e, f"missing attribute '{name}' (expected an integer)")
        return default
    try:
        number = int(value)
    except ValueError:
        try:
            real = float(value)
        except ValueError:
            real = math.nan
        if not real.is_integer():
            raise _RejectedError(
                e, f"attribute '{name}': expected an integer, found {_shown(value)}"
            ) from None
        number = int(real)
    if abs(number) > MAX_INTEGER:
        raise _RejectedError(
            e,
            f"attribute '{name}': expected an integer of magnitude at most {MAX_INTEGER}, "
            f"found {_shown(value)}",
        )
    return number


def _opt_int(e: ET.Element, name: str) -> int | None:
    return None if e.get(name) in (None, "") else _int(e, name)


def _bool(e: ET.Element, name: str, default: bool = False) -> bool:
    value = e.get(name)
    if value is None or value == "":
        return default
    low = value.lower()
    if low in ("true", "1", "yes"):
        return True
    if low in ("false", "0", "no"):
        return False
    raise _RejectedError(e, f"attribute '{name}': expected true/false, found {_shown(value)}")


def _cubic(e: ET.Element, s_name: str, road_length: float) -> CubicRecord:
    return CubicRecord(
        _s(e, s_name, road_length), _float(e, "a"), _float(e, "b"), _float(e, "c"), _float(e, "d")
    )


def _speed(e: ET.Element) -> Speed:
    unit = e.get("unit") or "m/s"
    if unit not in _SPEED_UNITS:
        raise _RejectedError(
            e, f"attribute 'unit': expected one of {_SPEED_UNITS}, found {_shown(unit)}"
        )
    raw = e.get("max")
    if raw is not None and raw.lower() in _NO_LIMIT:
        return Speed(math.inf, unit)
    return Speed(
        _ranged(e, "max", _float(e, "max", None), 0.0, MAX_MAGNITUDE, "a speed >= 0"), unit
    )


def _contact(e: ET.Element, name: str, default: str | None) -> str | None:
    value = e.get(name)
    if value is None:
        return default
    if value not in ("start", "end"):
        raise _RejectedError(
            e, f"attribute '{name}': expected 'start' or 'end', found {_shown(value)}"
        )
    return value


# ---- document -------------------------------------------------------------------------------


def _read_document(root: ET.Element, source: str) -> OpenDrive:
    header_el = root.find("header")
    header = _read_header(header_el) if header_el is not None else Header()
    doc = OpenDrive(header=header, source=source)
    for child in root:
        tag = child.tag
        if tag == "road":
            road = _read_road(child)
            if road.id in doc.roads:
                raise _RejectedError(child, f"duplicate road id {road.id!r}")
            doc.roads[road.id] = road
        elif tag == "junction":
            junction = _read_junction(child)
            if junction.id in doc.junctions:
                raise _RejectedError(child, f"duplicate junction id {junction.id!r}")
            doc.junctions[junction.id] = junction
        elif tag == "controller":
            controller = _read_controller(child)
            doc.controllers[controller.id] = controller
    _check_links(root, doc)
    return doc


def _check_links(root: ET.Element, doc: OpenDrive) -> None:
    """Every road link, road junction, signal reference and junction connection names an
    element of `doc`."""
    for road_el in root.iterfind("road"):
        junction = road_el.get("junction", "-1")
        if junction != "-1" and junction not in doc.junctions:
            raise _RejectedError(
                road_el,
                f"attribute 'junction': expected the id of a <junction> of the file, "
                f"found {_shown(junction)}",
            )
        for link in road_el.iterfind("link/*"):
            if link.tag not in ("predecessor", "successor"):
                continue
            kind, target = link.get("elementType", "road"), link.get("elementId", "")
            known = doc.roads if kind == "road" else doc.junctions
            if target not in known:
                raise _RejectedError(
                    link,
                    f"attribute 'elementId': expected the id of a <{kind}> of the file, "
                    f"found {_shown(target)}",
                )
    signals = {signal.id for road in doc.roads.values() for signal in road.signals}
    for reference in root.iterfind("road/signals/signalReference"):
        if reference.get("id") not in signals:
            raise _RejectedError(
                reference,
                "attribute 'id': expected the id of a <signal> of the file, "
                f"found {_shown(reference.get('id', ''))}",
            )
    for junction_el in root.iterfind("junction"):
        for connection in junction_el.iterfind("connection"):
            for name in ("incomingRoad", "connectingRoad", "linkedRoad"):
                target = connection.get(name)
                if target is not None and target not in doc.roads:
                    raise _RejectedError(
                        connection,
                        f"attribute '{name}': expected the id of a <road> of the file, "
                        f"found {_shown(target)}",
                    )


def _read_header(e: ET.Element) -> Header:
    header = Header(
        rev_major=_int(e, "revMajor", 1),
        rev_minor=_int(e, "revMinor", 4),
        name=e.get("name", ""),
        version=e.get("version", ""),
        date=e.get("date", ""),
        vendor=e.get("vendor", ""),
        north=_float(e, "north"),
        south=_float(e, "south"),
        east=_float(e, "east"),
        west=_float(e, "west"),
    )
    geo = e.find("geoReference")
    if geo is not None:
        header.geo_reference = "".join(geo.itertext()).strip()
        try:
            header.lat_0, header.lon_0 = geo_reference_origin(header.geo_reference)
        except ValueError as exc:
            raise _RejectedError(geo, str(exc)) from None
    for data in e.findall("userData"):
        code = data.get("code")
        if code is not None:
            header.user_data.setdefault(code, data.get("value", ""))
    return header


def geo_reference_origin(text: str) -> tuple[float | None, float | None]:
    """lat_0 and lon_0 of a geoReference string (None where absent), read as CARLA 0.9.x
    reads them: space-separated `+key=value` items, an item with more than one '=' ignored.

    Raises ValueError naming the parameter when its value is not a number (CARLA's
    std::stod refuses such a map too).
    """
    values: dict[str, float] = {}
    for item in text.split(" "):
        key, *rest = item.split("=")
        if len(rest) != 1 or key not in ("+lat_0", "+lon_0"):
            continue
        try:
            values[key] = float(rest[0])
        except ValueError:
            raise ValueError(f"{key}: expected a number, found {rest[0]!r}") from None
    return values.get("+lat_0"), values.get("+lon_0")


def _read_road(e: ET.Element) -> Road:
    road = Road(
        id=_req(e, "id"),
        length=_length(e, "length"),
        name=e.get("name", ""),
        junction=e.get("junction", "-1"),
        rule=(e.get("rule") or "RHT").upper(),
    )
    if road.rule not in ("RHT", "LHT"):
        raise _RejectedError(
            e, f"attribute 'rule': expected RHT or LHT, found {_shown(e.get('rule', ''))}"
        )
    length = road.length
    for child in e:
        tag = child.tag
        if tag == "link":
            for link in child:
                if link.tag == "predecessor":
                    road.predecessor = _read_road_link(link)
                elif link.tag == "successor":
                    road.successor = _read_road_link(link)
        elif tag == "type":
            speed_el = child.find("speed")
            road.types.append(
                RoadType(
                    s=_s(child, "s", length),
                    type=child.get("type", ""),
                    country=child.get("country", ""),
                    speed=_speed(speed_el) if speed_el is not None else None,
                )
            )
        elif tag == "planView":
            read = [(g, _read_geometry(g, length)) for g in child.iter("geometry")]
            kept = [(g, geometry) for g, geometry in read if geometry.length >= MIN_LENGTH]
            for g, geometry in read:
                if geometry.length < MIN_LENGTH:
                    _repairs.note(g.tag, _TINY_GEOMETRY, geometry.length)
            road.geometries = [geometry for _, geometry in kept]
            _check_spirals([g for g, _ in kept], road.geometries, length)
        elif tag == "elevationProfile":
            road.elevation = [_cubic(x, "s", length) for x in child.iter("elevation")]
        elif tag == "lateralProfile":
            _read_lateral(child, road)
        elif tag == "lanes":
            _read_lanes(child, road)
        elif tag == "signals":
            _read_signals(child, road)
        elif tag == "objects":
            road.objects = [_read_object(o, length) for o in child.iter("object")]
    if not road.geometries:
        raise _RejectedError(e, "road has no <planView>/<geometry>")
    if not road.lane_sections:
        raise _RejectedError(e, "road has no <lanes>/<laneSection>")
    return road


def _check_spirals(elements: list[ET.Element], geometries: list[Geometry], length: float) -> None:
    """Each spiral turns at most MAX_SPIRAL_TURN rad over the stretch of s it serves (from its
    start to the next geometry's, or the road's end; the first also back to s = 0)."""
    order = sorted(range(len(geometries)), key=lambda i: geometries[i].s)
    for rank, i in enumerate(order):
        g = geometries[i]
        if not isinstance(g, SpiralGeometry):
            continue
        end = geometries[order[rank + 1]].s if rank + 1 < len(order) else length
        reach = max(g.length, end - g.s, g.s if rank == 0 else 0.0)
        rate = abs(g.curv_end - g.curv_start) / g.length
        turn = abs(g.curv_start) * reach + 0.5 * rate * reach * reach
        if turn > MAX_SPIRAL_TURN:
            raise _RejectedError(
                elements[i],
                f"spiral: expected a turn of at most {MAX_SPIRAL_TURN:g} rad over its "
                f"{reach:g} m, found {turn:.6g} rad (curvStart {g.curv_start!r}, "
                f"curvEnd {g.curv_end!r}, length {g.length!r})",
            )


def _read_road_link(e: ET.Element) -> RoadLink:
    kind = e.get("elementType", "road")
    if kind not in ("road", "junction"):
        raise _RejectedError(
            e, f"attribute 'elementType': expected road or junction, found {kind!r}"
        )
    contact = _contact(e, "contactPoint", "start") if kind == "road" else None
    return RoadLink(kind, _req(e, "elementId"), contact)


def _read_geometry(e: ET.Element, road_length: float) -> Geometry:
    base = (
        _s(e, "s", road_length, None),
        _float(e, "x", None),
        _float(e, "y", None),
        _float(e, "hdg", None),
        _length(e, "length", 0.0),  # shorter than MIN_LENGTH: dropped by the road
    )
    shape = next(iter(e), None)
    if shape is None:
        raise _RejectedError(e, "expected a <line>, <arc>, <spiral>, <poly3> or <paramPoly3> child")
    tag = shape.tag
    if tag == "line":
        return LineGeometry(*base)
    if tag == "arc":
        return ArcGeometry(*base, curvature=_float(shape, "curvature", None))
    if tag == "spiral":
        return SpiralGeometry(
            *base,
            curv_start=_float(shape, "curvStart", None),
            curv_end=_float(shape, "curvEnd", None),
        )
    if tag == "poly3":
        f = _float
        return Poly3Geometry(*base, f(shape, "a"), f(shape, "b"), f(shape, "c"), f(shape, "d"))
    if tag == "paramPoly3":
        p_range = shape.get("pRange", "normalized")
        if p_range.lower() == "arclength":
            p_range = "arcLength"
        elif p_range.lower() == "normalized":
            p_range = "normalized"
        else:
            raise _RejectedError(
                shape,
                f"attribute 'pRange': expected arcLength or normalized, found {_shown(p_range)}",
            )
        names = ("aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV")
        return ParamPoly3Geometry(*base, *(_float(shape, n) for n in names), p_range=p_range)
    raise _RejectedError(
        shape,
        f"unknown geometry: expected line, arc, spiral, poly3 or paramPoly3, found <{tag[:40]}>",
    )


def _read_lateral(e: ET.Element, road: Road) -> None:
    for child in e:
        if child.tag == "superelevation":
            road.superelevation.append(_cubic(child, "s", road.length))
        elif child.tag == "crossfall":
            side = (child.get("side") or "both").lower()
            if side not in ("both", "left", "right"):
                raise _RejectedError(
                    child,
                    f"attribute 'side': expected both, left or right, found {_shown(side)}",
                )
            record = _cubic(child, "s", road.length)
            road.crossfall.append(
                CrossfallRecord(record.s, record.a, record.b, record.c, record.d, side)
            )
        elif child.tag == "shape":
            road.shapes.append(
                ShapeRecord(
                    _s(child, "s", road.length),
                    _float(child, "t"),
                    _float(child, "a"),
                    _float(child, "b"),
                    _float(child, "c"),
                    _float(child, "d"),
                )
            )


def _read_lanes(e: ET.Element, road: Road) -> None:
    for child in e:
        if child.tag == "laneOffset":
            road.lane_offsets.append(_cubic(child, "s", road.length))
        elif child.tag == "laneSection":
            section = _read_lane_section(child, road.length)
            if road.lane_sections and section.s < road.lane_sections[-1].s:
                raise _RejectedError(
                    child,
                    f"attribute 's': expected lane sections in order of s, at least the "
                    f"previous section's {road.lane_sections[-1].s!r}, found {section.s!r}",
                )
            road.lane_sections.append(section)


def _read_lane_section(e: ET.Element, road_length: float) -> LaneSection:
    start, single_side = _s(e, "s", road_length, None), _bool(e, "singleSide")
    lanes: dict[int, Lane] = {}
    for side in e:
        if side.tag in ("left", "center", "right"):
            for lane_el in side.iter("lane"):
                lane = _read_lane(lane_el, road_length)
                if lane.id in lanes:
                    raise _RejectedError(
                        lane_el, f"duplicate lane id {lane.id} in its <laneSection>"
                    )
                lanes[lane.id] = lane
    lanes.setdefault(0, Lane(0))
    return LaneSection(s=start, single_side=single_side, lanes=dict(sorted(lanes.items())))


def _read_lane(e: ET.Element, road_length: float) -> Lane:
    lane = Lane(id=_int(e, "id"), type=e.get("type", "none"), level=_bool(e, "level"))
    for child in e:
        tag = child.tag
        if tag == "width":
            lane.widths.append(_cubic(child, "sOffset", road_length))
        elif tag == "roadMark":
            lane.road_marks.append(
                RoadMark(
                    s_offset=_s(child, "sOffset", road_length),
                    type=child.get("type", "none"),
                    weight=child.get("weight", "standard"),
                    color=child.get("color", "standard"),
                    material=child.get("material", "standard"),
                    width=_opt_float(child, "width"),
                    lane_change=child.get("laneChange", "both"),
                    height=_float(child, "height"),
                    lines=[
                        _road_mark_line(line)
                        for kind in child.findall("type")
                        for line in kind.findall("line")
                    ],
                )
            )
        elif tag == "link":
            for link in child:
                if link.tag == "predecessor":
                    lane.predecessor = _int(link, "id")
                elif link.tag == "successor":
                    lane.successor = _int(link, "id")
        elif tag == "border":
            lane.borders.append(_cubic(child, "sOffset", road_length))
        elif tag == "speed":
            lane.speeds.append(LaneSpeed(_s(child, "sOffset", road_length), _speed(child)))
        elif tag == "height":
            lane.heights.append(
                LaneHeight(
                    _s(child, "sOffset", road_length),
                    _float(child, "inner"),
                    _float(child, "outer"),
                )
            )
    return lane


def _road_mark_line(e: ET.Element) -> RoadMarkLine:
    """A roadMark's <type><line>: lengths are metres >= 0."""
    length, space = _float(e, "length"), _float(e, "space")
    for name, value in (("length", length), ("space", space)):
        if value < 0.0:
            raise _RejectedError(e, f"attribute '{name}': expected metres >= 0, found {value!r}")
    return RoadMarkLine(
        length=length,
        space=space,
        t_offset=_float(e, "tOffset"),
        s_offset=_float(e, "sOffset"),
        width=_opt_float(e, "width"),
        rule=e.get("rule", "none"),
    )


def _validity(e: ET.Element) -> Validity:
    return Validity(_int(e, "fromLane"), _int(e, "toLane"))


def _validities(e: ET.Element) -> list[Validity]:
    return [_validity(v) for v in e if v.tag == "validity"]


def _read_signals(e: ET.Element, road: Road) -> None:
    for child in e:
        if child.tag == "signal":
            road.signals.append(_read_signal(child, road.length))
        elif child.tag == "signalReference":
            road.signal_references.append(
                SignalReference(
                    id=_req(child, "id"),
                    s=_s(child, "s", road.length, None),
                    t=_float(child, "t", None),
                    orientation=child.get("orientation", "none"),
                    validities=_validities(child),
                )
            )


def _read_signal(e: ET.Element, road_length: float) -> Signal:
    return Signal(
        id=_req(e, "id"),
        s=_s(e, "s", road_length, None),
        t=_float(e, "t", None),
        name=e.get("name", ""),
        dynamic=_bool(e, "dynamic"),
        orientation=e.get("orientation", "none"),
        z_offset=_float(e, "zOffset"),
        h_offset=_float(e, "hOffset"),
        country=e.get("country", ""),
        type=e.get("type", ""),
        subtype=e.get("subtype", ""),
        value=_opt_float(e, "value"),
        unit=e.get("unit", ""),
        height=_opt_float(e, "height"),
        width=_opt_float(e, "width"),
        text=e.get("text", ""),
        pitch=_float(e, "pitch"),
        roll=_float(e, "roll"),
        validities=_validities(e),
        dependencies=[
            SignalDependency(_req(d, "id"), d.get("type", "")) for d in e if d.tag == "dependency"
        ],
        position_inertial=_inertial(e.find("positionInertial")),
    )


def _inertial(e: ET.Element | None) -> InertialPosition | None:
    if e is None:
        return None
    return InertialPosition(
        _float(e, "x", None),
        _float(e, "y", None),
        _float(e, "z"),
        _float(e, "hdg"),
        _float(e, "pitch"),
        _float(e, "roll"),
    )


def _read_object(e: ET.Element, road_length: float) -> RoadObject:
    obj = RoadObject(
        id=_req(e, "id"),
        s=_s(e, "s", road_length, None),
        t=_float(e, "t", None),
        type=e.get("type", ""),
        subtype=e.get("subtype", ""),
        name=e.get("name", ""),
        z_offset=_float(e, "zOffset"),
        hdg=_float(e, "hdg"),
        pitch=_float(e, "pitch"),
        roll=_float(e, "roll"),
        orientation=e.get("orientation", "none"),
        length=_opt_float(e, "length"),
        width=_opt_float(e, "width"),
        height=_opt_float(e, "height"),
        radius=_opt_float(e, "radius"),
    )
    for child in e:
        if child.tag == "outline":
            obj.outlines.append(_read_outline(child, road_length))
        elif child.tag == "outlines":
            obj.outlines.extend(_read_outline(o, road_length) for o in child if o.tag == "outline")
        elif child.tag == "repeat":
            obj.repeats.append(_read_repeat(child, road_length))
        elif child.tag == "validity":
            obj.validities.append(_validity(child))
        elif child.tag == "parkingSpace":
            obj.parking_space = ParkingSpace(
                child.get("access", "all"), child.get("restrictions", "")
            )
    return obj


def _read_outline(e: ET.Element, road_length: float) -> Outline:
    outline = Outline(id=e.get("id", ""), closed=_bool(e, "closed", True))
    for c in e:
        if c.tag == "cornerLocal":
            corner = CornerLocal(
                _float(c, "u", None), _float(c, "v", None), _float(c, "z"), _float(c, "height")
            )
            outline.corners.append(corner)
        elif c.tag == "cornerRoad":
            corner = CornerRoad(
                _s(c, "s", road_length, None),
                _float(c, "t", None),
                _float(c, "dz"),
                _float(c, "height"),
            )
            outline.corners.append(corner)
    return outline


def _read_repeat(e: ET.Element, road_length: float) -> ObjectRepeat:
    o = _opt_float
    return ObjectRepeat(
        s=_s(e, "s", road_length, None),
        length=_ranged(e, "length", _float(e, "length", None), 0.0, MAX_LENGTH),
        distance=_ranged(e, "distance", _float(e, "distance"), 0.0, MAX_LENGTH),
        t_start=o(e, "tStart"),
        t_end=o(e, "tEnd"),
        width_start=o(e, "widthStart"),
        width_end=o(e, "widthEnd"),
        height_start=o(e, "heightStart"),
        height_end=o(e, "heightEnd"),
        z_offset_start=o(e, "zOffsetStart"),
        z_offset_end=o(e, "zOffsetEnd"),
    )


def _read_junction(e: ET.Element) -> Junction:
    junction = Junction(id=_req(e, "id"), name=e.get("name", ""), type=e.get("type", "default"))
    for child in e:
        if child.tag == "connection":
            connection = Connection(
                id=child.get("id", ""),
                incoming_road=child.get("incomingRoad", ""),
                connecting_road=child.get("connectingRoad") or child.get("linkedRoad", ""),
                contact_point=_contact(child, "contactPoint", "start"),
                lane_links=[
                    LaneLink(_int(x, "from"), _int(x, "to")) for x in child if x.tag == "laneLink"
                ],
            )
            junction.connections.append(connection)
        elif child.tag == "controller":
            junction.controllers.append(
                JunctionController(
                    _req(child, "id"), child.get("type", ""), _opt_int(child, "sequence")
                )
            )
    return junction


def _read_controller(e: ET.Element) -> Controller:
    return Controller(
        id=_req(e, "id"),
        name=e.get("name", ""),
        sequence=_opt_int(e, "sequence"),
        controls=[Control(_req(c, "signalId"), c.get("type", "")) for c in e if c.tag == "control"],
    )
