"""C's `atoi` and `atof` as glibc computes them, for reading blueprint attribute text as CARLA does.

CARLA reads an attribute's text with `std::atoi` / `std::atof`: leading white
space is skipped, the longest prefix that forms a number is read and the rest is
ignored, and text with no number reads as 0 ("3.5f" -> 3.5, " 12abc" -> 12,
"abc" -> 0). glibc's `atoi(s)` is `(int) strtol(s, NULL, 10)`: the value is
clamped to the 64-bit `long` range, then wrapped to 32 bits. `atof` is `strtod`,
which also reads "inf", "infinity", "nan" (any case) and C99 hexadecimal floats
("0x1A" -> 26.0, "0x1.8p1" -> 3.0) in full.
"""

from __future__ import annotations

import re

__all__ = ["c_atof", "c_atoi"]

# C's isspace() in the "C" locale: space, \t, \n, \v, \f, \r.
_C_SPACE = " \t\n\v\f\r"

_INT = re.compile(r"[+-]?[0-9]+")
_DEC = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))([pP][+-]?[0-9]+)?")
_SPECIAL = re.compile(r"([+-]?)(infinity|inf|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def c_atoi(text: str) -> int:
    """glibc's `atoi(text)`: the 32-bit int C gives for this text."""
    m = _INT.match(text.lstrip(_C_SPACE))
    if m is None:
        return 0
    value = min(max(int(m.group()), _LONG_MIN), _LONG_MAX)
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


def c_atof(text: str) -> float:
    """glibc's `atof(text)` (`strtod`): the double C reads from the start of this text."""
    s = text.lstrip(_C_SPACE)
    m = _SPECIAL.match(s)
    if m is not None:
        sign = -1.0 if m.group(1) == "-" else 1.0
        word = m.group(2).lower()
        return sign * (float("nan") if word.startswith("nan") else float("inf"))
    m = _HEX.match(s)
    if m is not None:
        sign, mantissa, exponent = m.groups()
        return float.fromhex(f"{sign}0x{mantissa}{exponent or 'p0'}")
    m = _DEC.match(s)
    if m is None:
        return 0.0
    return float(m.group())
