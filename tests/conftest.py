"""The one fixture that finds ../shared (or $LOCKSTEP_SHARED); without it tests skip, saying why.

Every test, and every process a test starts, checks each call of an ahead-of-time compiled
kernel against the types it was built for (world.kernels.compiled): a call that would read
an array as another dtype fails the test instead of computing on wrong bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# before any test imports world (the kernels bind when their module is imported)
os.environ.setdefault("LOCKSTEP_KERNEL_CHECK", "1")


def find_shared() -> Path | None:
    """The shared data folder: $LOCKSTEP_SHARED if set, else ../shared beside the checkout."""
    env = os.environ.get("LOCKSTEP_SHARED")
    path = Path(env) if env else REPO.parent / "shared"
    return path if path.is_dir() else None


@pytest.fixture(scope="session")
def shared() -> Path:
    path = find_shared()
    if path is None:
        where = os.environ.get("LOCKSTEP_SHARED") or str(REPO.parent / "shared")
        pytest.skip(f"shared data not found at {where} (set LOCKSTEP_SHARED to its folder)")
    return path
