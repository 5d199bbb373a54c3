"""`lockstep validate CONFIG`: every problem a config's evaluation would meet, before any
route starts (`lockstep run` runs it first too).

Past the config's own checks (runner.config: keys, types, files, ranges), it loads each
map (OpenDRIVE errors name the file and element), checks every key point of every route
against its map (farther than a lane width from any driving lane is an error), builds
each inline route's plan and matches its scenarios' triggers against it, loads the agent
module, makes the agent and checks its sensors as the leaderboard does, and compares the
traffic asked for with what each map holds. Each problem is one line naming the config
file, the line and the key path (or the map or route file and its element); all of them
are reported at once. Warnings (a map's repaired sloppiness, more traffic than a map
holds) do not stop a run.
"""

from __future__ import annotations

import contextlib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from runner.config import Config, RouteSpec
from runner.errors import AgentError
from runner.yaml_lines import KeyPath, LinedYaml, format_path, load_lined_yaml
from world import elementary as el
from world.errors import LockstepError

__all__ = ["OFF_MAP_LANES", "Validation", "validate"]

OFF_MAP_LANES = 1.5  # a key point this many lane widths from a lane's centre is off the map


@dataclass
class Validation:
    """The problems found (errors stop a run; warnings do not), one line each."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


class _Report:
    """Problems as lines: `file:line: key: message` for the config's keys."""

    def __init__(self, doc: LinedYaml) -> None:
        self.doc = doc
        self.found = Validation()

    def at(self, key: KeyPath, message: str) -> str:
        return f"{self.doc.path}:{self.doc.line(key)}: {format_path(key)}: {message}"

    def error(self, key: KeyPath, message: str) -> None:
        self.found.errors.append(self.at(key, message))

    def warning(self, key: KeyPath, message: str) -> None:
        self.found.warnings.append(self.at(key, message))


def validate(config: Config, *, agent: bool = True) -> Validation:
    """Every problem of `config` (read from its YAML file) that a run would meet; the
    agent is made and its sensors checked unless `agent` is False."""
    report = _Report(load_lined_yaml(config.path))
    maps = _maps(config, report)
    for route in config.routes:
        loaded = maps.get(route.map_path)
        if loaded is not None:
            _key_points(route, loaded[0], report)
            _scenario_triggers(route, loaded, report)
    _traffic(config, maps, report)
    if agent:
        _agent(config, report)
    return report.found


def _maps(config: Config, report: _Report) -> dict[Path, tuple[Any, Any]]:
    """Each map the routes drive on, loaded once with its planner (the map store keeps
    them for the run); a map that cannot be read is an error at the key naming it."""
    from runner import map_store

    loaded: dict[Path, tuple[Any, Any]] = {}
    failed: set[Path] = set()
    for route in config.routes:
        path = route.map_path
        if path in loaded or path in failed:
            continue
        try:
            loaded[path] = map_store.map_and_planner(path)
        except (LockstepError, OSError) as exc:
            failed.add(path)
            report.error(route.map_key, f"map {path.name}: {exc}")
            continue
        for warning in getattr(loaded[path][0], "warnings", ()):
            report.warning(route.map_key, f"map {path.name}: {warning}")
    return loaded


def _key_points(route: RouteSpec, world_map: Any, report: _Report) -> None:
    """Every key point within a lane width of a driving lane's edge (the planner would
    snap a farther one to the nearest lane, and score a route nobody meant)."""
    from world.map.lane_enums import LaneType

    points = np.array(route.definition.points, dtype=np.float64).reshape(-1, 3)
    if not len(points):
        return
    nearest = world_map.get_waypoints_batch(points, True, LaneType.Driving)
    for index, (point, waypoint) in enumerate(zip(points.tolist(), nearest, strict=True)):
        x, y, z = point
        if waypoint is None:
            _route_error(route, index, report, f"({x:g}, {y:g}, {z:g}): the map has no road")
            continue
        centre = waypoint.transform.location
        away = el.hypot(x - centre.x, y - centre.y)
        if away > OFF_MAP_LANES * waypoint.lane_width:
            _route_error(
                route,
                index,
                report,
                f"({x:g}, {y:g}, {z:g}) is off the map: {away:.1f} m from the nearest driving "
                f"lane's centre ({centre.x:.1f}, {centre.y:.1f}), farther than a lane width "
                f"({waypoint.lane_width:g} m) from its edge",
            )


def _route_error(route: RouteSpec, index: int, report: _Report, message: str) -> None:
    """An error at a route's key point: its config key, or its route file's element."""
    if route.definition.town is None:
        report.error((*route.key, "waypoints", index), message)
    else:
        where = f"{route.definition.source}: <route id={route.id!r}> key point {index}"
        report.error(route.key, f"{where}: {message}")


def _scenario_triggers(route: RouteSpec, loaded: tuple[Any, Any], report: _Report) -> None:
    """An inline route's own scenarios must trigger on it (a route file's and the config's
    top-level ones off the route are left out, as the leaderboard does)."""
    own = route.definition.scenarios
    if route.definition.town is not None or not own:
        return
    from runner.planner import interpolate_trajectory
    from scenarios.errors import ScenarioError
    from scenarios.route_scenario import plan_scenarios
    from world.geometry import Location

    world_map, planner = loaded
    points = [Location(*p) for p in route.definition.points]
    try:
        plan = interpolate_trajectory(world_map, points, planner=planner)
    except LockstepError as exc:
        report.error((*route.key, "waypoints"), f"the planner found no route: {exc}")
        return
    if not plan:
        report.error((*route.key, "waypoints"), "the planner found no route through them")
        return
    for index, entry in enumerate(own):
        try:
            plan_scenarios([entry], plan, required=True)
        except ScenarioError as exc:
            where = (*route.key, "scenarios", index)
            report.error((*where, "trigger") if "trigger" in entry else where, str(exc))


def _traffic(config: Config, maps: dict[Path, tuple[Any, Any]], report: _Report) -> None:
    """More traffic than a map holds spawns what it holds: said once per map."""
    if not (config.vehicles or config.walkers):
        return
    from world.traffic.scene import traffic_capacity

    for path, (world_map, _planner) in maps.items():
        vehicles, walkers = traffic_capacity(world_map)
        if config.vehicles > vehicles:
            report.warning(
                ("traffic", "vehicles"),
                f"{config.vehicles} asked, map {path.name} has {vehicles} street spawn "
                f"points: {vehicles} vehicles at most are spawned on it",
            )
        if config.walkers > walkers:
            report.warning(
                ("traffic", "walkers"),
                f"{config.walkers} asked, map {path.name} has {walkers} sidewalk spawn "
                f"points: {walkers} walkers at most are spawned on it",
            )


def _agent(config: Config, report: _Report) -> None:
    """The agent's module loaded, the agent made and its sensors checked: its sensors()
    asked first without setup (a setup that loads a network need not run in the
    driver), then, if that fails, after setup with the agent's config, as the
    leaderboard asks; the agent is destroyed after."""
    from runner.agent_sensors import validate_sensor_configuration
    from runner.agents.base import check_track
    from runner.agents.loader import load_agent_class

    key: KeyPath = ("agent", "entry")
    try:
        cls = load_agent_class(config.agent_entry)
    except AgentError as exc:
        report.error(key, str(exc))
        return
    except Exception as exc:
        report.error(key, _raised("agent", exc))
        return

    def checked(instance: Any) -> None:
        specs = list(instance.sensors())
        check_track(instance.track, config.track)
        validate_sensor_configuration(specs, instance.track)

    instance = None
    try:
        instance = cls("localhost", 2000, False)
        try:
            checked(instance)
        except Exception:
            instance.setup(config.agent_config)
            checked(instance)
    except AgentError as exc:  # the leaderboard's checks, whose text says it all
        report.error(key, f"agent: {exc}")
    except Exception as exc:
        report.error(key, _raised("agent", exc))
    finally:
        if instance is not None:
            with contextlib.suppress(Exception):
                instance.destroy()


def _raised(what: str, exc: BaseException) -> str:
    """One line for an exception: where it was raised (the innermost file:line outside
    lockstep's runner) and what it said."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{what}: {exc.filename}:{exc.lineno}: SyntaxError: {exc.msg}"
    frames = traceback.extract_tb(exc.__traceback__)
    place = next(
        (f for f in reversed(frames) if not _ours(f.filename)), frames[-1] if frames else None
    )
    where = f"{place.filename}:{place.lineno}: " if place is not None else ""
    text = " ".join(str(exc).split())  # one line, whatever the exception's text holds
    said = f": {text}" if text else ""
    return f"{what}: {where}{type(exc).__name__}{said}"


_RUNNER = Path(__file__).resolve().parent


def _ours(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(_RUNNER)
