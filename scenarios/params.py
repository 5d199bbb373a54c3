"""Scenario parameters: each type's typed schema, and binding what a route gives to it.

A route XML file gives a scenario's parameters as child elements (`<distance value="90"/>`,
`<frequency from="35" to="110"/>`, `<start_actor_flow x=".." y=".." z=".."/>`); a YAML
config gives them as keys of the scenario mapping (`distance: 90`, `frequency: [35, 110]`,
`start_actor_flow: {x: .., y: .., z: ..}`, or the XML's own shape). Binding checks every
name against the type's schema, converts every value and fills in the defaults
(ScenarioRunner's defaults); anything wrong is a ScenarioParameterError naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scenarios.errors import ScenarioParameterError
from world.geometry import Location

__all__ = ["REQUIRED", "RESERVED_KEYS", "Param", "bind_parameters"]

REQUIRED = object()
"""The default of a parameter the route must give (ScenarioRunner reads it unguarded)."""

RESERVED_KEYS = ("type", "name", "trigger")
"""Keys of a scenario entry that are not parameters."""

KINDS = ("float", "str", "interval", "location")


@dataclass(frozen=True)
class Param:
    """One parameter: its name, its kind (float, str, interval: (low, high), location), and
    its default (REQUIRED: the route must give it)."""

    name: str
    kind: str
    default: Any = REQUIRED

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name}: kind {self.kind!r} not in {KINDS}")

    def describe(self) -> str:
        default = "required" if self.default is REQUIRED else f"default {self.default!r}"
        return f"{self.name} ({self.kind}, {default})"


def _number(type_name: str, name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ScenarioParameterError(type_name, name, f"expected a number, found {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ScenarioParameterError(
            type_name, name, f"expected a number, found {value!r}"
        ) from None


def _convert(type_name: str, param: Param, raw: Any) -> Any:
    name = param.name
    if param.kind in ("float", "str"):
        if isinstance(raw, Mapping):
            if set(raw) != {"value"}:
                raise ScenarioParameterError(
                    type_name, name, f"expected value=..., found {dict(raw)!r}"
                )
            raw = raw["value"]
        if param.kind == "float":
            return _number(type_name, name, raw)
        if not isinstance(raw, str | int | float) or isinstance(raw, bool):
            raise ScenarioParameterError(type_name, name, f"expected text, found {raw!r}")
        return str(raw)
    if param.kind == "interval":
        if isinstance(raw, Mapping):
            if set(raw) != {"from", "to"}:
                raise ScenarioParameterError(
                    type_name, name, f"expected from=... to=..., found {dict(raw)!r}"
                )
            raw = [raw["from"], raw["to"]]
        if not isinstance(raw, list | tuple) or len(raw) != 2:
            raise ScenarioParameterError(
                type_name, name, f"expected [from, to] or {{from, to}}, found {raw!r}"
            )
        low, high = (_number(type_name, name, v) for v in raw)
        if low > high:
            raise ScenarioParameterError(type_name, name, f"from {low} is above to {high}")
        return (low, high)
    # location
    if isinstance(raw, list | tuple) and len(raw) == 3:
        raw = dict(zip("xyz", raw, strict=True))
    if not isinstance(raw, Mapping) or not {"x", "y", "z"} <= set(raw):
        raise ScenarioParameterError(type_name, name, f"expected x, y, z, found {raw!r}")
    return Location(*(_number(type_name, name, raw[k]) for k in "xyz"))


def bind_parameters(type_name: str, schema: tuple[Param, ...], given: Mapping[str, Any]) -> dict:
    """`given` (a scenario entry without its reserved keys) checked against `schema`,
    converted, with the defaults filled in."""
    by_name = {p.name: p for p in schema}
    for name in given:
        if name not in by_name:
            valid = ", ".join(p.describe() for p in schema) or "none"
            raise ScenarioParameterError(
                type_name, name, f"unknown parameter (valid parameters: {valid})"
            )
    out: dict[str, Any] = {}
    for param in schema:
        if param.name in given:
            out[param.name] = _convert(type_name, param, given[param.name])
        elif param.default is REQUIRED:
            raise ScenarioParameterError(type_name, param.name, "required parameter missing")
        else:
            out[param.name] = param.default
    return out
