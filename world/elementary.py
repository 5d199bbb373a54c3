"""sin, cos, tan, atan, atan2, asin, acos, hypot, exp and log with the same bits on every CPU.

numpy's transcendental ufuncs pick SIMD code by CPU feature and glibc's libm picks FMA code
by CPU, so the same run on two machines could differ by an ulp, and an ulp in a yaw grows
into different traffic. These functions are built only from IEEE-754 operations that are
correctly rounded everywhere (+, -, *, /, sqrt, comparisons, frexp/ldexp/copysign/floor,
which are exact), evaluated in a fixed order: the same inputs give the same bits on any
IEEE-754 machine. numba compiles them with fastmath off, so LLVM neither reorders them nor
contracts a*b+c into a fused multiply-add.

The methods are the classic ones of fdlibm (Sun's freely distributable libm): Cody-Waite
reduction by pi/2 in three parts, then its minimax polynomials on the reduced argument (its
published coefficients); atan by table points atan(0.5), atan(1), atan(1.5) and a series;
exp by k*ln2 reduction and a rational remainder; log on the mantissa in [sqrt(2)/2, sqrt(2)).
Errors against the correctly rounded result are within 1 ulp (sin, cos, atan, exp, log,
hypot) and 2 ulp (tan = sin/cos, atan2, asin, acos, whose quotient or square root adds
half an ulp); tests/test_elementary.py checks it.

Domains: sin, cos, tan reduce exactly for |x| < 2**19 * pi/2 (about 8.2e5 rad); beyond it they
stay deterministic but lose accuracy (no simulation angle gets there). inf and nan give nan
in sin, cos, tan; atan2 follows C's table for zeros and infinities (signs of zeros kept);
asin/acos outside [-1, 1] give nan; log(0) = -inf, log(x < 0) = nan; exp overflows to inf
above 709.78 and flushes to 0 below -745.13.

Each function comes twice: the scalar one (a numba kernel, callable from other kernels and
from Python) and the array one named with a trailing `_v` (a compiled loop over the
very same scalar code, so both agree bit for bit; float32 arrays are computed in float64 and
rounded once, as numpy returns float32 for them: the kernels always run in float64).
"""

from __future__ import annotations

import math

import numpy as np

from world.kernels.compiled import njit

__all__ = [
    "acos",
    "acos_v",
    "asin",
    "asin_v",
    "atan",
    "atan2",
    "atan2_v",
    "atan_v",
    "cos",
    "cos_sin3",
    "cos_v",
    "exp",
    "exp_v",
    "hypot",
    "hypot_v",
    "log",
    "log_v",
    "sin",
    "sin_cos",
    "sin_v",
    "tan",
    "tan_v",
]

# pi/2 in three parts of 33 bits each (the first two end in zeros), each with the rest
_PIO2_1 = 1.57079632673412561417e00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
_PIO2_3T = 8.47842766036889956997e-32
_TWO_OVER_PI = 6.36619772367581382433e-01
_REDUCE_LIMIT = 8.2e5  # 2**19 * pi/2, less a margin: k * _PIO2_1 is exact below it

_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10

_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11

_ATAN_HI = (
    4.63647609000806093515e-01,
    7.85398163397448278999e-01,
    9.82793723247329054082e-01,
    1.57079632679489655800e00,
)
_ATAN_LO = (
    2.26987774529616870924e-17,
    3.06161699786838301793e-17,
    1.39033110312309984516e-17,
    6.12323399573676603587e-17,
)
_AT0 = 3.33333333333329318027e-01
_AT1 = -1.99999999998764832476e-01
_AT2 = 1.42857142725034663711e-01
_AT3 = -1.11111104054623557880e-01
_AT4 = 9.09088713343650656196e-02
_AT5 = -7.69187620504482999495e-02
_AT6 = 6.66107313738753120669e-02
_AT7 = -5.83357013379057348645e-02
_AT8 = 4.97687799461593236017e-02
_AT9 = -3.65315727442169155270e-02
_AT10 = 1.62858201153657823623e-02

_PI = 3.14159265358979311600e00
_PI_LO = 1.22464679914735317720e-16
_PIO2 = 1.57079632679489655800e00
_PIO4 = 7.85398163397448278999e-01

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_EXP_MAX = 7.09782712893383973096e02
_EXP_MIN = -7.45133219101941108420e02
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08

_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT_HALF = 7.07106781186547524401e-01

_NAN = math.nan
_INF = math.inf

_kernel = njit(cache=True, fastmath=False, nogil=False, error_model="numpy")


@_kernel
def _reduce(x: float) -> tuple[float, float, int]:
    """x = k*pi/2 + (hi + lo), |hi + lo| <= about pi/4; returns hi, lo and k mod 4."""
    k = math.floor(x * _TWO_OVER_PI + 0.5)
    w = k * _PIO2_1
    r = x - w  # exact: k * _PIO2_1 has 53 bits at most and lies close to x
    t = k * _PIO2_2
    hi = r - t
    lo = (r - hi) - t
    u = k * _PIO2_3
    hi2 = hi - u
    lo = ((hi - hi2) - u) + lo - k * _PIO2_3T
    hi = hi2 + lo
    lo = (hi2 - hi) + lo
    quadrant = int(k - 4.0 * math.floor(k * 0.25))
    return hi, lo, quadrant


@_kernel
def _sin_kernel(x: float, y: float) -> float:
    """sin(x + y) for |x + y| <= pi/4, y the tail of x."""
    z = x * x
    v = z * x
    r = _S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))
    return x - ((z * (0.5 * y - v * r) - y) - v * _S1)


@_kernel
def _cos_kernel(x: float, y: float) -> float:
    """cos(x + y) for |x + y| <= pi/4, y the tail of x."""
    z = x * x
    r = z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6)))))
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) + (z * r - x * y))


@_kernel
def _sin_cos(x: float) -> tuple[float, float]:
    if x != x or x == _INF or x == -_INF:
        return _NAN, _NAN
    if -7.450580596923828e-09 < x < 7.450580596923828e-09:  # 2**-27: sin x = x, cos x = 1
        return x, 1.0
    if -_PIO4 <= x <= _PIO4:
        return _sin_kernel(x, 0.0), _cos_kernel(x, 0.0)
    hi, lo, q = _reduce(x)
    s, c = _sin_kernel(hi, lo), _cos_kernel(hi, lo)
    if q == 0:
        return s, c
    if q == 1:
        return c, -s
    if q == 2:
        return -s, -c
    return -c, s


@_kernel
def sin(x: float) -> float:
    """sin(x), x in radians."""
    x = np.float64(x)
    return _sin_cos(x)[0]


@_kernel
def cos(x: float) -> float:
    """cos(x), x in radians."""
    x = np.float64(x)
    return _sin_cos(x)[1]


@_kernel
def sin_cos(x: float) -> tuple[float, float]:
    """sin(x) and cos(x), x in radians, from one reduction: the numbers of sin() and cos() for
    half their work (a kernel that needs both, as a heading's, calls this)."""
    return _sin_cos(np.float64(x))


@_kernel
def cos_sin3(a: float, b: float, c: float) -> tuple[float, float, float, float, float, float]:
    """cos and sin of each of three angles (radians), the numbers of cos() and sin(), in one
    call: a rotation's axes from Python need six, and each call from Python has its cost."""
    sa, ca = _sin_cos(np.float64(a))
    sb, cb = _sin_cos(np.float64(b))
    sc, cc = _sin_cos(np.float64(c))
    return ca, sa, cb, sb, cc, sc


@_kernel
def tan(x: float) -> float:
    """tan(x), x in radians: sin/cos of one reduction."""
    x = np.float64(x)
    if -7.450580596923828e-09 < x < 7.450580596923828e-09:
        return x
    s, c = _sin_cos(x)
    return s / c


@_kernel
def _atan_series(x: float) -> float:
    z = x * x
    w = z * z
    s1 = z * (_AT0 + w * (_AT2 + w * (_AT4 + w * (_AT6 + w * (_AT8 + w * _AT10)))))
    s2 = w * (_AT1 + w * (_AT3 + w * (_AT5 + w * (_AT7 + w * _AT9))))
    return x * (s1 + s2)


@_kernel
def atan(x: float) -> float:
    """atan(x) in (-pi/2, pi/2); atan(±0) = ±0, atan(±inf) = ±pi/2, nan stays nan."""
    x = np.float64(x)
    if x != x:
        return x
    a = abs(x)
    if a >= 7.378697629483821e19:  # 2**66: atan is pi/2 to the last bit
        return math.copysign(_ATAN_HI[3] + _ATAN_LO[3], x)
    if a < 0.4375:
        if a < 3.725290298461914e-09:  # 2**-28
            return x
        return x - _atan_series(x)
    if a < 0.6875:
        i = 0
        t = (2.0 * a - 1.0) / (2.0 + a)
    elif a < 1.1875:
        i = 1
        t = (a - 1.0) / (a + 1.0)
    elif a < 2.4375:
        i = 2
        t = (a - 1.5) / (1.0 + 1.5 * a)
    else:
        i = 3
        t = -1.0 / a
    z = _ATAN_HI[i] - ((_atan_series(t) - _ATAN_LO[i]) - t)
    return -z if x < 0.0 else z


@_kernel
def atan2(y: float, x: float) -> float:
    """The angle of (x, y) in [-pi, pi], C's atan2 on zeros, infinities and nan."""
    y = np.float64(y)
    x = np.float64(x)
    if x != x or y != y:
        return x + y
    if x == 1.0:
        return atan(y)
    x_neg = x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0)
    if y == 0.0:
        return math.copysign(_PI, y) if x_neg else y
    if x == 0.0:
        return math.copysign(_PIO2, y)
    if x == _INF or x == -_INF:
        if y == _INF or y == -_INF:
            return math.copysign(3.0 * _PIO4 if x_neg else _PIO4, y)
        return math.copysign(_PI, y) if x_neg else math.copysign(0.0, y)
    if y == _INF or y == -_INF:
        return math.copysign(_PIO2, y)
    ay, ax = abs(y), abs(x)
    if ay > ax * 1.152921504606847e18:  # 2**60: |y/x| beyond it, the angle is pi/2
        z = _PIO2 + 0.5 * _PI_LO
    elif x_neg and ay < ax * 8.673617379884035e-19:  # 2**-60
        z = 0.0
    else:
        z = atan(ay / ax)
    if not x_neg:
        return math.copysign(z, y) if z != 0.0 else math.copysign(0.0, y)
    z = _PI - (z - _PI_LO)
    return -z if y < 0.0 else z


@_kernel
def asin(x: float) -> float:
    """asin(x) in [-pi/2, pi/2] for x in [-1, 1], else nan."""
    x = np.float64(x)
    if not -1.0 <= x <= 1.0:
        return _NAN
    return atan2(x, math.sqrt((1.0 - x) * (1.0 + x)))


@_kernel
def acos(x: float) -> float:
    """acos(x) in [0, pi] for x in [-1, 1], else nan."""
    x = np.float64(x)
    if not -1.0 <= x <= 1.0:
        return _NAN
    return atan2(math.sqrt((1.0 - x) * (1.0 + x)), x)


@_kernel
def hypot(x: float, y: float) -> float:
    """sqrt(x*x + y*y) without overflow or underflow on the way; inf if either is inf."""
    x = np.float64(x)
    y = np.float64(y)
    a, b = abs(x), abs(y)
    if a == _INF or b == _INF:
        return _INF
    if a != a or b != b:
        return _NAN
    if a < b:
        a, b = b, a
    if a == 0.0:
        return 0.0
    if a > 1e150:
        a, b = a * 7.458340731200207e-155, b * 7.458340731200207e-155  # 2**-510
        return math.sqrt(a * a + b * b) * 1.3407807929942597e154  # 2**510
    if a < 1e-150:
        a, b = a * 1.3407807929942597e154, b * 1.3407807929942597e154
        return math.sqrt(a * a + b * b) * 7.458340731200207e-155
    return math.sqrt(a * a + b * b)


@_kernel
def exp(x: float) -> float:
    """e**x; inf above about 709.78, 0 below about -745.13, exp(nan) = nan."""
    x = np.float64(x)
    if x != x:
        return x
    if x > _EXP_MAX:
        return _INF
    if x < _EXP_MIN:
        return 0.0
    if -3.725290298461914e-09 < x < 3.725290298461914e-09:  # 2**-28
        return 1.0 + x
    k = math.floor(x * _INV_LN2 + 0.5)
    hi = x - k * _LN2_HI  # exact: k has at most 11 bits, _LN2_HI ends in zeros
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    n = int(k)
    if n < -1020:  # scale in two steps, so 2**n itself stays a normal number
        return math.ldexp(math.ldexp(y, n + 1000), -1000)
    return math.ldexp(y, n)


@_kernel
def log(x: float) -> float:
    """The natural logarithm; log(0) = -inf, log(x < 0) = nan, log(inf) = inf."""
    x = np.float64(x)
    if x != x or x == _INF:
        return x
    if x < 0.0:
        return _NAN
    if x == 0.0:
        return -_INF
    m, e = math.frexp(x)  # x = m * 2**e, m in [0.5, 1)
    if m < _SQRT_HALF:
        m = 2.0 * m
        e -= 1
    f = m - 1.0
    k = float(e)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


# -- the array forms ------------------------------------------------------------------------
# Plain compiled loops behind a thin wrapper rather than numba ufuncs: numba rebuilds a ufunc's
# wrapper through LLVM in every process (about 0.1 s each, a second for the ten), while a
# cached loop loads in milliseconds, and only when first called.


@_kernel
def _unary_loop(which: int, x: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.size):
        v = x[i]
        if which == 0:
            out[i] = sin(v)
        elif which == 1:
            out[i] = cos(v)
        elif which == 2:
            out[i] = tan(v)
        elif which == 3:
            out[i] = atan(v)
        elif which == 4:
            out[i] = asin(v)
        elif which == 5:
            out[i] = acos(v)
        elif which == 6:
            out[i] = exp(v)
        else:
            out[i] = log(v)


@_kernel
def _binary_loop(which: int, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    for i in range(a.size):
        out[i] = atan2(a[i], b[i]) if which == 0 else hypot(a[i], b[i])


def _float_type(*args) -> type:
    """The type numpy's float32-then-float64 loops would give: float32 when every argument
    casts to it safely (float32 arrays, small integers, Python scalars beside them)."""
    kind = np.result_type(*args)
    return np.float32 if np.can_cast(kind, np.float32, "safe") else np.float64


def _unary(which: int, x) -> np.ndarray:
    if type(x) is np.ndarray and x.dtype == np.float64 and x.ndim and x.flags.c_contiguous:
        # the common case, without the type rules' calls: float64 in, float64 out
        out = np.empty(x.shape)
        _unary_loop(which, x.reshape(-1), out.reshape(-1))
        return out
    a = np.asarray(x)
    out_type = _float_type(x)
    flat = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
    out = np.empty(flat.size)
    _unary_loop(which, flat, out)
    result = out.reshape(a.shape).astype(out_type, copy=False)
    return result[()] if a.ndim == 0 else result


def _binary(which: int, x, y) -> np.ndarray:
    if (
        type(x) is np.ndarray
        and type(y) is np.ndarray
        and x.dtype == np.float64
        and y.dtype == np.float64
        and x.ndim
        and x.shape == y.shape
        and x.flags.c_contiguous
        and y.flags.c_contiguous
    ):  # the common case, as _unary's
        out = np.empty(x.shape)
        _binary_loop(which, x.reshape(-1), y.reshape(-1), out.reshape(-1))
        return out
    out_type = _float_type(x, y)
    a, b = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    out = np.empty(a.size)
    _binary_loop(
        which, np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1), out
    )
    result = out.reshape(a.shape).astype(out_type, copy=False)
    return result[()] if a.ndim == 0 else result


def sin_v(x):
    """sin over an array (radians)."""
    return _unary(0, x)


def cos_v(x):
    """cos over an array (radians)."""
    return _unary(1, x)


def tan_v(x):
    """tan over an array (radians)."""
    return _unary(2, x)


def atan_v(x):
    """atan over an array."""
    return _unary(3, x)


def atan2_v(y, x):
    """atan2(y, x) over arrays (broadcast as numpy does)."""
    return _binary(0, y, x)


def asin_v(x):
    """asin over an array."""
    return _unary(4, x)


def acos_v(x):
    """acos over an array."""
    return _unary(5, x)


def hypot_v(x, y):
    """hypot(x, y) over arrays (broadcast as numpy does)."""
    return _binary(1, x, y)


def exp_v(x):
    """exp over an array."""
    return _unary(6, x)


def log_v(x):
    """log over an array."""
    return _unary(7, x)
