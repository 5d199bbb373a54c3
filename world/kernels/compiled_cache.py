"""Where lockstep's compiled kernels are kept: one folder per version of their sources.

The folder holds the ahead-of-time module of the kernels (world.kernels.ahead_of_time) and
numba's own cache of the kernels it compiles at run time (world.kernels.compiled). numba's
cache notices only edits of the file that defines a cached function, yet a compiled kernel
holds the code of every kernel it calls from other files (the physics tick calls the
vehicles', walkers', collisions' and ground query's; the autopilot's plan calls its control
laws). So the kernels live in a folder `numba-<digest>`, the digest taken over every module
of world/ and recorder/ that defines kernels: an edit of any of them starts a fresh folder
instead of running stale code. The folder sits in the first base that can be written:

1. the folder a user's NUMBA_CACHE_DIR names, when set;
2. the package's own `world/__pycache__`;
3. the user cache dir, `$XDG_CACHE_HOME/lockstep` (default `$HOME/.cache/lockstep`);
4. the temp dir, `<tempfile.gettempdir()>/lockstep-<uid>` (made private to the user).

Older digests' folders in that base are removed. Nothing here imports numba: the folder is
chosen on first use, and numba's config is pointed at it (`configure_numba`, in this
process only, never os.environ, which child processes would inherit) only when numba is
needed. The first compile of a process that finds no cached kernel says so on stderr, once.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from world.errors import WorldError

__all__ = [
    "COMPILE_NOTICE",
    "KERNEL_MODULES",
    "KernelCacheError",
    "cache_bases",
    "cache_dir",
    "choose_cache_dir",
    "configure_numba",
    "kernel_source_files",
    "kernel_sources_digest",
]

# the packages with kernels: the world's (in every wing) and the recorder's (frame packing)
_ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = (_ROOT / "world", _ROOT / "recorder")
_FOLDER = re.compile(r"numba-[0-9a-f]{16}")
# a module defining kernels takes lockstep's decorator; a few import numba itself
_DEFINES_KERNELS = re.compile(
    rb"^\s*(?:from world\.kernels\.compiled import "
    rb"|from numba(?:\.[\w.]+)? import |import numba\b)",
    re.MULTILINE,
)
# modules that compile nothing of their own: the location, the decorator's dispatch
_NOT_KERNELS = {"compiled_cache.py", "compiled.py"}
# The modules that define or build kernels, as a scan of the packages finds them
# (kernel_source_files; tests/test_compiled_cache.py holds the two equal): a process reads
# these few files for the digest rather than every module of both packages.
KERNEL_MODULES = (
    "world/actors/attachments.py",
    "world/elementary.py",
    "world/kernels/ahead_of_time.py",
    "world/kernels/array_table.py",
    "world/kernels/intrinsics.py",
    "world/map/carried_ground.py",
    "world/map/ground.py",
    "world/map/ground_query.py",
    "world/map/lane_index.py",
    "world/physics/body_pitch.py",
    "world/physics/collisions.py",
    "world/physics/grid.py",
    "world/physics/tick.py",
    "world/physics/vehicle_dynamics.py",
    "world/physics/walker_motion.py",
    "world/render/index.py",
    "world/render/kernel_math.py",
    "world/render/raster.py",
    "world/render/ray_kernels.py",
    "world/sensors/encoding_kernels.py",
    "world/sensors/lidar_kernels.py",
    "world/sensors/pixel_kernels.py",
    "world/snapshot.py",
    "world/state.py",
    "world/traffic/autopilot/control.py",
    "world/traffic/autopilot/kernels.py",
    "world/traffic/autopilot/path_ends.py",
    "world/traffic/signals/lights.py",
    "world/traffic/signals/trigger_boxes.py",
    "world/traffic/walkers/kernels.py",
    "recorder/live/packing_intrinsics.py",
    "recorder/live/tick_packing.py",
)

COMPILE_NOTICE = (
    "compiling lockstep's kernels, once per install, about a minute "
    "(`lockstep warmup` compiles them all, into a module that starts faster)"
)


class KernelCacheError(WorldError):
    """No base folder for the compiled kernels can be written (each one tried is named)."""


def kernel_source_files(packages: Sequence[Path] = _PACKAGES) -> list[Path]:
    """The packages' modules that define or build kernels (a line importing lockstep's
    `njit`, or numba), in every sub-package, in path order; not the location and the
    decorator, which compile nothing of their own."""
    return [
        path
        for package in packages
        for path in sorted(package.rglob("*.py"))
        if path.name not in _NOT_KERNELS and _DEFINES_KERNELS.search(path.read_bytes())
    ]


def kernel_sources_digest(packages: Sequence[Path] | None = None) -> str:
    """sha256 (16 hex digits) over the kernel modules (KERNEL_MODULES; given `packages`,
    the ones a scan of them finds), each named by its package and path, in order."""
    if packages is None:
        named = [(name, _ROOT / name) for name in KERNEL_MODULES]
    else:
        named = [
            (f"{package.name}/{path.relative_to(package).as_posix()}", path)
            for package in packages
            for path in kernel_source_files([package])
        ]
    digest = hashlib.sha256()
    for name, path in named:
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _uid() -> str:
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid is not None else os.environ.get("USERNAME", "user")


def cache_bases(
    environ: Mapping[str, str], user_dir: str = "", package: Path = _PACKAGES[0]
) -> list[tuple[Path, bool]]:
    """The bases to try in order, each with whether it must be private to this user.

    `user_dir` is numba's CACHE_DIR as the user set it (NUMBA_CACHE_DIR). The home base
    needs XDG_CACHE_HOME or HOME in `environ`: without them there is no home to write.
    """
    bases: list[tuple[Path, bool]] = []
    if user_dir:
        bases.append((Path(user_dir), False))
    bases.append((package / "__pycache__", False))
    xdg = environ.get("XDG_CACHE_HOME", "")
    home = environ.get("HOME", "")
    if xdg and os.path.isabs(xdg):
        bases.append((Path(xdg) / "lockstep", False))
    elif home and os.path.isabs(home):
        bases.append((Path(home) / ".cache" / "lockstep", False))
    with contextlib.suppress(OSError):  # OSError: no usable temp dir at all
        bases.append((Path(tempfile.gettempdir()) / f"lockstep-{_uid()}", True))
    return bases


def _private(base: Path) -> bool:
    """A base in a shared temp dir is used only if it is this user's own folder, closed
    to others (the cache holds code that is loaded and run)."""
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(base)
    except OSError:
        return False
    owner = getattr(os, "getuid", None)
    return (
        stat.S_ISDIR(info.st_mode)
        and (owner is None or info.st_uid == owner())
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _writable(folder: Path) -> bool:
    """Whether `folder` can be made and a file written in it (as numba itself checks)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def prune(base: Path, keep: str) -> list[Path]:
    """Removes the other digests' folders in `base`; returns those removed."""
    removed = []
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        if entry.name != keep and _FOLDER.fullmatch(entry.name) and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def choose_cache_dir(bases: list[tuple[Path, bool]], digest: str) -> Path:
    """The digest's folder in the first base that can be written, older digests pruned."""
    name = f"numba-{digest}"
    for base, must_be_private in bases:
        if must_be_private and not _private(base):
            continue
        folder = base / name
        if _writable(folder):
            prune(base, keep=name)
            return folder
    tried = ", ".join(str(base) for base, _ in bases) or "none"
    raise KernelCacheError(
        f"no folder can be written for lockstep's compiled kernels (tried {tried}); "
        "set NUMBA_CACHE_DIR to a writable folder"
    )


class _CompileNotice:
    """Says once per process, on stderr, that lockstep's kernels are being compiled: numba
    raises the compile event only when a cached kernel is not in the cache folder."""

    def __init__(self) -> None:
        self.said = False

    def on_start(self, event: Any) -> None:
        if self.said:
            return
        dispatcher = (event.data or {}).get("dispatcher")
        py_func = getattr(dispatcher, "py_func", None)
        cached = getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
        source = getattr(getattr(py_func, "__code__", None), "co_filename", "")
        if cached and any(source.startswith(str(p) + os.sep) for p in _PACKAGES):
            self.said = True
            print(COMPILE_NOTICE, file=sys.stderr, flush=True)

    def on_end(self, event: Any) -> None:
        pass


_CACHE_DIR: Path | None = None
_NUMBA_CONFIGURED = False


def cache_dir() -> Path:
    """The folder this process keeps lockstep's compiled kernels in (chosen on first use)."""
    global _CACHE_DIR
    if _CACHE_DIR is None:
        user_dir = os.environ.get("NUMBA_CACHE_DIR", "")
        _CACHE_DIR = choose_cache_dir(cache_bases(os.environ, user_dir), kernel_sources_digest())
    return _CACHE_DIR


def configure_numba() -> None:
    """Points numba's cache at `cache_dir()` and listens for compiles (once per process);
    imports numba: called just before the first kernel numba compiles or loads."""
    global _NUMBA_CONFIGURED
    if _NUMBA_CONFIGURED:
        return
    from numba.core import config as numba_config
    from numba.core import event as numba_event

    class CompileNotice(_CompileNotice, numba_event.Listener):
        """The notice as numba's listener type."""

    numba_config.CACHE_DIR = str(cache_dir())
    numba_event.register("numba:compile", CompileNotice())
    _NUMBA_CONFIGURED = True
