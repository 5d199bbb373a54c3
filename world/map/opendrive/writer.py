"""Writes an OpenDRIVE document model (world.map.opendrive.model) as OpenDRIVE 1.4 text.

Elements and attributes come in a fixed order and numbers in their shortest round-trip form,
so one document always gives the same bytes and reading the text back with
`world.map.opendrive.parse_opendrive` gives an equal document. It writes every field the model
holds; absent optional values (None, empty text) are left out.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from world.map.opendrive.model import (
    ArcGeometry,
    CornerLocal,
    CubicRecord,
    Geometry,
    Junction,
    Lane,
    LaneSection,
    LineGeometry,
    OpenDrive,
    ParamPoly3Geometry,
    Poly3Geometry,
    Road,
    RoadLink,
    RoadObject,
    Signal,
    SpiralGeometry,
    Validity,
)


def num(value: float) -> str:
    """The shortest text that reads back as the same double ("82" for 82.0, never "-0")."""
    text = repr(float(value) + 0.0)
    return text[:-2] if text.endswith(".0") else text


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _sub(parent: ET.Element, tag: str, attrs: dict[str, object | None]) -> ET.Element:
    """A child element; float values are written with `num`, None values are left out."""
    text = {}
    for key, value in attrs.items():
        if value is None:
            continue
        text[key] = num(value) if isinstance(value, float) else str(value)
    return ET.SubElement(parent, tag, text)


def write_opendrive(doc: OpenDrive) -> str:
    """The document as OpenDRIVE text, roads, controllers then junctions, in model order."""
    root = ET.Element("OpenDRIVE")
    h = doc.header
    header = _sub(
        root,
        "header",
        {
            "revMajor": h.rev_major,
            "revMinor": h.rev_minor,
            "name": h.name,
            "version": h.version,
            "date": h.date or None,
            "north": h.north,
            "south": h.south,
            "east": h.east,
            "west": h.west,
            "vendor": h.vendor or None,
        },
    )
    if h.geo_reference:
        _sub(header, "geoReference", {}).text = h.geo_reference
    for code, value in h.user_data.items():
        _sub(header, "userData", {"code": code, "value": value})
    for road in doc.roads.values():
        _road(root, road)
    for controller in doc.controllers.values():
        element = _sub(
            root,
            "controller",
            {
                "name": controller.name,
                "id": controller.id,
                "sequence": controller.sequence,
            },
        )
        for control in controller.controls:
            _sub(element, "control", {"signalId": control.signal_id, "type": control.type})
    for junction in doc.junctions.values():
        _junction(root, junction)
    ET.indent(root, space="    ")
    body = ET.tostring(root, encoding="unicode").replace(" />", "/>")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _junction(root: ET.Element, junction: Junction) -> None:
    element = _sub(
        root,
        "junction",
        {
            "id": junction.id,
            "name": junction.name,
            "type": None if junction.type == "default" else junction.type,
        },
    )
    for connection in junction.connections:
        conn = _sub(
            element,
            "connection",
            {
                "id": connection.id,
                "incomingRoad": connection.incoming_road,
                "connectingRoad": connection.connecting_road,
                "contactPoint": connection.contact_point,
            },
        )
        for link in connection.lane_links:
            _sub(conn, "laneLink", {"from": link.from_lane, "to": link.to_lane})
    for controller in junction.controllers:
        _sub(
            element,
            "controller",
            {
                "id": controller.id,
                "type": controller.type,
                "sequence": controller.sequence,
            },
        )


def _link(parent: ET.Element, tag: str, link: RoadLink | None) -> None:
    if link is not None:
        _sub(
            parent,
            tag,
            {
                "elementType": link.element_type,
                "elementId": link.element_id,
                "contactPoint": link.contact_point,
            },
        )


def _cubic(parent: ET.Element, tag: str, record: CubicRecord, s_name: str = "s") -> None:
    _sub(
        parent, tag, {s_name: record.s, "a": record.a, "b": record.b, "c": record.c, "d": record.d}
    )


def _road(root: ET.Element, road: Road) -> None:
    element = _sub(
        root,
        "road",
        {
            "name": road.name,
            "length": road.length,
            "id": road.id,
            "junction": road.junction,
            "rule": None if road.rule == "RHT" else road.rule,
        },
    )
    link = _sub(element, "link", {})
    _link(link, "predecessor", road.predecessor)
    _link(link, "successor", road.successor)
    for record in road.types:
        kind = _sub(
            element, "type", {"s": record.s, "type": record.type, "country": record.country or None}
        )
        if record.speed is not None:
            _sub(kind, "speed", {"max": record.speed.max, "unit": record.speed.unit})
    plan_view = _sub(element, "planView", {})
    for geometry in road.geometries:
        _geometry(plan_view, geometry)
    elevation = _sub(element, "elevationProfile", {})
    for record in road.elevation:
        _cubic(elevation, "elevation", record)
    lateral = _sub(element, "lateralProfile", {})
    for record in road.superelevation:
        _cubic(lateral, "superelevation", record)
    for fall in road.crossfall:
        _sub(
            lateral,
            "crossfall",
            {"side": fall.side, "s": fall.s, "a": fall.a, "b": fall.b, "c": fall.c, "d": fall.d},
        )
    for shape in road.shapes:
        _sub(
            lateral,
            "shape",
            {"s": shape.s, "t": shape.t, "a": shape.a, "b": shape.b, "c": shape.c, "d": shape.d},
        )
    lanes = _sub(element, "lanes", {})
    for record in road.lane_offsets:
        _cubic(lanes, "laneOffset", record)
    for section in road.lane_sections:
        _section(lanes, section)
    if road.objects:
        objects = _sub(element, "objects", {})
        for obj in road.objects:
            _object(objects, obj)
    if road.signals or road.signal_references:
        signals = _sub(element, "signals", {})
        for signal in road.signals:
            _signal(signals, signal)
        for ref in road.signal_references:
            reference = _sub(
                signals,
                "signalReference",
                {"id": ref.id, "s": ref.s, "t": ref.t, "orientation": ref.orientation},
            )
            _validities(reference, ref.validities)


def _geometry(parent: ET.Element, g: Geometry) -> None:
    element = _sub(
        parent, "geometry", {"s": g.s, "x": g.x, "y": g.y, "hdg": g.hdg, "length": g.length}
    )
    if isinstance(g, LineGeometry):
        _sub(element, "line", {})
    elif isinstance(g, ArcGeometry):
        _sub(element, "arc", {"curvature": g.curvature})
    elif isinstance(g, SpiralGeometry):
        _sub(element, "spiral", {"curvStart": g.curv_start, "curvEnd": g.curv_end})
    elif isinstance(g, Poly3Geometry):
        _sub(element, "poly3", {"a": g.a, "b": g.b, "c": g.c, "d": g.d})
    elif isinstance(g, ParamPoly3Geometry):
        names = ("aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV")
        attrs = {n: getattr(g, n) for n in names}
        _sub(element, "paramPoly3", {**attrs, "pRange": g.p_range})


def _section(parent: ET.Element, section: LaneSection) -> None:
    element = _sub(
        parent,
        "laneSection",
        {
            "s": section.s,
            "singleSide": "true" if section.single_side else None,
        },
    )
    sides = (
        ("left", sorted((i for i in section.lanes if i > 0), reverse=True)),
        ("center", [0]),
        ("right", sorted((i for i in section.lanes if i < 0), reverse=True)),
    )
    for side, ids in sides:
        if ids:
            group = _sub(element, side, {})
            for lane_id in ids:
                _lane(group, section.lanes[lane_id])


def _lane(parent: ET.Element, lane: Lane) -> None:
    element = _sub(parent, "lane", {"id": lane.id, "type": lane.type, "level": _flag(lane.level)})
    if lane.predecessor is not None or lane.successor is not None:
        link = _sub(element, "link", {})
        if lane.predecessor is not None:
            _sub(link, "predecessor", {"id": lane.predecessor})
        if lane.successor is not None:
            _sub(link, "successor", {"id": lane.successor})
    for record in lane.widths:
        _cubic(element, "width", record, "sOffset")
    for record in lane.borders:
        _cubic(element, "border", record, "sOffset")
    for m in lane.road_marks:
        mark = _sub(
            element,
            "roadMark",
            {
                "sOffset": m.s_offset,
                "type": m.type,
                "weight": m.weight,
                "color": m.color,
                "material": m.material,
                "width": m.width,
                "laneChange": m.lane_change,
                "height": m.height or None,
            },
        )
        if m.lines:
            kind = _sub(mark, "type", {"name": m.type, "width": m.width})
            for line in m.lines:
                _sub(
                    kind,
                    "line",
                    {
                        "length": line.length,
                        "space": line.space,
                        "tOffset": line.t_offset,
                        "sOffset": line.s_offset,
                        "rule": line.rule,
                        "width": line.width,
                    },
                )
    for speed in lane.speeds:
        _sub(
            element,
            "speed",
            {"sOffset": speed.s_offset, "max": speed.speed.max, "unit": speed.speed.unit},
        )
    for height in lane.heights:
        _sub(
            element,
            "height",
            {"sOffset": height.s_offset, "inner": height.inner, "outer": height.outer},
        )


def _object(parent: ET.Element, obj: RoadObject) -> None:
    element = _sub(
        parent,
        "object",
        {
            "id": obj.id,
            "name": obj.name,
            "type": obj.type,
            "subtype": obj.subtype or None,
            "s": obj.s,
            "t": obj.t,
            "zOffset": obj.z_offset,
            "hdg": obj.hdg,
            "pitch": obj.pitch,
            "roll": obj.roll,
            "orientation": obj.orientation,
            "length": obj.length,
            "width": obj.width,
            "height": obj.height,
            "radius": obj.radius,
        },
    )
    for outline in obj.outlines:
        group = _sub(
            element,
            "outline",
            {"id": outline.id or None, "closed": None if outline.closed else "false"},
        )
        for c in outline.corners:
            if isinstance(c, CornerLocal):
                _sub(group, "cornerLocal", {"u": c.u, "v": c.v, "z": c.z, "height": c.height})
            else:
                _sub(
                    group,
                    "cornerRoad",
                    {"s": c.s, "t": c.t, "dz": c.dz, "height": c.height},
                )
    for r in obj.repeats:
        _sub(
            element,
            "repeat",
            {
                "s": r.s,
                "length": r.length,
                "distance": r.distance,
                "tStart": r.t_start,
                "tEnd": r.t_end,
                "widthStart": r.width_start,
                "widthEnd": r.width_end,
                "heightStart": r.height_start,
                "heightEnd": r.height_end,
                "zOffsetStart": r.z_offset_start,
                "zOffsetEnd": r.z_offset_end,
            },
        )
    _validities(element, obj.validities)
    if obj.parking_space is not None:
        _sub(
            element,
            "parkingSpace",
            {"access": obj.parking_space.access, "restrictions": obj.parking_space.restrictions},
        )


def _signal(parent: ET.Element, signal: Signal) -> None:
    element = _sub(
        parent,
        "signal",
        {
            "name": signal.name,
            "id": signal.id,
            "s": signal.s,
            "t": signal.t,
            "zOffset": signal.z_offset,
            "hOffset": signal.h_offset,
            "roll": signal.roll,
            "pitch": signal.pitch,
            "orientation": signal.orientation,
            "dynamic": "yes" if signal.dynamic else "no",
            "country": signal.country,
            "type": signal.type,
            "subtype": signal.subtype,
            "value": signal.value,
            "unit": signal.unit or None,
            "text": signal.text,
            "height": signal.height,
            "width": signal.width,
        },
    )
    _validities(element, signal.validities)
    if signal.position_inertial is not None:
        p = signal.position_inertial
        _sub(
            element,
            "positionInertial",
            {"x": p.x, "y": p.y, "z": p.z, "hdg": p.hdg, "pitch": p.pitch, "roll": p.roll},
        )
    for dependency in signal.dependencies:
        _sub(element, "dependency", {"id": dependency.id, "type": dependency.type})


def _validities(parent: ET.Element, validities: list[Validity]) -> None:
    for v in validities:
        _sub(parent, "validity", {"fromLane": v.from_lane, "toLane": v.to_lane})
