"""Routes to evaluate: inline in a config, or read from a leaderboard route XML file.

Both of the leaderboard's formats read: 1.0 (`<route id town>` with
`<waypoint x y z .../>` children and an optional `<weather .../>`) and 2.0
(`<waypoints><position x y z/>`, `<weathers><weather route_percentage .../>`,
`<scenarios><scenario name type><trigger_point x y z yaw/>...`). A subset such
as "0-2,5" selects routes as the leaderboard's route parser does: a range runs
from the route with the first id to the one with the second, in file order;
the chosen routes keep the file's order.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import ConfigError

__all__ = ["RouteDefinition", "read_route_file", "select_subset"]


@dataclass(frozen=True)
class RouteDefinition:
    """One route: its id, town (None: the config's map), key points in CARLA's frame, its
    weathers ((route_percentage, {field: value}), empty: the config's) and scenarios."""

    id: str
    town: str | None
    points: tuple[tuple[float, float, float], ...]
    weathers: tuple[tuple[float, dict[str, float]], ...] = ()
    scenarios: tuple[dict[str, Any], ...] = field(default=())
    source: str = ""


def _float(element: ET.Element, name: str, where: str) -> float:
    text = element.get(name)
    if text is None:
        raise ConfigError(f"{where}: <{element.tag}> has no {name!r} attribute")
    try:
        return float(text)
    except ValueError:
        raise ConfigError(f"{where}: <{element.tag}> {name}={text!r} is not a number") from None


def read_route_file(path: str | Path, subset: str | None = None) -> list[RouteDefinition]:
    """The routes of a leaderboard route XML file (1.0 or 2.0), `subset` of them if given."""
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except FileNotFoundError:
        raise ConfigError(f"{path}: route file not found") from None
    except ET.ParseError as exc:
        line, column = exc.position
        raise ConfigError(f"{path}:{line}: bad XML at column {column}: {exc}") from None
    elements = list(root.iter("route"))
    ids = [e.get("id") for e in elements]
    if None in ids:
        raise ConfigError(f"{path}: a <route> has no 'id' attribute")
    chosen = select_subset(ids, subset, str(path)) if subset else ids
    keep = set(chosen)
    return [_route(e, path) for e in elements if e.get("id") in keep]


def select_subset(ids: list[str], subset: str, where: str) -> list[str]:
    """The ids `subset` names ("0-2,5": ids 0 to 2 in file order, then 5), in file order."""
    chosen: set[str] = set()
    for group in subset.replace(" ", "").split(","):
        if not group:
            raise ConfigError(f"{where}: routes subset {subset!r} has an empty group")
        if "-" in group:
            start, _, end = group.partition("-")
            if start not in ids:
                raise ConfigError(f"{where}: routes subset {subset!r}: no route with id {start!r}")
            first = ids.index(start)
            if end not in ids[first:]:
                raise ConfigError(
                    f"{where}: routes subset {subset!r}: no route with id {end!r} after {start!r}"
                )
            chosen.update(ids[first : ids.index(end, first) + 1])
        else:
            if group not in ids:
                raise ConfigError(f"{where}: routes subset {subset!r}: no route with id {group!r}")
            chosen.add(group)
    return [i for i in ids if i in chosen]


def _route(element: ET.Element, path: Path) -> RouteDefinition:
    route_id = element.get("id", "")
    where = f"{path}: route {route_id}"
    points = []
    holder = element.find("waypoints")
    nodes = holder.findall("position") if holder is not None else element.findall("waypoint")
    for node in nodes:
        points.append(tuple(_float(node, k, where) for k in ("x", "y", "z")))
    if len(points) < 2:
        raise ConfigError(f"{where}: a route needs at least 2 waypoints, found {len(points)}")
    weathers = []
    weather_holder = element.find("weathers")
    if weather_holder is not None:
        for node in weather_holder.findall("weather"):
            values = {k: _float(node, k, where) for k in node.attrib if k != "route_percentage"}
            weathers.append((_float(node, "route_percentage", where), values))
    else:
        node = element.find("weather")
        if node is not None:
            weathers.append((0.0, {k: _float(node, k, where) for k in node.attrib}))
    scenarios = []
    scenario_holder = element.find("scenarios")
    if scenario_holder is not None:
        for node in scenario_holder.findall("scenario"):
            scenarios.append(_scenario(node, where))
    return RouteDefinition(
        route_id, element.get("town"), tuple(points), tuple(weathers), tuple(scenarios), str(path)
    )


def _scenario(node: ET.Element, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": node.get("name"), "type": node.get("type")}
    if out["type"] is None:
        raise ConfigError(f"{where}: a <scenario> has no 'type' attribute")
    for child in node:
        if child.tag == "trigger_point":
            out["trigger"] = {k: _float(child, k, where) for k in ("x", "y", "z", "yaw")}
        else:
            out[child.tag] = dict(child.attrib)
    return out
