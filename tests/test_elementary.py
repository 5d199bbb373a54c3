"""lockstep's own sin, cos, tan, atan, atan2, asin, acos, hypot, exp, log (world.elementary).

Checked against Python's math module (glibc's libm, itself within an ulp of the true value)
on many points and at the special ones C's standard names; the array versions must give
the scalar versions' bits, and numba must not fuse a*b+c into one rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from world import elementary as el

RNG = np.random.default_rng(20261202)
ANGLES = np.concatenate(
    [
        RNG.uniform(-4.0, 4.0, 20000),
        RNG.uniform(-400.0, 400.0, 5000),
        RNG.uniform(-8e5, 8e5, 5000),
        np.arange(-64, 65) * (math.pi / 4),  # near multiples of pi/4, where reduction is hardest
        np.arange(-64, 65) * (math.pi / 2),
    ]
)
UNIT = np.concatenate([RNG.uniform(-1.0, 1.0, 20000), [-1.0, -0.5, 0.0, 0.5, 1.0]])
WIDE = np.concatenate(
    [RNG.uniform(-20.0, 20.0, 10000), 10.0 ** RNG.uniform(-300, 300, 10000)]
)  # atan and the quotients of atan2
POSITIVE = 10.0 ** RNG.uniform(-300.0, 300.0, 20000)
EXPONENTS = RNG.uniform(-740.0, 709.0, 20000)

UNARY = [
    ("sin", ANGLES, math.sin, 1),
    ("cos", ANGLES, math.cos, 1),
    ("tan", ANGLES, math.tan, 2),
    ("atan", np.concatenate([WIDE, -WIDE]), math.atan, 1),
    ("asin", UNIT, math.asin, 2),
    ("acos", UNIT, math.acos, 2),
    ("exp", EXPONENTS, math.exp, 1),
    ("log", POSITIVE, math.log, 1),
]


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """|got - want| in units of want's last place."""
    return np.abs(got - want) / np.spacing(np.abs(want))


@pytest.mark.parametrize(("name", "points", "reference", "bound"), UNARY, ids=[u[0] for u in UNARY])
def test_unary_functions_are_within_their_ulp_bound_of_libm(name, points, reference, bound):
    got = getattr(el, f"{name}_v")(points)
    want = np.array([reference(float(x)) for x in points])
    # libm's own error (up to ~0.5 ulp) adds to ours: the bound plus one
    worst = _ulps(got, want).max()
    assert worst <= bound + 0.5, f"{name}: {worst} ulp"


@pytest.mark.parametrize(("name", "points", "reference", "bound"), UNARY, ids=[u[0] for u in UNARY])
def test_array_and_scalar_versions_agree_bit_for_bit(name, points, reference, bound):
    scalar = getattr(el, name)
    vector = getattr(el, f"{name}_v")
    some = points[:: max(1, len(points) // 2000)]
    assert vector(some).tobytes() == np.array([scalar(float(x)) for x in some]).tobytes()


def test_cos_sin3_gives_the_six_single_calls_bits():
    some = ANGLES[:: max(1, len(ANGLES) // 1500)]
    for a, b, c in zip(some.tolist(), some[::-1].tolist(), np.roll(some, 7).tolist(), strict=True):
        singles = (el.cos(a), el.sin(a), el.cos(b), el.sin(b), el.cos(c), el.sin(c))
        assert np.array(el.cos_sin3(a, b, c)).tobytes() == np.array(singles).tobytes()


def test_sin_cos_gives_the_two_single_calls_bits():
    # the kernels take a heading's sine and cosine from one call: the same bits as two calls,
    # signed zeros, the small-angle branch, every quadrant and NaN included
    some = np.concatenate([ANGLES[:: max(1, len(ANGLES) // 1500)], [0.0, -0.0, 1e-9, np.nan]])
    for a in some.tolist():
        assert np.array(el.sin_cos(a)).tobytes() == np.array((el.sin(a), el.cos(a))).tobytes()


def test_atan2_and_hypot_are_within_their_bounds_in_every_quadrant():
    y = np.concatenate([RNG.uniform(-50.0, 50.0, 20000), 10.0 ** RNG.uniform(-200, 200, 5000)])
    x = np.concatenate([RNG.uniform(-50.0, 50.0, 20000), -(10.0 ** RNG.uniform(-200, 200, 5000))])
    got = el.atan2_v(y, x)
    want = np.array([math.atan2(a, b) for a, b in zip(y.tolist(), x.tolist(), strict=True)])
    assert _ulps(got, want).max() <= 2.5
    assert {int(q) for q in np.sign(y) * 2 + np.sign(x)} == {-3, -1, 1, 3}  # all four quadrants
    got = el.hypot_v(y, x)
    want = np.array([math.hypot(a, b) for a, b in zip(y.tolist(), x.tolist(), strict=True)])
    assert _ulps(got, want).max() <= 1.5
    assert (
        el.atan2_v(y[:500], x[:500]).tobytes()
        == np.array(
            [el.atan2(float(a), float(b)) for a, b in zip(y[:500], x[:500], strict=True)]
        ).tobytes()
    )


def _same(a: float, b: float) -> bool:
    """Equal bits, or both nan."""
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b)
    )


INF, NAN = math.inf, math.nan
SPECIAL = [
    # C's atan2 table (C11 F.10.1.4): signed zeros and infinities
    ("atan2", (0.0, 1.0), 0.0),
    ("atan2", (-0.0, 1.0), -0.0),
    ("atan2", (0.0, -0.0), math.pi),
    ("atan2", (-0.0, -0.0), -math.pi),
    ("atan2", (0.0, 0.0), 0.0),
    ("atan2", (-0.0, 0.0), -0.0),
    ("atan2", (0.0, -1.0), math.pi),
    ("atan2", (-0.0, -1.0), -math.pi),
    ("atan2", (1.0, 0.0), math.pi / 2),
    ("atan2", (-1.0, -0.0), -math.pi / 2),
    ("atan2", (1.0, INF), 0.0),
    ("atan2", (-1.0, INF), -0.0),
    ("atan2", (1.0, -INF), math.pi),
    ("atan2", (-1.0, -INF), -math.pi),
    ("atan2", (INF, INF), math.pi / 4),
    ("atan2", (-INF, -INF), -3 * math.pi / 4),
    ("atan2", (INF, 3.0), math.pi / 2),
    ("atan2", (1.0, 1.0), math.pi / 4),
    ("atan2", (-1.0, -1.0), -3 * math.pi / 4),
    ("atan2", (NAN, 1.0), NAN),
    ("atan2", (1.0, NAN), NAN),
    ("sin", (0.0,), 0.0),
    ("sin", (-0.0,), -0.0),
    ("sin", (math.pi / 2,), 1.0),
    ("sin", (INF,), NAN),
    ("sin", (NAN,), NAN),
    ("cos", (0.0,), 1.0),
    ("cos", (math.pi,), -1.0),
    ("cos", (-INF,), NAN),
    ("tan", (-0.0,), -0.0),
    ("tan", (math.pi / 4,), math.tan(math.pi / 4)),
    ("atan", (-0.0,), -0.0),
    ("atan", (INF,), math.pi / 2),
    ("atan", (-INF,), -math.pi / 2),
    ("atan", (1.0,), math.pi / 4),
    ("asin", (1.0,), math.pi / 2),
    ("asin", (-0.0,), -0.0),
    ("asin", (1.5,), NAN),
    ("acos", (-1.0,), math.pi),
    ("acos", (1.0,), 0.0),
    ("hypot", (3.0, 4.0), 5.0),
    ("hypot", (-INF, NAN), INF),
    ("hypot", (1e300, 1e300), math.hypot(1e300, 1e300)),
    ("hypot", (math.ldexp(3.0, -1040), math.ldexp(4.0, -1040)), math.ldexp(5.0, -1040)),
    ("hypot", (0.0, -0.0), 0.0),
    ("exp", (0.0,), 1.0),
    ("exp", (-0.0,), 1.0),
    ("exp", (710.0,), INF),
    ("exp", (-INF,), 0.0),
    ("exp", (-745.0,), math.exp(-745.0)),  # subnormal
    ("log", (1.0,), 0.0),
    ("log", (math.e,), 1.0),
    ("log", (0.0,), -INF),
    ("log", (-1.0,), NAN),
    ("log", (INF,), INF),
    ("log", (5e-324,), math.log(5e-324)),
]


@pytest.mark.parametrize(("name", "args", "want"), SPECIAL, ids=[f"{s[0]}{s[1]}" for s in SPECIAL])
def test_special_points(name, args, want):
    assert _same(getattr(el, name)(*args), want)
    assert _same(float(getattr(el, f"{name}_v")(*args)), want)


def test_float32_arrays_give_float32_rounded_once_from_float64():
    x = RNG.uniform(-3.0, 3.0, 1000).astype(np.float32)
    got = el.sin_v(x)
    assert got.dtype == np.float32
    assert got.tobytes() == el.sin_v(x.astype(np.float64)).astype(np.float32).tobytes()


@njit(cache=False)
def _mul_add(a: float, b: float, c: float) -> float:
    return a * b + c


def test_numba_rounds_the_product_before_the_sum():
    # (1 + 2**-30)**2 - (1 + 2**-29): exact value 2**-60, rounded product gives 0 and a fused
    # multiply-add would give 2**-60
    a = 1.0 + 2.0**-30
    assert a * a - (1.0 + 2.0**-29) == 0.0  # Python: two roundings
    assert _mul_add(a, a, -(1.0 + 2.0**-29)) == 0.0
