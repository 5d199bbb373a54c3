"""The scenario library: every scenario type by name, found by discovery.

Each public module of this package defines one (or a few closely related) `Scenario`
subclasses with a `type_name`; importing the package imports them all. Types listed in
`_pending.PENDING` are registered with their parameters but not written yet: binding
works, running raises "scenario type X is not implemented yet". `bind_scenario(entry)`
checks one config or route-file scenario entry and gives its type and bound parameters.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from scenarios.base import Scenario
from scenarios.errors import UnknownScenarioTypeError
from scenarios.library._pending import PENDING
from scenarios.params import RESERVED_KEYS, Param, bind_parameters

__all__ = ["SCENARIO_TYPES", "bind_scenario", "scenario_type"]


def _pending_type(name: str, schema: tuple[Param, ...]) -> type[Scenario]:
    return type(name, (Scenario,), {"type_name": name, "parameters": schema, "implemented": False})


def _discover() -> dict[str, type[Scenario]]:
    found: dict[str, type[Scenario]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Scenario)
                and value.__module__ == module.__name__
                and value.type_name
            ):
                found[value.type_name] = value
    for name, schema in PENDING.items():
        found.setdefault(name, _pending_type(name, schema))
    return dict(sorted(found.items()))


SCENARIO_TYPES: dict[str, type[Scenario]] = _discover()


def scenario_type(name: str) -> type[Scenario]:
    if name not in SCENARIO_TYPES:
        raise UnknownScenarioTypeError(name, list(SCENARIO_TYPES))
    return SCENARIO_TYPES[name]


def bind_scenario(entry: Mapping[str, Any]) -> tuple[type[Scenario], dict[str, Any]]:
    """The type of a scenario entry ({type, name?, trigger?, parameters...}) and its
    parameters bound to the type's schema."""
    cls = scenario_type(str(entry.get("type")))
    given = {k: v for k, v in entry.items() if k not in RESERVED_KEYS}
    return cls, bind_parameters(cls.type_name, cls.parameters, given)
