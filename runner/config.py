"""The evaluation config: a strict YAML file read into a resolved `Config`.

Strict means: every key is known (an unknown one is an error listing the valid
keys), every value has the expected type, and every file it names exists;
each error names the file, the line and the key path, in one line. Paths are
relative to the config file. `resolved()` gives the config as plain data with
every default filled in and every path absolute, for the run's manifest.

The shape (docs/runner.md has the reference):

    name, seed, map | maps, tick, repetitions, agent {entry, config, track}, weather,
    traffic {vehicles, walkers}, routes (a list of {id, waypoints, weather,
    scenarios}, or {file, subset, scenarios}), scenarios, output, results, record
    {additional_data}, limits {route_seconds, drain_ticks}
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.errors import ConfigError
from runner.routes import RouteDefinition, read_route_file, select_subset
from runner.yaml_lines import KeyPath, LinedYaml, format_path, load_lined_yaml
from scenarios.errors import ScenarioError, ScenarioParameterError, UnknownScenarioTypeError
from world.errors import WorldError
from world.settings import WorldSettings
from world.weather import WEATHER_RANGES, WeatherParameters, weather_from_config

__all__ = ["MAX_TRAFFIC", "Config", "RouteSpec", "load_config"]

TOP_KEYS = (
    "name",
    "seed",
    "map",
    "maps",
    "tick",
    "repetitions",
    "agent",
    "weather",
    "traffic",
    "routes",
    "scenarios",
    "output",
    "results",
    "record",
    "limits",
)
REQUIRED = ("name", "agent", "routes")
AGENT_KEYS = ("entry", "config", "track")
TRACKS = ("SENSORS", "MAP", "SENSORS_QUALIFIER", "MAP_QUALIFIER")  # the leaderboard's
TRAFFIC_KEYS = ("vehicles", "walkers")
RECORD_KEYS = ("additional_data",)
LIMIT_KEYS = ("route_seconds", "drain_ticks")
ROUTE_KEYS = ("id", "waypoints", "weather", "scenarios")
ROUTE_FILE_KEYS = ("file", "subset", "scenarios")
SCENARIO_KEYS_REQUIRED = ("type",)
# traffic.vehicles and traffic.walkers at most: a log's packet counts its records in a
# uint16, so a world of more actors cannot be recorded (and no map holds that many)
MAX_TRAFFIC = 0xFFFF


@dataclass(frozen=True)
class RouteSpec:
    """A route to evaluate: its definition and the map file it runs on."""

    definition: RouteDefinition
    map_path: Path
    weather: WeatherParameters
    annotations: Path | None = None  # Leaderboard 1.0's scenarios file, placed on the route
    key: KeyPath = ()  # where the config defines the route (routes[i], or routes.file)
    map_key: KeyPath = ()  # the config's key that names its map (map, maps)

    @property
    def id(self) -> str:
        return self.definition.id


@dataclass(frozen=True)
class Config:
    path: Path
    name: str
    seed: int
    tick: float
    repetitions: int
    agent_entry: str
    agent_config: str | None
    weather: WeatherParameters
    vehicles: int
    walkers: int
    routes: tuple[RouteSpec, ...]
    scenarios: tuple[dict, ...]
    output: Path
    additional_data: bool
    route_seconds: float | None
    drain_ticks: int
    data: dict
    track: str | None = None  # the leaderboard's track the agent must declare (None: any)
    results: Path | None = None  # results.json's path (None: the run directory's)

    def resolved(self) -> dict:
        """Plain data with defaults filled and paths absolute (the manifest's `config`)."""
        return self.data

    def route_ids(self) -> list[str]:
        return [r.id for r in self.routes]

    def results_path(self, out_dir: Path) -> Path:
        """Where the evaluation into `out_dir` writes the leaderboard's results.json."""
        return self.results if self.results is not None else out_dir / "results.json"


# -- checking helpers -------------------------------------------------------------------------


class _Checker:
    def __init__(self, doc: LinedYaml) -> None:
        self.doc = doc
        self.base = doc.path.resolve().parent

    def fail(self, key: KeyPath, message: str) -> ConfigError:
        return self.doc.error(key, message)

    def mapping(self, value: Any, key: KeyPath, allowed: tuple[str, ...]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(
                key, f"expected a mapping with keys {', '.join(allowed)}, found {_kind(value)}"
            )
        for name in value:
            if name not in allowed:
                raise self.fail((*key, name), f"unknown key; valid keys here: {', '.join(allowed)}")
        return value

    def text(self, value: Any, key: KeyPath) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected non-empty text, found {_kind(value)}")
        return value

    def integer(self, value: Any, key: KeyPath, low: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected an integer, found {_kind(value)}")
        if low is not None and value < low:
            raise self.fail(key, f"expected an integer >= {low}, found {value}")
        return value

    def traffic(self, value: Any, key: KeyPath) -> int:
        """A count of background actors: 0 .. MAX_TRAFFIC (what a map holds is checked
        against the map, runner.validation)."""
        count = self.integer(value, key, 0)
        if count > MAX_TRAFFIC:
            raise self.fail(
                key,
                f"expected at most {MAX_TRAFFIC} (a log's packet holds at most {MAX_TRAFFIC} "
                f"records, and no map holds that many), found {count}",
            )
        return count

    def number(self, value: Any, key: KeyPath, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key, f"expected a number, found {_kind(value)}")
        if not math.isfinite(value):
            raise self.fail(key, f"expected a finite number, found {value}")
        if positive and value <= 0:
            raise self.fail(key, f"expected a number > 0, found {value}")
        return float(value)

    def boolean(self, value: Any, key: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, found {_kind(value)}")
        return value

    def file(self, value: Any, key: KeyPath, what: str) -> Path:
        path = (self.base / self.text(value, key)).resolve()
        if not path.is_file():
            raise self.fail(key, f"{what} not found: {path}")
        return path

    def path(self, value: Any, key: KeyPath, what: str) -> Path:
        """An existing file or folder."""
        path = (self.base / self.text(value, key)).resolve()
        if not path.exists():
            raise self.fail(key, f"{what} not found: {path}")
        return path

    def point(self, value: Any, key: KeyPath) -> tuple[float, float, float]:
        if not isinstance(value, list) or len(value) not in (2, 3):
            raise self.fail(key, f"expected a point [x, y] or [x, y, z], found {_kind(value)}")
        xyz = [self.number(v, (*key, i)) for i, v in enumerate(value)]
        return (xyz[0], xyz[1], xyz[2] if len(xyz) == 3 else 0.0)

    def weather(self, value: Any, key: KeyPath) -> WeatherParameters:
        if not isinstance(value, str | dict):
            raise self.fail(key, f"expected a preset name or a mapping, found {_kind(value)}")
        if isinstance(value, dict):
            self.mapping(value, key, ("preset", *WEATHER_RANGES))
            for name, number in value.items():
                if name != "preset":
                    self.number(number, (*key, name))
        try:
            return weather_from_config(value, format_path(key))
        except WorldError as exc:
            text = str(exc)
            prefix = f"{format_path(key)}: "
            raise self.fail(key, text[len(prefix) :] if text.startswith(prefix) else text) from None


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return f"text ({value!r})"
        written = f"{int(number)}" if number.is_integer() and abs(number) < 1e16 else value
        return (
            f"text ({value!r}: YAML reads this form as text, not a number; write {written}, "
            "or an exponent with a sign such as 1.0e+7)"
        )
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


# -- the config ----------------------------------------------------------------------------------


def load_config(path: str | Path, routes_subset: str | None = None) -> Config:
    """Reads and checks the config at `path`; `routes_subset` ("0-2,5") keeps those route ids."""
    doc = load_lined_yaml(path)
    c = _Checker(doc)
    top = c.mapping(doc.data if doc.data is not None else {}, (), TOP_KEYS)
    for name in REQUIRED:
        if name not in top:
            raise c.fail((), f"missing required key {name!r}")
    name = c.text(top["name"], ("name",))
    seed = c.integer(top.get("seed", 0), ("seed",), 0)
    tick = c.number(top.get("tick", 0.05), ("tick",), positive=True)
    physics = WorldSettings(fixed_delta_seconds=tick)
    longest = physics.max_substep_delta_time * physics.max_substeps
    if tick > longest:
        raise c.fail(
            ("tick",),
            f"expected at most {longest:g} s, the longest tick CARLA's physics substeps "
            f"take (max_substep_delta_time {physics.max_substep_delta_time:g} s x "
            f"max_substeps {physics.max_substeps}), found {tick:g}",
        )
    repetitions = c.integer(top.get("repetitions", 1), ("repetitions",), 1)

    agent = c.mapping(top["agent"], ("agent",), AGENT_KEYS)
    if "entry" not in agent:
        raise c.fail(("agent",), "missing required key 'entry'")
    entry = c.text(agent["entry"], ("agent", "entry"))
    if entry.endswith(".py"):
        entry = str(c.file(entry, ("agent", "entry"), "agent file"))
    agent_config = agent.get("config")
    if agent_config is not None:  # a file, or a folder (a team's model folder, say)
        agent_config = str(c.path(agent_config, ("agent", "config"), "agent config"))
    track = agent.get("track")
    if track is not None:
        track = c.text(track, ("agent", "track"))
        if track not in TRACKS:
            raise c.fail(
                ("agent", "track"), f"expected one of {', '.join(TRACKS)}, found {track!r}"
            )

    weather = c.weather(top.get("weather", "ClearNoon"), ("weather",))
    traffic = c.mapping(top.get("traffic", {}), ("traffic",), TRAFFIC_KEYS)
    vehicles = c.traffic(traffic.get("vehicles", 0), ("traffic", "vehicles"))
    walkers = c.traffic(traffic.get("walkers", 0), ("traffic", "walkers"))
    record = c.mapping(top.get("record", {}), ("record",), RECORD_KEYS)
    additional = c.boolean(record.get("additional_data", False), ("record", "additional_data"))
    limits = c.mapping(top.get("limits", {}), ("limits",), LIMIT_KEYS)
    route_seconds = limits.get("route_seconds")
    if route_seconds is not None:
        route_seconds = c.number(route_seconds, ("limits", "route_seconds"), positive=True)
    drain_ticks = c.integer(limits.get("drain_ticks", 200), ("limits", "drain_ticks"), 0)
    output = (c.base / c.text(top.get("output", f"runs/{name}"), ("output",))).resolve()
    if "output" not in top:
        output = (Path.cwd() / "runs" / name).resolve()
    results = None
    if "results" in top:
        results = (c.base / c.text(top["results"], ("results",))).resolve()

    map_path, maps = _maps(c, top)
    scenarios = tuple(_scenarios(c, top.get("scenarios", []), ("scenarios",)))
    routes = _routes(c, top["routes"], map_path, maps, weather)
    if routes_subset:
        keep = set(select_subset([r.id for r in routes], routes_subset, "--routes-subset"))
        routes = [r for r in routes if r.id in keep]

    data = {
        "name": name,
        "seed": seed,
        "tick": tick,
        "repetitions": repetitions,
        "agent": {"entry": entry, "config": agent_config},
        "weather": top.get("weather", "ClearNoon"),
        "traffic": {"vehicles": vehicles, "walkers": walkers},
        "routes": [_route_data(r) for r in routes],
        "scenarios": list(scenarios),
        "output": str(output),
        "record": {"additional_data": additional},
        "limits": {"route_seconds": route_seconds, "drain_ticks": drain_ticks},
        "source": str(doc.path.resolve()),
    }
    if track is not None:  # (only when given: a config without them keeps its manifest)
        data["agent"]["track"] = track
    if results is not None:
        data["results"] = str(results)
    return Config(
        doc.path.resolve(),
        name,
        seed,
        tick,
        repetitions,
        entry,
        agent_config,
        weather,
        vehicles,
        walkers,
        tuple(routes),
        scenarios,
        output,
        additional,
        route_seconds,
        drain_ticks,
        data,
        track,
        results,
    )


def _route_data(route: RouteSpec) -> dict:
    d = route.definition
    return {
        "id": d.id,
        "town": d.town,
        "map": str(route.map_path),
        "waypoints": [list(p) for p in d.points],
        "weathers": [[pct, dict(values)] for pct, values in d.weathers],
        "scenarios": [dict(s) for s in d.scenarios],
        "annotations": None if route.annotations is None else str(route.annotations),
    }


def _maps(c: _Checker, top: dict) -> tuple[Path | None, Callable[[str, KeyPath], Path] | None]:
    map_path = c.file(top["map"], ("map",), "map file") if "map" in top else None
    if "maps" not in top:
        return map_path, None
    value = top["maps"]
    if isinstance(value, str):
        folder = (c.base / value).resolve()
        if not folder.is_dir():
            raise c.fail(("maps",), f"maps folder not found: {folder}")

        def by_folder(town: str, key: KeyPath) -> Path:
            path = folder / f"{town}.xodr"
            if not path.is_file():
                raise c.fail(key, f"town {town!r}: no map {path} in the maps folder")
            return path

        return map_path, by_folder
    if isinstance(value, dict):
        table = {
            town: c.file(p, ("maps", town), f"map file of town {town!r}")
            for town, p in value.items()
        }

        def by_table(town: str, key: KeyPath) -> Path:
            if town not in table:
                known = ", ".join(table) or "none"
                raise c.fail(key, f"town {town!r} is not in maps: (known towns: {known})")
            return table[town]

        return map_path, by_table
    raise c.fail(("maps",), f"expected a folder or a town -> file mapping, found {_kind(value)}")


def _bind_scenario(entry: dict) -> None:
    """Checks a scenario entry against the library (imported on first need: a config with
    no scenario loads none of its 38 modules)."""
    from scenarios.library import bind_scenario

    bind_scenario(entry)


def _scenarios(c: _Checker, value: Any, key: KeyPath) -> list[dict]:
    if not isinstance(value, list):
        raise c.fail(key, f"expected a list of scenarios, found {_kind(value)}")
    out = []
    for i, item in enumerate(value):
        where = (*key, i)
        if not isinstance(item, dict):
            raise c.fail(where, f"expected a scenario mapping with a 'type', found {_kind(item)}")
        if "type" not in item:
            raise c.fail(where, "missing required key 'type'")
        c.text(item["type"], (*where, "type"))
        try:
            _bind_scenario(item)
        except UnknownScenarioTypeError as exc:
            raise c.fail((*where, "type"), str(exc)) from None
        except ScenarioParameterError as exc:
            place = (*where, exc.parameter) if exc.parameter in item else where
            raise c.fail(place, str(exc)) from None
        if "trigger" in item:
            trigger = c.mapping(item["trigger"], (*where, "trigger"), ("x", "y", "z", "yaw"))
            for axis, v in trigger.items():
                c.number(v, (*where, "trigger", axis))
        out.append(dict(item))
    return out


def _route_file_scenarios(c: _Checker, value: Any) -> tuple[bool, Path | None]:
    """A route file's `scenarios:`: true / false (the file's own scenarios or none), or a
    Leaderboard 1.0 scenarios JSON placed along each route as the 1.0 leaderboard did."""
    key: KeyPath = ("routes", "scenarios")
    if isinstance(value, str):
        path = c.file(value, key, "scenarios file")
        from scenarios.leaderboard1 import read_annotations  # (the library, on first need)

        try:
            read_annotations(path)
        except ScenarioError as exc:
            raise c.fail(key, str(exc)) from None
        return True, path
    return c.boolean(value, key), None


def _routes(
    c: _Checker,
    value: Any,
    map_path: Path | None,
    maps: Callable[[str, KeyPath], Path] | None,
    weather: WeatherParameters,
) -> list[RouteSpec]:
    key: KeyPath = ("routes",)
    if isinstance(value, dict):
        spec = c.mapping(value, key, ROUTE_FILE_KEYS)
        if "file" not in spec:
            raise c.fail(key, "missing required key 'file' (or give a list of inline routes)")
        path = c.file(spec["file"], (*key, "file"), "route file")
        subset = spec.get("subset")
        if subset is not None:
            subset = c.text(str(subset), (*key, "subset"))
        use_scenarios, annotations = _route_file_scenarios(c, spec.get("scenarios", True))
        out = []
        for d in read_route_file(path, subset):
            if not use_scenarios:
                d = RouteDefinition(d.id, d.town, d.points, d.weathers, (), d.source)
            for scenario in d.scenarios:
                try:
                    _bind_scenario(scenario)
                except (UnknownScenarioTypeError, ScenarioParameterError) as exc:
                    raise c.fail(
                        (*key, "file"),
                        f"route {d.id}, scenario {scenario.get('name')}: {exc}; "
                        "scenarios: false leaves the file's scenarios out",
                    ) from None
            map_key: KeyPath = ("map",)
            if d.town is not None and maps is not None:
                route_map, map_key = maps(d.town, (*key, "file")), ("maps", d.town)
            elif map_path is not None:
                route_map = map_path
            else:
                raise c.fail(
                    (*key, "file"),
                    f"route {d.id} of town {d.town!r}: give maps: (a folder or a table) or map:",
                )
            route_weather = _route_weather(weather, d)
            out.append(RouteSpec(d, route_map, route_weather, annotations, (*key, "file"), map_key))
        return out
    if not isinstance(value, list) or not value:
        raise c.fail(key, f"expected a list of routes or {{file: ...}}, found {_kind(value)}")
    if map_path is None:
        raise c.fail(key, "inline routes need map: (the map file they run on)")
    out = []
    seen: dict[str, int] = {}
    for i, item in enumerate(value):
        where = (*key, i)
        route = c.mapping(item, where, ROUTE_KEYS)
        for required in ("id", "waypoints"):
            if required not in route:
                raise c.fail(where, f"missing required key {required!r}")
        route_id = route["id"]
        if isinstance(route_id, bool) or not isinstance(route_id, str | int):
            raise c.fail((*where, "id"), f"expected text or an integer, found {_kind(route_id)}")
        route_id = str(route_id)
        if route_id in seen:
            raise c.fail(
                (*where, "id"), f"route id {route_id!r} already used by routes[{seen[route_id]}]"
            )
        seen[route_id] = i
        points = route["waypoints"]
        if not isinstance(points, list) or len(points) < 2:
            raise c.fail(
                (*where, "waypoints"),
                f"expected a list of at least 2 points, found {_kind(points)}",
            )
        xyz = tuple(c.point(p, (*where, "waypoints", j)) for j, p in enumerate(points))
        route_weather = weather
        if "weather" in route:
            route_weather = c.weather(route["weather"], (*where, "weather"))
        scenarios = tuple(_scenarios(c, route.get("scenarios", []), (*where, "scenarios")))
        definition = RouteDefinition(route_id, None, xyz, (), scenarios, str(c.doc.path))
        out.append(RouteSpec(definition, map_path, route_weather, None, where, ("map",)))
    return out


def _route_weather(default: WeatherParameters, definition: RouteDefinition) -> WeatherParameters:
    """The route file's first weather (the leaderboard's weather at 0 % of the route)."""
    if not definition.weathers:
        return default
    weather = WeatherParameters()
    for name, value in definition.weathers[0][1].items():
        if hasattr(weather, name):
            setattr(weather, name, value)
    return weather


def config_from_manifest(manifest: dict, where: str) -> Config:
    """The Config a run used, rebuilt from its manifest (the resolved data `resolved()` gave)."""
    try:
        data = manifest["config"]
        weathers = manifest["weathers"]
        routes = []
        for r in data["routes"]:
            definition = RouteDefinition(
                str(r["id"]),
                r["town"],
                tuple(tuple(float(v) for v in p) for p in r["waypoints"]),
                tuple((float(pct), dict(v)) for pct, v in r["weathers"]),
                tuple(dict(s) for s in r["scenarios"]),
                data["source"],
            )
            weather = WeatherParameters(**weathers[definition.id])
            annotations = r.get("annotations")
            routes.append(
                RouteSpec(
                    definition,
                    Path(r["map"]),
                    weather,
                    None if annotations is None else Path(annotations),
                )
            )
        limits = data["limits"]
        return Config(
            Path(data["source"]),
            data["name"],
            int(data["seed"]),
            float(data["tick"]),
            int(data["repetitions"]),
            data["agent"]["entry"],
            data["agent"]["config"],
            routes[0].weather if routes else WeatherParameters(),
            int(data["traffic"]["vehicles"]),
            int(data["traffic"]["walkers"]),
            tuple(routes),
            tuple(data["scenarios"]),
            Path(data["output"]),
            bool(data["record"]["additional_data"]),
            limits["route_seconds"],
            int(limits["drain_ticks"]),
            data,
            data["agent"].get("track"),
            Path(data["results"]) if data.get("results") else None,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: the manifest's config is incomplete ({exc!r})") from None
