"""The maps an evaluation drives on, each with its route planner: built once per process and
kept on disk between processes.

Building a map, its planner and what the other wings work out from the map alone (the
lights' layout, the lane paths, the sidewalk graph, the ground indexes: `Map.derived` and
the map's own lazy parts) is most of a route's set-up and the same in every process. So
after a route the process pickles the map and planner into the kernels' folder
(world.kernels.compiled_cache, beside the compiled kernels), once more whenever the map
holds more derived data than the file; the next process loads them in a few hundredths of
a second. A file is named by the map file's bytes (sha256) and a stamp of lockstep's code
that makes these objects (the path, size and modification time of every module of world/,
of the planner and of the picture map layer `lockstep view` keeps with a map) with
Python's and numpy's versions: any change starts a new file and the map's older ones are
removed. A file that cannot be read as expected is rebuilt from
the map; one that cannot be written is skipped (a read-only folder, say): the run goes on
with what it built. Loading a map gives the very objects building it gives, so runs are the
same bits either way (tests/test_map_store.py).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import sys
from pathlib import Path

import numpy as np

from runner.planner import GlobalRoutePlanner
from world.kernels.compiled_cache import cache_dir
from world.map.map import Map

__all__ = ["clear", "code_stamp", "keep", "map_and_planner", "stored_path"]

SAMPLING = 1.0  # m: the planner's sampling, as the leaderboard's
_ROOT = Path(__file__).resolve().parents[1]
# the code of what is kept: the map, its derived data, the planner, the view's map layer
_CODE = (
    _ROOT / "world",
    _ROOT / "runner" / "planner.py",
    _ROOT / "recorder" / "picture" / "map_layer.py",
)

_LOADED: dict[Path, tuple[Map, GlobalRoutePlanner]] = {}
_ON_DISK: dict[Path, list] = {}  # what the file holds of each map's derived data
_STAMP: str | None = None
_FROZEN = False  # whether _freeze_kept has run in this process
_NAMES: dict[Path, str] = {}  # a map file's name, path digest and bytes digest


def code_stamp() -> str:
    """16 hex digits over the code that makes the stored objects and the versions that
    read them back (stat only: a process computes it in about a millisecond)."""
    global _STAMP
    if _STAMP is None:
        digest = hashlib.sha256(f"{sys.version_info[:2]} numpy {np.__version__}".encode())
        for root in _CODE:
            for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
                info = path.stat()
                name = path.relative_to(_ROOT).as_posix()
                digest.update(f"{name} {info.st_size} {info.st_mtime_ns}\n".encode())
        _STAMP = digest.hexdigest()[:16]
    return _STAMP


def stored_path(map_path: Path) -> Path:
    """Where the map file's objects are kept: `maps/<name>-<where>-<bytes>-<code>.pickle`
    (the file's name, a digest of its absolute path, of its bytes, and the code stamp)."""
    map_path = Path(map_path).resolve()
    if map_path not in _NAMES:
        where = hashlib.sha256(str(map_path).encode()).hexdigest()[:8]
        content = hashlib.sha256(map_path.read_bytes()).hexdigest()[:16]
        _NAMES[map_path] = f"{map_path.stem}-{where}-{content}"
    return cache_dir() / "maps" / f"{_NAMES[map_path]}-{code_stamp()}.pickle"


def map_and_planner(map_path: Path) -> tuple[Map, GlobalRoutePlanner]:
    """The map of `map_path` and its route planner: this process's, else the stored ones,
    else built (and stored after the route that first uses them, by `keep`)."""
    if map_path not in _LOADED:
        loaded = _load(map_path)
        if loaded is None:
            world_map = Map.from_file(map_path)
            loaded = (world_map, GlobalRoutePlanner(world_map, SAMPLING))
            _ON_DISK[map_path] = []
        _LOADED[map_path] = loaded
        _freeze_kept()
    return _LOADED[map_path]


def _freeze_kept() -> None:
    """Moves every object alive now (the modules, the compiled kernels, the maps and their
    planners: kept for the process's life) out of the garbage collector's reach, so its full
    passes, which the routes' allocations set off every few routes, walk only the routes'
    own objects (about a millisecond of every route on town_small). Before a second map
    is kept, what earlier routes left is collected first: frozen objects are never freed."""
    global _FROZEN
    if _FROZEN:
        gc.collect()
    gc.freeze()
    _FROZEN = True


def keep(map_path: Path) -> None:
    """Stores the map and planner when the map holds more derived data than the stored file
    (after a route, when its worlds have built what they use)."""
    if map_path not in _LOADED:
        return
    world_map, planner = _LOADED[map_path]
    built = world_map.derived_keys()
    if built == _ON_DISK.get(map_path):
        return
    target = stored_path(map_path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps((world_map, planner), protocol=pickle.HIGHEST_PROTOCOL)
        staged = target.with_name(f".{target.name}.{os.getpid()}")
        staged.write_bytes(data)
        os.replace(staged, target)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return  # not stored: the next process builds the map again
    _ON_DISK[map_path] = built
    _remove_older(target)


def clear() -> None:
    """Forgets this process's maps (the stored files stay)."""
    _LOADED.clear()
    _ON_DISK.clear()


def _load(map_path: Path) -> tuple[Map, GlobalRoutePlanner] | None:
    """The stored map and planner, None when the file is missing or not as expected. The
    garbage collector is off while they are read: their ~45,000 objects, all kept, set off
    dozens of its passes over the objects made so far (town_small: ~25 -> ~15 ms)."""
    target = stored_path(map_path)
    collecting = gc.isenabled()
    gc.disable()
    try:
        with open(target, "rb") as file:
            loaded = pickle.load(file)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return None
    finally:
        if collecting:
            gc.enable()
    if not (
        isinstance(loaded, tuple)
        and len(loaded) == 2
        and isinstance(loaded[0], Map)
        and isinstance(loaded[1], GlobalRoutePlanner)
    ):
        return None
    _ON_DISK[map_path] = loaded[0].derived_keys()
    return loaded


def _remove_older(target: Path) -> None:
    """Removes the files of the same map path with other bytes or code."""
    name, where = target.name.rsplit("-", 3)[:2]
    for other in target.parent.glob(f"{name}-{where}-*.pickle"):
        if other != target:
            with contextlib.suppress(OSError):
                other.unlink()
