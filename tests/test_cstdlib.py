"""atoi / atof cases worked by hand from C's rules (glibc: atoi = (int) strtol, atof = strtod)."""

import math

import pytest

from world.kernels.cstdlib import c_atof, c_atoi, c_fnmatch


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12", 12),
        (" 12abc", 12),  # leading space skipped, digits read, the rest ignored
        ("\t\n-7", -7),
        ("+5", 5),
        ("abc", 0),  # no digits: 0
        ("", 0),
        ("3.9", 3),  # stops at the '.'
        ("0x1A", 0),  # base 10: reads "0", stops at 'x'
        ("- 5", 0),  # a sign must touch its digits
        ("2147483648", -2147483648),  # 2^31 fits a long; (int) wraps it to -2^31
        ("4294967297", 1),  # 2^32 + 1 wraps to 1
        ("99999999999999999999", -1),  # strtol clamps to LONG_MAX = 2^63-1; low 32 bits are all 1
        ("-99999999999999999999", 0),  # LONG_MIN = -2^63; its low 32 bits are 0
    ],
)
def test_atoi(text, expected):
    assert c_atoi(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3.5f", 3.5),  # CARLA's "3.5f" friction reads as 3.5
        ("1.0f", 1.0),
        (" 12abc", 12.0),
        ("abc", 0.0),
        (".5", 0.5),
        ("-.25e1x", -2.5),
        ("1e", 1.0),  # an exponent needs digits: "1" is read
        ("1e+", 1.0),
        ("2E3", 2000.0),
        (".", 0.0),
        ("0x1A", 26.0),  # C99 hexadecimal: 1*16 + 10
        ("0x1.8p1", 3.0),  # 1.5 * 2^1
        ("0x", 0.0),  # no hex digits: "0" is read
        ("-0x10", -16.0),
    ],
)
def test_atof(text, expected):
    assert c_atof(text) == expected


def test_atof_special_words():
    assert c_atof("inf") == math.inf
    assert c_atof("-Infinity") == -math.inf
    assert c_atof("INFx") == math.inf
    assert math.isnan(c_atof("nan"))
    assert c_atof("1e999") == math.inf  # overflow gives HUGE_VAL


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("vehicle.*", "vehicle.audi.a2", True),
        ("*mkz*", "vehicle.lincoln.mkz_2017", True),
        ("Vehicle.*", "vehicle.audi.a2", False),  # case-sensitive
        ("?", "/", True),  # flags 0: no FNM_PATHNAME, '/' is ordinary
        ("*", ".hidden", True),  # no FNM_PERIOD either
        ("[!a]bc", "xbc", True),
        ("[!a]bc", "abc", False),
        ("[^a]bc", "abc", False),  # glibc takes '^' as '!' (Python's fnmatch does not)
        ("a\\*", "a*", True),  # backslash quotes '*' (Python's fnmatch does not)
        ("a\\*", "abc", False),
        ("[]]", "]", True),  # a ']' first in a set is a member
        ("[a-c]x", "bx", True),
        ("[[:digit:]]0", "70", True),
        ("[ab", "[ab", True),  # an unclosed '[' is an ordinary character
        ("walker", "walker.pedestrian.0001", False),  # the whole text must match
    ],
)
def test_fnmatch(pattern, text, expected):
    assert c_fnmatch(pattern, text) is expected
