"""C's `atoi`, `atof` and `fnmatch` as glibc computes them, for blueprints as CARLA reads them.

CARLA reads an attribute's text with `std::atoi` / `std::atof`: leading white
space is skipped, the longest prefix that forms a number is read and the rest is
ignored, and text with no number reads as 0 ("3.5f" -> 3.5, " 12abc" -> 12,
"abc" -> 0). glibc's `atoi(s)` is `(int) strtol(s, NULL, 10)`: the value is
clamped to the 64-bit `long` range, then wrapped to 32 bits. `atof` is `strtod`,
which also reads "inf", "infinity", "nan" (any case) and C99 hexadecimal floats
("0x1A" -> 26.0, "0x1.8p1" -> 3.0) in full.

CARLA matches blueprint ids and tags with `fnmatch(pattern, text, 0)`: `*` and
`?` match any characters (a '/' or a leading '.' too), `[...]` a set with ranges,
`!` or `^` negating it and `[:alpha:]`-style classes, and a backslash makes the
next character literal. Python's `fnmatch` differs on the last two points.
"""

from __future__ import annotations

import functools
import re

__all__ = ["c_atof", "c_atoi", "c_fnmatch"]

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


_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v", "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}  # fmt: skip


def _bracket(pattern: str, i: int) -> tuple[str, int] | None:
    """The regex set for the bracket expression at pattern[i] == '[', and the index after it."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    j += negate
    parts: list[str] = []
    first = True
    while j < len(pattern):
        c = pattern[j]
        if c == "]" and not first:
            return ("[^" if negate else "[") + "".join(parts) + "]", j + 1
        first = False
        if c == "[" and pattern.startswith("[:", j):
            end = pattern.find(":]", j + 2)
            if end > 0 and pattern[j + 2 : end] in _CLASSES:
                parts.append(_CLASSES[pattern[j + 2 : end]])
                j = end + 2
                continue
        if c == "\\" and j + 1 < len(pattern):
            j += 1
            c = pattern[j]
        if j + 2 < len(pattern) and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            high = pattern[j + 2]
            if high == "\\" and j + 3 < len(pattern):
                high, j = pattern[j + 3], j + 1
            parts.append(f"{re.escape(c)}-{re.escape(high)}")
            j += 3
            continue
        parts.append(re.escape(c))
        j += 1
    return None  # no closing ']': the '[' is an ordinary character


@functools.lru_cache(maxsize=256)
def _fnmatch_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and (bracket := _bracket(pattern, i)) is not None:
            out.append(bracket[0])
            i = bracket[1]
            continue
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def c_fnmatch(pattern: str, text: str) -> bool:
    """glibc's `fnmatch(pattern, text, 0) == 0`."""
    return _fnmatch_regex(pattern).fullmatch(text) is not None
