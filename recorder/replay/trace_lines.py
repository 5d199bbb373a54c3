"""The JSON line text of replay traces: float32 numbers with %.9g, doubles with %.17g.

A float32 value is marked by wrapping it in `F32`; any other float is a double. NaN and
the infinities print as NaN / Infinity / -Infinity (Python's json reads them back) and a
negative zero as -0, so a trace line reads back to exactly the numbers written.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring as _string  # type: ignore[attr-defined]
from typing import Any


class F32(float):
    """A float32 value (printed with 9 significant digits)."""


def _number(x: float, digits: str) -> str:
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "Infinity" if x > 0 else "-Infinity"
    return digits % x


def dumps(value: Any) -> str:
    """One value as compact JSON text."""
    kind = type(value)
    if kind is F32:
        return _number(value, "%.9g")
    if kind is float:
        return _number(value, "%.17g")
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is str:
        return _string(value)
    if kind is dict:
        return "{" + ",".join(_string(str(k)) + ":" + dumps(v) for k, v in value.items()) + "}"
    if kind is list or kind is tuple:
        return "[" + ",".join([dumps(v) for v in value]) + "]"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _number(float(value), "%.17g")
    raise TypeError(f"cannot write {kind.__name__} in a trace line")


def f32s(values: Any) -> list[F32]:
    """A vector of float32 values."""
    return [F32(v) for v in values]
