"""CARLA's three log queries with CARLA's exact text: file info, collisions, blocked actors.

Each query is imported on first use (PEP 562): a command runs one of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

_HOMES = {
    "query_blocked": "recorder.queries.blocked",
    "query_collisions": "recorder.queries.collisions",
    "query_info": "recorder.queries.info",
}

__all__ = [
    "query_blocked",
    "query_collisions",
    "query_info",
]


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'recorder.queries' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from recorder.queries.blocked import query_blocked
    from recorder.queries.collisions import query_collisions
    from recorder.queries.info import query_info
