"""The scenario library: scenario type name -> the function that sets it up in a task.

Empty until the scenario library lands; a config or route file that asks for a
scenario type not listed here is refused when it is read, naming the type.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["SCENARIO_TYPES"]

SCENARIO_TYPES: dict[str, Callable[..., None]] = {}
