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
    """Angles brought into (-180, 180] (a new float64 array)."""
    out = np.fmod(np.asarray(angle, dtype=np.float64), 360.0)
    out[out <= -180.0] += 360.0
    out[out > 180.0] -= 360.0
    return out


def recorder_rotation(pitch_yaw_roll: np.ndarray) -> np.ndarray:
    """(N, 3) world rotations (pitch, yaw, roll) -> (N, 3) float32 (roll, pitch, yaw) as
    CARLA's recorder writes them."""
    rot = np.asarray(pitch_yaw_roll, dtype=np.float64).reshape(-1, 3)
    pitch = normalize_degrees(rot[:, 0])
    yaw = rot[:, 1].copy()
    roll = rot[:, 2].copy()
    over = np.abs(pitch) > 90.0
    if np.any(over):
        pitch[over] = np.copysign(180.0, pitch[over]) - pitch[over]
        yaw[over] += 180.0
        roll[over] += 180.0
    out = np.empty((len(rot), 3), dtype=np.float32)
    out[:, 0] = normalize_degrees(roll)
    out[:, 1] = pitch
    out[:, 2] = normalize_degrees(yaw)
    return out
