"""Where numba keeps the compiled kernels: one folder per version of their sources.

numba's on-disk cache notices only edits of the file that defines a cached function, yet a
compiled kernel holds the code of every kernel it calls from other files (the physics tick
calls the vehicles', walkers', collisions' and ground query's; the autopilot's plan calls
its control laws). So the kernels live in a folder `numba-<digest>`, the digest taken over
every world module that compiles code: an edit of any of them starts a fresh cache instead
of running stale code. The folder sits in the first base that can be written:

1. the folder a user's NUMBA_CACHE_DIR names, when set;
2. the package's own `world/__pycache__`;
3. the user cache dir, `$XDG_CACHE_HOME/lockstep` (default `$HOME/.cache/lockstep`);
4. the temp dir, `<tempfile.gettempdir()>/lockstep-<uid>` (made private to the user).

Older digests' folders in that base are removed. The choice goes into numba's config in
this process only (never os.environ, which child processes would inherit). Every module
that defines kernels imports this one before its first kernel: numba fixes a kernel's
cache folder when the kernel is defined. The first compile of a process that finds no
cached kernel says so on stderr, once.
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
from collections.abc import Mapping
from pathlib import Path

from numba.core import config as numba_config
from numba.core import event as numba_event

from world.errors import WorldError

__all__ = [
    "COMPILE_NOTICE",
    "KernelCacheError",
    "cache_bases",
    "cache_dir",
    "choose_cache_dir",
    "kernel_source_files",
    "kernel_sources_digest",
]

# the world package: its kernels sit in every wing
_PACKAGE = Path(__file__).resolve().parents[1]
_FOLDER = re.compile(r"numba-[0-9a-f]{16}")
_IMPORTS_NUMBA = re.compile(rb"^(?:from numba(?:\.[\w.]+)? import |import numba\b)", re.MULTILINE)

COMPILE_NOTICE = "compiling lockstep's kernels, once per install, about a minute"


class KernelCacheError(WorldError):
    """No base folder for the compiled kernels can be written (each one tried is named)."""


def kernel_source_files(package: Path = _PACKAGE) -> list[Path]:
    """The package's modules that import numba (a line `from numba import ...` or `import
    numba`), in every sub-package, in path order; not this one, which compiles nothing."""
    return [
        path
        for path in sorted(package.rglob("*.py"))
        if path.name != "compiled_cache.py" and _IMPORTS_NUMBA.search(path.read_bytes())
    ]


def kernel_sources_digest(package: Path = _PACKAGE) -> str:
    """sha256 (16 hex digits) over the package's modules that import numba, in path order."""
    digest = hashlib.sha256()
    for path in kernel_source_files(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _uid() -> str:
    getuid = getattr(os, "getuid", None)
    return str(getuid()) if getuid is not None else os.environ.get("USERNAME", "user")


def cache_bases(
    environ: Mapping[str, str], user_dir: str = "", package: Path = _PACKAGE
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


class _CompileNotice(numba_event.Listener):
    """Says once per process, on stderr, that lockstep's kernels are being compiled: numba
    raises the compile event only when a cached kernel is not in the cache folder."""

    def __init__(self) -> None:
        self.said = False

    def on_start(self, event: numba_event.Event) -> None:
        if self.said:
            return
        dispatcher = (event.data or {}).get("dispatcher")
        py_func = getattr(dispatcher, "py_func", None)
        cached = getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
        source = getattr(getattr(py_func, "__code__", None), "co_filename", "")
        if cached and source.startswith(str(_PACKAGE) + os.sep):
            self.said = True
            print(COMPILE_NOTICE, file=sys.stderr, flush=True)

    def on_end(self, event: numba_event.Event) -> None:
        pass


def _setup() -> Path:
    folder = choose_cache_dir(
        cache_bases(os.environ, numba_config.CACHE_DIR), kernel_sources_digest()
    )
    numba_config.CACHE_DIR = str(folder)
    numba_event.register("numba:compile", _CompileNotice())
    return folder


_CACHE_DIR = _setup()


def cache_dir() -> Path:
    """The folder this process keeps lockstep's compiled kernels in."""
    return _CACHE_DIR
