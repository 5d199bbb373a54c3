"""The JSON line text of replay traces: float32 numbers with %.9g, doubles with %.17g.

A float32 value is marked by wrapping it in `F32`; any other float is a double. NaN and
the infinities print as NaN / Infinity / -Infinity (Python's json reads them back) and a
negative zero as -0, so a trace line reads back to exactly the numbers written.
"""

from __future__ import annotations

import json
import math
from typing import Any


class F32(float):
    """A float32 value (printed with 9 significant digits)."""


def _number(x: float, digits: int) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return f"%.{digits}g" % x


def dumps(value: Any) -> str:
    """One value as compact JSON text."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, F32):
        return _number(value, 9)
    if isinstance(value, float):
        return _number(value, 17)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ",".join(f"{dumps(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} in a trace line")


def f32s(values: Any) -> list[F32]:
    """A vector of float32 values."""
    return [F32(v) for v in values]
