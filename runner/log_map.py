"""The map a log was recorded on, for the commands that draw or replay it (`lockstep render`,
`lockstep replay`, and a lone log's map for `lockstep view`).

A log's header names its map (lockstep writes the map file's stem, CARLA its map's path,
`Carla/Maps/Town10HD_Opt`). Without `--map`, the map is found from the log: the run
manifest beside it (the route whose log it is names its map file), else `<name>.xodr`
beside the log, in the folders of $LOCKSTEP_MAPS (a list separated like PATH), in a CARLA
install's OpenDRIVE folder (`$CARLA_ROOT/CarlaUE4/Content/Carla/Maps/OpenDrive`) or among
lockstep's own maps (configs/maps). A map given or found whose name is
not the header's is an error: it would draw or replay the run on the wrong town. Names
compare without case and without CARLA's `_Opt` suffix (the layered version of a town).
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from runner.errors import UsageError

__all__ = ["map_by_header", "map_for_log", "same_town"]

OWN_MAPS = Path(__file__).resolve().parents[1] / "configs" / "maps"
CARLA_MAPS = Path("CarlaUE4") / "Content" / "Carla" / "Maps" / "OpenDrive"
MANIFEST = "manifest.yaml"


def same_town(header_name: str, map_path: Path) -> bool:
    """Whether a log header's map name and a map file name one town."""

    def plain(name: str) -> str:
        name = name.replace("\\", "/").rsplit("/", 1)[-1].lower()
        return name.removesuffix("_opt")

    return plain(header_name) == plain(map_path.stem)


def map_for_log(log: Path, given: str | None, command: str) -> Path:
    """The map file to draw or replay `log` on: `given` (checked against the header), or
    the one the log's run or folders name. UsageError naming what was looked for."""
    from recorder.logfile.reader import LogReader

    header = LogReader(log).header.map_name
    if given is not None:
        path = Path(given)
        if not path.is_file():
            raise UsageError(f"{command}: --map: no map at {path}")
        _check(header, path, command, "--map")
        return path
    from_run = _from_manifest(log)
    if from_run is not None:
        _check(header, from_run, command, f"its run's {MANIFEST}")
        return from_run
    return map_by_header(log, header, command)


def map_by_header(log: Path, header: str, command: str) -> Path:
    """`<header's map name>.xodr` from the folders the module names; UsageError saying
    where it looked."""
    name = header.replace("\\", "/").rsplit("/", 1)[-1]
    folders = [log.resolve().parent]
    folders += [Path(p) for p in os.environ.get("LOCKSTEP_MAPS", "").split(os.pathsep) if p]
    if os.environ.get("CARLA_ROOT"):
        folders.append(Path(os.environ["CARLA_ROOT"]) / CARLA_MAPS)
    folders.append(OWN_MAPS)
    for folder in folders:
        for candidate in dict.fromkeys((name, name.removesuffix("_Opt"))):
            path = folder / f"{candidate}.xodr"
            if name and path.is_file():
                return path
    raise UsageError(
        f"{command}: {log} was recorded on map {header!r} (its header); no run manifest "
        f"beside it names the map file and no {name}.xodr is beside it, in $LOCKSTEP_MAPS, "
        "in $CARLA_ROOT's OpenDRIVE maps or among lockstep's maps: give --map FILE"
    )


def _check(header: str, path: Path, command: str, source: str) -> None:
    if not same_town(header, path):
        raise UsageError(
            f"{command}: the log was recorded on map {header!r} (its header), {source} is "
            f"{path.name}: give the map of the run"
        )


def _from_manifest(log: Path) -> Path | None:
    """The map file the run manifest beside `log` names for it (None: no such manifest or
    route)."""
    manifest = log.resolve().parent / MANIFEST
    if not manifest.is_file():
        return None
    try:
        data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
        routes = {str(r["id"]): r for r in data["config"]["routes"]}
        for entry in (data.get("routes") or {}).values():
            if entry.get("log") == log.name:
                path = Path(routes[str(entry["route"])]["map"])
                return path if path.is_file() else None
    except (yaml.YAMLError, KeyError, TypeError, AttributeError):
        return None
    return None
