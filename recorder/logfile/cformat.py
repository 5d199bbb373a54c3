"""The C library's number and date text, as CARLA's query code prints it.

A default C++ ostream prints a float or double as `printf("%g")`: six significant digits,
trailing zeros dropped, an exponent of at least two digits (`1e-07`, `1.23457e+06`), `-0`
for negative zero, `inf`/`-inf`, and glibc's `nan`/`-nan` (the sign bit shows). A float
prints as the double it widens to. `std::fixed` with `setprecision(p)` is `%.pf`; `setw(w)`
pads to w *bytes* (a UTF-8 string is bytes to a stream). The header's date is
`strftime("%x %X")` in the C locale: `MM/DD/YY HH:MM:SS`.

Python's `%g`/`%f` are correctly rounded like glibc's, so they give the same digits; the
one difference is NaN's sign, handled here. `general_rows` formats whole arrays in one
`%` operation, which is what makes the show-all listing of a large log fast.
"""

from __future__ import annotations

import math
import re
import time

import numpy as np

# Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar.
_EPOCH_DAYS = 719468
_INT_MAX = 2**31 - 1


def _nan_text(x: float) -> str:
    return "-nan" if math.copysign(1.0, x) < 0 else "nan"


def c_general(x: float) -> str:
    """`os << x` for a float or double: printf's `%g`."""
    if x != x:
        return _nan_text(x)
    return f"{x:g}"


def c_fixed(x: float, precision: int = 0, width: int = 0) -> str:
    """`os << std::setw(width) << std::fixed << std::setprecision(precision) << x`."""
    if x != x:
        return _nan_text(x).rjust(width)
    return f"{x:{width}.{precision}f}"


def byte_length(text: str) -> int:
    """The text's length in UTF-8 bytes (surrogate escapes count as the byte they hold)."""
    return len(text.encode("utf-8", "surrogateescape"))


def pad_right(text: str, width: int) -> str:
    """`std::left << std::setw(width) << text`: spaces after, up to width bytes."""
    return text + " " * (width - byte_length(text)) if not text.isascii() else text.ljust(width)


def pad_left(text: str, width: int) -> str:
    """`std::right << std::setw(width) << text`: spaces before, up to width bytes."""
    return " " * (width - byte_length(text)) + text if not text.isascii() else text.rjust(width)


def general_rows(template: str, values: np.ndarray) -> str:
    """`template % row` for every row of a 2-D float64 array, joined.

    The template holds one `%d` or `%g` per column (integer columns must hold exact
    integers). Rows with a NaN take the slow path so its sign prints as glibc prints it.
    """
    rows = values.shape[0]
    if rows == 0:
        return ""
    if not np.isnan(values).any():
        return (template * rows) % tuple(values.ravel().tolist())
    general = [kind == "g" for kind in re.findall(r"%([dg])", template)]
    slow = template.replace("%g", "%s")
    return "".join(
        slow % tuple(c_general(v) if g else v for g, v in zip(general, row, strict=True))
        for row in values.tolist()
    )


def civil_from_seconds(seconds: int) -> tuple[int, int, int, int, int, int]:
    """(year, month, day, hour, minute, second) in UTC for any int64 time_t."""
    days, rest = divmod(seconds, 86400)
    hour, rest = divmod(rest, 3600)
    minute, second = divmod(rest, 60)
    z = days + _EPOCH_DAYS
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    return year, month, day, hour, minute, second


def c_date(seconds: int, local_time: bool = False) -> str:
    """`strftime("%x %X", tm)` in the C locale for a time_t: `MM/DD/YY HH:MM:SS`.

    UTC by default (gmtime); `local_time=True` uses the machine's zone (localtime).
    ValueError when the C library cannot represent the time (its year overflows an int).
    """
    if local_time:
        try:
            t = time.localtime(seconds)
        except (OverflowError, OSError, ValueError) as exc:
            raise ValueError(f"date {seconds} is out of the C library's range") from exc
        year, month, day, hour, minute, second = t[:6]
    else:
        year, month, day, hour, minute, second = civil_from_seconds(seconds)
    if not -_INT_MAX - 1 <= year - 1900 <= _INT_MAX:
        raise ValueError(f"date {seconds} is out of the C library's range")
    return f"{month:02d}/{day:02d}/{year % 100:02d} {hour:02d}:{minute:02d}:{second:02d}"
