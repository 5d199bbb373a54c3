"""What `lockstep view` and `lockstep export` show: run directories and lone logs, as routes.

A run directory (its manifest.yaml) gives one route per recorded route repetition: the log,
the route's map and definition from the manifest's resolved config, and its score record
from results.json when the run wrote one. A lone log gives one route: the log, the map
`--map` names (else the header's `<map name>.xodr` beside the log, in $LOCKSTEP_MAPS or
among lockstep's own maps: runner/log_map.py), no definition and no score. Two sources side
by side pair their routes by name (a run's `RouteScenario_<id>_rep<k>`; two lone logs pair
with each other).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recorder.errors import RecorderError
from recorder.logfile.reader import LogReader
from runner.errors import CheckError, UsageError, ViewError
from runner.execution.manifest import MANIFEST, read_manifest
from runner.scoring.errors import ResultsFileError
from runner.scoring.results_file import ResultsFile


@dataclass
class RouteSource:
    """One route to show: a key unique in the page (`<source>-<route>`), its name, log and
    map, and from a run directory its RouteSpec, Config and results.json record."""

    key: str
    name: str
    log: Path
    map_path: Path
    spec: Any = None
    config: Any = None
    record: dict | None = None
    pair: RouteSource | None = field(default=None, repr=False)


@dataclass
class Source:
    """A run directory or a lone log, with its routes and results.json's global record."""

    path: Path
    kind: str  # "run" or "log"
    routes: list[RouteSource]
    totals: dict | None = None

    @property
    def name(self) -> str:
        return self.path.name


def open_sources(paths: list[str | Path], map_path: str | Path | None = None) -> list[Source]:
    """The sources the paths name (one or two), their routes paired when there are two."""
    if not 1 <= len(paths) <= 2:
        raise ViewError(f"give one run directory or log, or two to compare; found {len(paths)}")
    sources = [open_source(Path(p), k, map_path) for k, p in enumerate(paths)]
    if len(sources) == 2:
        _pair(*sources)
    return sources


def open_source(path: Path, number: int = 0, map_path: str | Path | None = None) -> Source:
    """A run directory or a lone log; ViewError naming the path when it is neither."""
    if path.is_dir():
        if not (path / MANIFEST).is_file():
            raise ViewError(f"{path}: not a run directory (no {MANIFEST}) and not a log")
        return _run_source(path, number, map_path)
    if path.is_file():
        return Source(path, "log", [_log_route(path, f"{number}-0", map_path)])
    raise ViewError(f"{path}: no such run directory or log")


def _run_source(path: Path, number: int, map_override: str | Path | None) -> Source:
    from runner.config import config_from_manifest

    try:
        manifest = read_manifest(path)
        config = config_from_manifest(manifest, str(path / MANIFEST))
    except CheckError as exc:
        raise ViewError(str(exc)) from None
    try:
        results = ResultsFile(path / "results.json").load()
    except ResultsFileError as exc:
        raise ViewError(str(exc)) from None
    checkpoint = results.get("_checkpoint", {})
    records = {r.get("route_id"): r for r in checkpoint.get("records", [])}
    specs = {r.id: r for r in config.routes}
    routes = []
    for k, (route_id, meta) in enumerate((manifest.get("routes") or {}).items()):
        log = path / str(meta["log"])
        if not log.is_file():
            continue  # a route the run had not finished when it stopped
        spec = specs.get(str(meta["route"]))
        chosen = Path(map_override) if map_override else spec.map_path if spec else None
        if chosen is None:
            chosen = find_map(log)
        routes.append(
            RouteSource(
                f"{number}-{k}",
                route_id,
                log,
                _checked_map(chosen),
                spec,
                config,
                records.get(route_id),
            )
        )
    if not routes:
        raise ViewError(f"{path}: the run directory holds no route log yet")
    return Source(path, "run", routes, checkpoint.get("global_record"))


def _log_route(log: Path, key: str, map_path: str | Path | None) -> RouteSource:
    chosen = Path(map_path) if map_path else find_map(log)
    return RouteSource(key, log.name, log, _checked_map(chosen))


def find_map(log: Path) -> Path:
    """The map of a lone log, found by its header's map name as `lockstep render` finds it
    (runner/log_map.py); ViewError saying to give --map when there is none."""
    from runner.log_map import map_by_header

    try:
        return map_by_header(log, LogReader(log).header.map_name, "view")
    except (RecorderError, UsageError) as exc:
        raise ViewError(str(exc)) from None


def _checked_map(path: Path) -> Path:
    if not path.is_file():
        raise ViewError(f"no OpenDRIVE map at {path} (--map names the map to use)")
    return path.resolve()


def _pair(a: Source, b: Source) -> None:
    """Pairs the routes of two sources by name (two lone logs with each other)."""
    if a.kind == "log" and b.kind == "log":
        a.routes[0].pair, b.routes[0].pair = b.routes[0], a.routes[0]
        return
    by_name = {r.name: r for r in b.routes}
    for route in a.routes:
        other = by_name.get(route.name)
        if other is not None:
            route.pair, other.pair = other, route
