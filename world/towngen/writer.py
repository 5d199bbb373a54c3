"""Writes a Town as OpenDRIVE 1.4 text: elements and attributes in a fixed order, numbers in
their shortest round-trip form, so the same town always gives the same bytes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from world.towngen.model import Geometry, Lane, Link, Road, RoadMark, Town


def num(value: float) -> str:
    """A coordinate, length or angle: rounded to 1e-12 (clears trigonometric noise like
    6e-17), then the shortest text that reads back as the same double."""
    rounded = round(value, 12) + 0.0
    text = repr(rounded)
    return text[:-2] if text.endswith(".0") else text


def coef(value: float) -> str:
    """A polynomial coefficient, kept at full precision (cubic terms are tiny)."""
    text = repr(value + 0.0)
    return text[:-2] if text.endswith(".0") else text


def _sub(parent: ET.Element, tag: str, **attrs: str) -> ET.Element:
    return ET.SubElement(parent, tag, {k.rstrip("_"): v for k, v in attrs.items()})


def write_opendrive(town: Town) -> str:
    """The town as an OpenDRIVE document."""
    root = ET.Element("OpenDRIVE")
    west, south, east, north = town.bounds
    header = _sub(
        root, "header", revMajor="1", revMinor="4", name=town.name, version="1",
        north=num(north), south=num(south), east=num(east), west=num(west), vendor="lockstep",
    )  # fmt: skip
    geo = _sub(header, "geoReference")
    geo.text = "+proj=tmerc +lat_0=42.0 +lon_0=2.0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m"
    for road in town.roads:
        _road(root, road)
    for junction in town.junctions:
        for controller in junction.controllers:
            element = _sub(
                root, "controller", name=f"ctrl{controller.id}", id=controller.id,
                sequence=str(controller.sequence),
            )  # fmt: skip
            for signal_id in controller.signal_ids:
                _sub(element, "control", signalId=signal_id, type="0")
    for junction in town.junctions:
        element = _sub(root, "junction", id=junction.id, name=junction.name)
        for connection in junction.connections:
            conn = _sub(
                element, "connection", id=str(connection.id), incomingRoad=connection.incoming,
                connectingRoad=connection.connecting, contactPoint="start",
            )  # fmt: skip
            for lane_from, lane_to in connection.lane_links:
                _sub(conn, "laneLink", from_=str(lane_from), to=str(lane_to))
        for controller in junction.controllers:
            _sub(element, "controller", id=controller.id, type="0",
                 sequence=str(controller.sequence))  # fmt: skip
    ET.indent(root, space="    ")
    body = ET.tostring(root, encoding="unicode", short_empty_elements=True)
    body = body.replace(" />", "/>")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _link(parent: ET.Element, tag: str, link: Link | None) -> None:
    if link is None:
        return
    attrs = {"elementType": link.element_type, "elementId": link.element_id}
    if link.contact is not None:
        attrs["contactPoint"] = link.contact
    _sub(parent, tag, **attrs)


def _road(root: ET.Element, road: Road) -> None:
    element = _sub(
        root, "road", name=road.name, length=num(road.length), id=road.id, junction=road.junction
    )
    link = _sub(element, "link")
    _link(link, "predecessor", road.predecessor)
    _link(link, "successor", road.successor)
    kind = _sub(element, "type", s="0", type="town")
    _sub(kind, "speed", max=str(road.speed_kmh), unit="km/h")
    plan_view = _sub(element, "planView")
    for geometry in road.geometries:
        _geometry(plan_view, geometry)
    elevation = _sub(element, "elevationProfile")
    for s, a, b, c, d in road.elevation:
        _sub(elevation, "elevation", s=num(s), a=coef(a), b=coef(b), c=coef(c), d=coef(d))
    lateral = _sub(element, "lateralProfile")
    _sub(lateral, "superelevation", s="0", a="0", b="0", c="0", d="0")
    lanes = _sub(element, "lanes")
    a, b, c, d = road.lane_offset
    _sub(lanes, "laneOffset", s="0", a=coef(a), b=coef(b), c=coef(c), d=coef(d))
    section = _sub(lanes, "laneSection", s="0")
    if road.left:
        left = _sub(section, "left")
        for lane in road.left:
            _lane(left, lane)
    center = _sub(section, "center")
    center_lane = _sub(center, "lane", id="0", type="none", level="false")
    _mark(center_lane, road.center_mark)
    if road.right:
        right = _sub(section, "right")
        for lane in road.right:
            _lane(right, lane)
    if road.crosswalks:
        objects = _sub(element, "objects")
        for crosswalk in road.crosswalks:
            _crosswalk(objects, crosswalk)
    if road.signals:
        signals = _sub(element, "signals")
        for signal in road.signals:
            _signal(signals, signal)


def _geometry(parent: ET.Element, g: Geometry) -> None:
    element = _sub(
        parent, "geometry", s=num(g.s), x=num(g.x), y=num(g.y), hdg=num(g.hdg),
        length=num(g.length),
    )  # fmt: skip
    if g.kind == "line":
        _sub(element, "line")
    elif g.kind == "arc":
        _sub(element, "arc", curvature=coef(g.curvature))
    else:
        _sub(element, "spiral", curvStart=coef(g.curv_start), curvEnd=coef(g.curv_end))


def _lane(parent: ET.Element, lane: Lane) -> None:
    element = _sub(parent, "lane", id=str(lane.id), type=lane.type, level="false")
    if lane.predecessor is not None or lane.successor is not None:
        link = _sub(element, "link")
        if lane.predecessor is not None:
            _sub(link, "predecessor", id=str(lane.predecessor))
        if lane.successor is not None:
            _sub(link, "successor", id=str(lane.successor))
    _sub(element, "width", sOffset="0", a=num(lane.width), b="0", c="0", d="0")
    _mark(element, lane.mark)
    if lane.height:
        _sub(element, "height", sOffset="0", inner=num(lane.height), outer=num(lane.height))


def _mark(parent: ET.Element, mark: RoadMark) -> None:
    attrs = {"sOffset": "0", "type": mark.type, "weight": "standard", "color": mark.color}
    if mark.type != "none":
        attrs["width"] = "0.15"
    attrs["laneChange"] = mark.lane_change
    _sub(parent, "roadMark", **attrs)


def _crosswalk(parent: ET.Element, crosswalk) -> None:
    element = _sub(
        parent, "object", id=crosswalk.id, name="crosswalk", type="crosswalk",
        s=num(crosswalk.s), t=num(crosswalk.t), zOffset="0", hdg="0", pitch="0", roll="0",
        orientation="none", length=num(crosswalk.length), width=num(crosswalk.width),
    )  # fmt: skip
    outline = _sub(element, "outline")
    du, dv = 0.5 * crosswalk.length, 0.5 * crosswalk.width
    for u, v in ((du, dv), (-du, dv), (-du, -dv), (du, -dv), (du, dv)):
        _sub(outline, "cornerLocal", u=num(u), v=num(v), z="0")


def _signal(parent: ET.Element, signal) -> None:
    attrs = {
        "name": signal.name,
        "id": signal.id,
        "s": num(signal.s),
        "t": num(signal.t),
        "zOffset": num(signal.z_offset),
        "hOffset": "0",
        "roll": "0",
        "pitch": "0",
        "orientation": signal.orientation,
        "dynamic": "yes" if signal.dynamic else "no",
        "country": "OpenDRIVE",
        "type": signal.type,
        "subtype": signal.subtype,
        "value": num(signal.value),
    }
    if signal.unit is not None:
        attrs["unit"] = signal.unit
    attrs.update({"text": "", "height": num(signal.height), "width": num(signal.width)})
    element = _sub(parent, "signal", **attrs)
    _sub(element, "validity", fromLane=str(signal.from_lane), toLane=str(signal.to_lane))
