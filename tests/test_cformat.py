"""The C library's number and date text, against Python's %g/%f/strftime and known C outputs."""

from __future__ import annotations

import time

import numpy as np
import pytest

from recorder.logfile.cformat import (
    c_date,
    c_fixed,
    c_general,
    civil_from_seconds,
    general_rows,
    pad_left,
    pad_right,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        # printf("%g") outputs of glibc, as CARLA's golden texts show them.
        (0.0, "0"),
        (-0.0, "-0"),
        (1e-07, "1e-07"),
        (1234567.0, "1.23457e+06"),
        (0.399833, "0.399833"),
        (float(np.float32(-52.31)), "-52.31"),
        (float(np.float32(3.4e38)), "3.4e+38"),
        (100000.0, "100000"),
        (1000000.0, "1e+06"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
        (float("nan"), "nan"),
        (-float("nan"), "-nan"),
    ],
)
def test_general_matches_c(value, text):
    assert c_general(value) == text


def test_general_matches_python_percent_g_on_random_floats():
    rng = np.random.default_rng(7)
    values = np.concatenate(
        [rng.normal(0, 1e3, 2000), rng.normal(0, 1e-5, 500), rng.normal(0, 1e12, 500)]
    )
    floats = values.astype(np.float32).astype(np.float64)
    for v in [*values.tolist(), *floats.tolist()]:
        assert c_general(v) == "%g" % v  # noqa: UP031 (printf semantics on purpose)


@pytest.mark.parametrize(
    ("value", "precision", "width", "text"),
    [
        (2.5, 0, 8, "       2"),  # round half to even on the exact binary value
        (3.5, 0, 8, "       4"),
        (14.95, 0, 10, "        15"),
        (-0.4, 0, 8, "      -0"),
        (123456789.0, 0, 8, "123456789"),  # setw pads, never cuts
        (0.05, 3, 0, "0.050"),
    ],
)
def test_fixed(value, precision, width, text):
    assert c_fixed(value, precision, width) == text
    assert text == "%*.*f" % (width, precision, value)  # noqa: UP031


def test_padding_counts_utf8_bytes():
    # setw counts the bytes of the UTF-8 string: "große" is 6 bytes.
    assert pad_right("große", 8) == "große  "
    assert pad_left("ab", 4) == "  ab"
    assert pad_right("x" * 40, 35) == "x" * 40


def test_general_rows_formats_every_row_and_nan_sign():
    values = np.array([[24, -52.31, 0.5], [4294967295, -0.0, -float("nan")]])
    text = general_rows("  Id: %d (%g, %g)\n", values)
    assert text == "  Id: 24 (-52.31, 0.5)\n  Id: 4294967295 (-0, -nan)\n"


@pytest.mark.parametrize("seconds", [0, 1, 1767225601, 1637676528, 2**31, -1, -86400 * 365])
def test_date_matches_strftime_in_utc(seconds):
    expected = time.strftime("%m/%d/%y %H:%M:%S", time.gmtime(seconds))
    assert c_date(seconds) == expected


def test_date_known_values():
    # The golden logs' Date lines (README: 01/01/26 00:00:01, 11/23/21 14:08:48).
    assert c_date(1767225601) == "01/01/26 00:00:01"
    assert c_date(1637676528) == "11/23/21 14:08:48"


def test_civil_from_seconds_far_years():
    # 253402300800 is 10000-01-01T00:00:00Z; %y prints the year modulo 100.
    assert civil_from_seconds(253402300800) == (10000, 1, 1, 0, 0, 0)
    assert c_date(253402300800) == "01/01/00 00:00:00"


def test_date_out_of_c_range_raises():
    with pytest.raises(ValueError):
        c_date(2**62)


def test_local_time_uses_the_machine_zone():
    expected = time.strftime("%m/%d/%y %H:%M:%S", time.localtime(1637676528))
    assert c_date(1637676528, local_time=True) == expected
