"""The float32 arithmetic of CARLA's replayed poses (UE 4.26's FVector and FRotator).

CARLA interpolates a replayed actor between two logged poses in single precision:
the location is `A + float(per) * (B - A)` per axis, and each angle is
`A + normalized(B - A) * float(per)`, where `normalized` is UE's SSE rotator
normalisation to (-180, 180]. Every step rounds to float32 and there is no fused
multiply-add. A binary64 operation on float32 inputs rounded back to float32 is the
correctly rounded float32 result, so plain Python floats rounded by `f32` reproduce
CARLA's numbers bit for bit.
"""

from __future__ import annotations

import math
from array import array

Vec3 = tuple[float, float, float]

_ONE = array("f", [0.0])
_NON_FRACTIONAL = 8388608.0  # 2**23: a float32 this large has no fraction


def f32(x: float) -> float:
    """`x` rounded to the nearest float32 (overflow gives an infinity, NaN stays NaN)."""
    _ONE[0] = x
    return _ONE[0]


def _mod360(x: float) -> float:
    """UnrealMathSSE's VectorMod(x, 360) in float32, clamped to [-360, 360].

    The clamp uses SSE min/max, which return their second operand when the first is NaN,
    so a NaN or infinite input comes out as 360."""
    div = f32(x / 360.0)
    if math.isnan(div):
        whole = -2147483648.0  # _mm_cvttps_epi32 of NaN
    elif abs(div) >= _NON_FRACTIONAL:
        whole = div
    else:
        whole = float(math.trunc(div))
    result = f32(x - f32(360.0 * whole))
    low = result if result < 360.0 else 360.0  # _mm_min_ps(result, 360)
    if math.isnan(result):
        low = 360.0
    return low if low > -360.0 else -360.0  # _mm_max_ps(-360, low)


def normalize_angle(x: float) -> float:
    """UE's VectorNormalizeRotator on one component: the angle in (-180, 180]."""
    v0 = _mod360(x)
    v2 = v0 if v0 >= 0.0 else f32(v0 + 360.0)
    return f32(v2 - 360.0) if v2 > 180.0 else v2


def lerp_location(a: Vec3, b: Vec3, per: float) -> Vec3:
    """FMath::Lerp of two FVectors: `a + alpha * (b - a)` per axis, alpha = float(per)."""
    alpha = f32(per)
    return (
        f32(a[0] + f32(alpha * f32(b[0] - a[0]))),
        f32(a[1] + f32(alpha * f32(b[1] - a[1]))),
        f32(a[2] + f32(alpha * f32(b[2] - a[2]))),
    )


def lerp_angle(a: float, b: float, per: float) -> float:
    """One angle of FMath::Lerp of FRotators: the shorter way round, not wrapped after.

    From 174 to -178 degrees the difference -352 normalises to 8, so the angle passes 180."""
    alpha = f32(per)
    return f32(a + f32(normalize_angle(f32(b - a)) * alpha))


def lerp_rotation(a: Vec3, b: Vec3, per: float) -> Vec3:
    """Each of (roll, pitch, yaw) by `lerp_angle`."""
    return (lerp_angle(a[0], b[0], per), lerp_angle(a[1], b[1], per), lerp_angle(a[2], b[2], per))


def interpolate_pose(
    loc1: Vec3, rot1: Vec3, loc2: Vec3, rot2: Vec3, per: float
) -> tuple[Vec3, Vec3]:
    """CARLA's ProcessReplayerPosition pose: the first pose exactly when `per` is 0, else the
    float32 interpolation (location in cm, rotation as roll, pitch, yaw in degrees)."""
    if per == 0.0:
        return tuple(loc1), tuple(rot1)  # type: ignore[return-value]
    return lerp_location(loc1, loc2, per), lerp_rotation(rot1, rot2, per)
