"""Where numba keeps the compiled kernels: one cache directory per version of their sources.

numba's on-disk cache notices only edits of the file that defines a cached function, yet a
compiled kernel holds the code of every kernel it calls from other files (the physics tick
calls the vehicles', walkers', collisions' and ground query's; the autopilot's plan calls
its control laws). So the cache lives in `world/__pycache__/numba-<digest>`, the digest
taken over every world module that compiles code: an edit of any of them starts a fresh
cache instead of running stale code. Imported first by `world/__init__.py`, before any
kernel is defined. A NUMBA_CACHE_DIR the user set wins, and a read-only install keeps
numba's own choice.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba.core import config as numba_config

__all__ = ["kernel_source_files", "kernel_sources_digest"]

# the world package: its kernels sit in every wing
_PACKAGE = Path(__file__).resolve().parents[1]


def kernel_source_files(package: Path = _PACKAGE) -> list[Path]:
    """The package's modules that import numba, in every sub-package, in path order."""
    found = []
    for path in sorted(package.rglob("*.py")):
        source = path.read_bytes()
        if b"from numba import" in source or b"import numba" in source:
            found.append(path)
    return found


def kernel_sources_digest(package: Path = _PACKAGE) -> str:
    """sha256 (16 hex digits) over the package's modules that import numba, in path order."""
    digest = hashlib.sha256()
    for path in kernel_source_files(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _choose_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR") or not os.access(_PACKAGE, os.W_OK):
        return
    cache_dir = str(_PACKAGE / "__pycache__" / f"numba-{kernel_sources_digest()}")
    # the environment too, not only numba.config: numba rereads its config from it
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    numba_config.CACHE_DIR = cache_dir


_choose_cache_dir()
