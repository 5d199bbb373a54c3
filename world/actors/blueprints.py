"""CARLA's blueprint API: ActorAttribute, ActorBlueprint and BlueprintLibrary.

Behaviour follows LibCarla's client/ActorAttribute.cpp, ActorBlueprint.cpp and
BlueprintLibrary.cpp (CARLA 0.9.13-0.9.15):

* an attribute keeps its value as text; `as_int` / `as_float` read it as C's
  `atoi` / `atof` do (see `world.kernels.cstdlib`), `as_bool` accepts "true"/"false" in
  any case, `as_color` splits "R,G,B"; reading as the wrong type is an error;
* `set_attribute` refuses a read-only attribute and a value its type cannot read
  (a bool is lower-cased first). Like CARLA's client it does not refuse a value
  outside the recommended list; `restrict_to_recommended` tells when CARLA's
  server would;
* `filter(pattern)` keeps the blueprints whose id or one of whose tags matches
  the shell wildcard, as C's `fnmatch(pattern, text, 0)` (`world.kernels.cstdlib.c_fnmatch`);
* `filter_by_attribute(name, value)` keeps those whose attribute offers `value`
  among its recommended values, or has it as value when it recommends none.

CARLA keeps blueprints and attributes in hash maps; here a library iterates its
blueprints sorted by id and a blueprint its attributes sorted by id, so every
run sees the same order. Blueprints handed out are copies, as CARLA's Python API
returns them by value.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from world.actors.blueprint_catalog import CATALOG, AttributeDefinition, BlueprintDefinition
from world.enums import CarlaEnum
from world.errors import BlueprintError
from world.kernels.cstdlib import c_atof, c_atoi, c_fnmatch

__all__ = [
    "ActorAttribute",
    "ActorAttributeType",
    "ActorBlueprint",
    "BlueprintLibrary",
    "Color",
    "blueprint_library",
]

_FLOAT32_MAX = float(np.finfo(np.float32).max)


class ActorAttributeType(CarlaEnum):
    """An attribute's type, with CARLA's numbers (rpc/ActorAttributeType.h, the recorder's)."""

    Bool = 0
    Int = 1
    Float = 2
    String = 3
    RGBColor = 4


@dataclass(slots=True)
class Color:
    """An 8-bit RGBA colour (CARLA's carla.Color); a colour attribute reads as alpha 255."""

    r: int = 0
    g: int = 0
    b: int = 0
    a: int = 255

    def __str__(self) -> str:
        return f"Color({self.r},{self.g},{self.b},{self.a})"


class ActorAttribute:
    """One attribute of a blueprint: id, type, text value, recommended values, modifiable."""

    __slots__ = ("_definition", "_value")

    def __init__(self, definition: AttributeDefinition, value: str | None = None) -> None:
        self._definition = definition
        self._value = definition.value if value is None else value

    @property
    def id(self) -> str:
        return self._definition.id

    @property
    def type(self) -> ActorAttributeType:
        return ActorAttributeType(self._definition.type)

    @property
    def value(self) -> str:
        """The text as CARLA keeps it (what the recorder writes)."""
        return self._value

    @property
    def recommended_values(self) -> list[str]:
        return list(self._definition.recommended_values)

    @property
    def is_modifiable(self) -> bool:
        return self._definition.modifiable

    @property
    def restrict_to_recommended(self) -> bool:
        return self._definition.restrict_to_recommended

    def _fail(self, what: str) -> BlueprintError:
        return BlueprintError(f"attribute {self.id!r}: {what}")

    def _expect(self, kind: ActorAttributeType) -> None:
        if self._definition.type != kind:
            raise self._fail(
                f"bad attribute cast: cannot convert a {self.type.name} attribute to {kind.name}"
            )

    def as_bool(self) -> bool:
        self._expect(ActorAttributeType.Bool)
        low = self._value.lower()
        if low not in ("true", "false"):
            raise self._fail(f"invalid bool: expected 'true' or 'false', found {self._value!r}")
        return low == "true"

    def as_int(self) -> int:
        self._expect(ActorAttributeType.Int)
        return c_atoi(self._value)

    def as_float(self) -> float:
        """The value as C's atof reads it, rounded to float32 (CARLA returns a float)."""
        self._expect(ActorAttributeType.Float)
        x = c_atof(self._value)
        if x > _FLOAT32_MAX or x < -_FLOAT32_MAX:
            raise self._fail(f"float overflow: {self._value!r} does not fit a float")
        return float(np.float32(x))

    def as_str(self) -> str:
        self._expect(ActorAttributeType.String)
        return self._value

    def as_color(self) -> Color:
        self._expect(ActorAttributeType.RGBColor)
        channels = self._value.split(",")
        if len(channels) != 3:
            raise self._fail(f"colors must have 3 channels (R,G,B), found {self._value!r}")
        values = []
        for text in channels:
            i = c_atoi(text)
            if i > 255:
                raise self._fail(f"integer overflow in color channel: {self._value!r}")
            values.append(i & 0xFF)  # C's static_cast<uint8_t>
        return Color(*values)

    def _read(self) -> object:
        readers = {
            ActorAttributeType.Bool: self.as_bool,
            ActorAttributeType.Int: self.as_int,
            ActorAttributeType.Float: self.as_float,
            ActorAttributeType.String: self.as_str,
            ActorAttributeType.RGBColor: self.as_color,
        }
        return readers[self.type]()

    def _set(self, value: object) -> None:
        if not self.is_modifiable:
            raise self._fail("read-only attribute")
        text = _to_text(value)
        if self._definition.type == ActorAttributeType.Bool:
            text = text.lower()
        old, self._value = self._value, text
        try:
            self._read()
        except BlueprintError:
            self._value = old
            raise

    def copy(self) -> ActorAttribute:
        return ActorAttribute(self._definition, self._value)

    def __eq__(self, other: object) -> bool:
        """Compares as CARLA's Python API does: with a number, text or Color, read as that type."""
        if isinstance(other, ActorAttribute):
            return (self.id, self.type, self._value) == (other.id, other.type, other._value)
        if isinstance(other, bool):
            return self.as_bool() == other
        if isinstance(other, int | float):
            number = self.as_int() if self.type == ActorAttributeType.Int else self.as_float()
            return number == other
        if isinstance(other, str):
            return self.as_str() == other
        if isinstance(other, Color):
            return self.as_color() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        return self.as_bool()

    def __int__(self) -> int:
        return self.as_int()

    def __float__(self) -> float:
        return self.as_float()

    def __str__(self) -> str:
        names = {
            ActorAttributeType.Bool: "bool",
            ActorAttributeType.Int: "int",
            ActorAttributeType.Float: "float",
            ActorAttributeType.String: "str",
            ActorAttributeType.RGBColor: "Color",
        }
        value = self._read()
        if isinstance(value, bool):
            value = "True" if value else "False"
        elif isinstance(value, float):
            value = f"{value:g}"  # C++ ostream's default: six significant digits
        const = "" if self.is_modifiable else "(const)"
        return f"ActorAttribute(id={self.id},type={names[self.type]},value={value}{const})"

    __repr__ = __str__


def _to_text(value: object) -> str:
    """The text CARLA's Python API stores for a value given to set_attribute."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Color):
        return f"{value.r},{value.g},{value.b}"
    return str(value)


class ActorBlueprint:
    """A blueprint: its id, tags and attributes (CARLA's carla.ActorBlueprint)."""

    __slots__ = ("_attributes", "_definition")

    def __init__(self, definition: BlueprintDefinition) -> None:
        self._definition = definition
        self._attributes = {a.id: ActorAttribute(a) for a in definition.attributes}

    @property
    def id(self) -> str:
        return self._definition.id

    @property
    def tags(self) -> list[str]:
        return list(self._definition.tags)

    def has_tag(self, tag: str) -> bool:
        return tag in self._definition.tags

    def match_tags(self, pattern: str) -> bool:
        """Whether the id or any tag matches the shell wildcard `pattern`."""
        return c_fnmatch(pattern, self.id) or any(
            c_fnmatch(pattern, tag) for tag in self._definition.tags
        )

    def has_attribute(self, attribute_id: str) -> bool:
        return attribute_id in self._attributes

    def get_attribute(self, attribute_id: str) -> ActorAttribute:
        """The attribute (a copy); BlueprintError naming the blueprint if it has none so called."""
        try:
            return self._attributes[attribute_id].copy()
        except KeyError:
            raise BlueprintError(
                f"blueprint {self.id!r}: attribute {attribute_id!r} not found "
                f"(it has {', '.join(sorted(self._attributes))})"
            ) from None

    def set_attribute(self, attribute_id: str, value: object) -> None:
        """Sets an attribute's text; refuses read-only attributes and unreadable values."""
        if attribute_id not in self._attributes:
            self.get_attribute(attribute_id)  # raises the not-found error
        try:
            self._attributes[attribute_id]._set(value)
        except BlueprintError as err:
            raise BlueprintError(f"blueprint {self.id!r}: {err}") from None

    def copy(self) -> ActorBlueprint:
        bp = ActorBlueprint.__new__(ActorBlueprint)
        bp._definition = self._definition
        bp._attributes = {k: a.copy() for k, a in self._attributes.items()}
        return bp

    def __iter__(self) -> Iterator[ActorAttribute]:
        return iter([self._attributes[k].copy() for k in sorted(self._attributes)])

    def __len__(self) -> int:
        return len(self._attributes)

    def __str__(self) -> str:
        return f"ActorBlueprint(id={self.id},tags=[{', '.join(self._definition.tags)}])"

    __repr__ = __str__


class BlueprintLibrary:
    """A set of blueprints sorted by id (CARLA's carla.BlueprintLibrary)."""

    __slots__ = ("_blueprints",)

    def __init__(self, blueprints: Iterable[ActorBlueprint]) -> None:
        self._blueprints = {bp.id: bp for bp in sorted(blueprints, key=lambda b: b.id)}

    def filter(self, wildcard_pattern: str) -> BlueprintLibrary:
        """The blueprints whose id or a tag matches the shell wildcard (e.g. "vehicle.*")."""
        return BlueprintLibrary(
            bp.copy() for bp in self._blueprints.values() if bp.match_tags(wildcard_pattern)
        )

    def filter_by_attribute(self, name: str, value: str) -> BlueprintLibrary:
        """The blueprints whose attribute `name` offers `value` (recommended, or its value)."""
        kept = []
        for bp in self._blueprints.values():
            if not bp.has_attribute(name):
                continue
            attribute = bp._attributes[name]
            offered = attribute.recommended_values or [attribute.value]
            if value in offered:
                kept.append(bp.copy())
        return BlueprintLibrary(kept)

    def find(self, id: str) -> ActorBlueprint:
        """A copy of the blueprint `id`; BlueprintError if the library has none."""
        blueprint_id = str(id)
        bp = self._blueprints.get(blueprint_id)
        if bp is None:
            near = difflib.get_close_matches(blueprint_id, list(self._blueprints), n=3)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise BlueprintError(
                f"blueprint {blueprint_id!r} not found in the library "
                f"({len(self._blueprints)} blueprints){hint}"
            )
        return bp.copy()

    def __getitem__(self, index: int) -> ActorBlueprint:
        items = list(self._blueprints.values())
        if not -len(items) <= index < len(items):
            raise IndexError(f"blueprint index {index} out of range (library of {len(items)})")
        return items[index].copy()

    def __iter__(self) -> Iterator[ActorBlueprint]:
        return iter([bp.copy() for bp in self._blueprints.values()])

    def __len__(self) -> int:
        return len(self._blueprints)

    def ids(self) -> list[str]:
        """The blueprints' ids in the library's order, without copying a blueprint (lockstep's;
        iterating hands out copies)."""
        return list(self._blueprints)

    def __contains__(self, blueprint_id: object) -> bool:
        return blueprint_id in self._blueprints

    def __str__(self) -> str:
        return f"BlueprintLibrary({len(self)} blueprints)"

    __repr__ = __str__


def blueprint_library() -> BlueprintLibrary:
    """A fresh library of CARLA's catalogue (`world.actors.blueprint_catalog`)."""
    return BlueprintLibrary(ActorBlueprint(d) for d in CATALOG)
