"""Rotations as CARLA's recorder stores them: (roll, pitch, yaw) in degrees, float32.

CARLA writes `Transform.GetRotation().Euler()`: the actor's rotator goes through a
quaternion and back, which leaves every rotation in one canonical form: pitch in
[-90, 90], yaw and roll in (-180, 180]. A pitch past 90 degrees is the same rotation as
(180 - pitch, yaw + 180, roll + 180). lockstep's world keeps (pitch, yaw, roll) with yaw
growing without bound as a vehicle turns, so the recorder brings each rotation into that
form with exact IEEE arithmetic (fmod, add, compare: the same bits on every CPU; no
trigonometry), then rounds to float32 as the log holds it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalize_degrees", "recorder_rotation"]


def normalize_degrees(angle: np.ndarray) -> np.ndarray:
    """Angles brought into (-180, 180] (a new float64 array of the same shape)."""
    out = np.fmod(np.asarray(angle, dtype=np.float64), 360.0)
    out = np.where(out > 180.0, out - 360.0, out)
    return np.where(out <= -180.0, out + 360.0, out)


def recorder_rotation(pitch_yaw_roll: np.ndarray) -> np.ndarray:
    """(N, 3) world rotations (pitch, yaw, roll) -> (N, 3) float32 (roll, pitch, yaw) as
    CARLA's recorder writes them."""
    rot = normalize_degrees(np.asarray(pitch_yaw_roll, dtype=np.float64).reshape(-1, 3))
    over = np.abs(rot[:, 0]) > 90.0
    if over.any():
        flipped = rot[over]
        flipped[:, 0] = np.copysign(180.0, flipped[:, 0]) - flipped[:, 0]
        flipped[:, 1:] += 180.0
        rot[over] = normalize_degrees(flipped)
    out = rot[:, [2, 0, 1]].astype(np.float32)
    # an angle just above -180 rounds to -180 in float32: the range's other end
    for column in (0, 2):
        out[out[:, column] == -180.0, column] = 180.0
    return out
