"""The LiDAR sweep's per-ray arithmetic, compiled: its kept rays turned into the world, and
its hits made into CARLA's points with their intensity and the intensity drop-off.

Each value is computed as lidar.py's numpy expressions computed it (the same operations in
the same order, no fused multiply-adds), so the points keep their bits; the kernels only
spare the dozen passes and copies numpy needs for 60,000 rays a tick. The random draws stay
in numpy (the sensor's generator, in CARLA's order); the kernels read them.
"""

from __future__ import annotations

import numpy as np

from world import elementary as el
from world.kernels.compiled import njit

__all__ = ["lidar_points", "world_directions"]


@njit(cache=True)
def world_directions(
    local: np.ndarray, index: np.ndarray, axes: np.ndarray, out: np.ndarray
) -> None:
    """out[s] = local[index[s]] in the world: each component times its axis (`axes`'
    columns: forward, right, up), summed in that order (pinhole.to_world's sums)."""
    for s in range(len(index)):
        r = index[s]
        l0, l1, l2 = local[r, 0], local[r, 1], local[r, 2]
        for k in range(3):
            out[s, k] = l0 * axes[k, 0] + l1 * axes[k, 1] + l2 * axes[k, 2]


@njit(cache=True)
def lidar_points(
    local: np.ndarray,
    index: np.ndarray,
    distance: np.ndarray,
    number: np.ndarray,
    noise: np.ndarray,
    chance: np.ndarray,
    falloff: tuple,
    per_channel: int,
    out: np.ndarray,
    counts: np.ndarray,
) -> int:
    """The kept points of the rays index[s] (unit directions `local`, in the sensor's frame)
    that hit (number[s] >= 0) at distance[s], in ray order: out rows (x, y, z, intensity)
    float32, and counts[channel] += 1 for each (per_channel rays a channel). The h-th hit
    moves along its ray by noise[h] when `noise` holds one value per hit (none when empty)
    and is kept when its intensity e^(-attenuation d) exceeds `limit` or chance[h] < alpha
    intensity + keep_zero. `falloff` is (-attenuation, limit, alpha, keep_zero). Returns
    the rows written."""
    negative_rate, limit, alpha, keep_zero = falloff
    noisy = len(noise) > 0
    h = 0
    written = 0
    for s in range(len(index)):
        if number[s] < 0:
            continue
        r = index[s]
        d = distance[s]
        x, y, z = local[r, 0] * d, local[r, 1] * d, local[r, 2] * d
        if noisy:
            x = x + local[r, 0] * noise[h]
            y = y + local[r, 1] * noise[h]
            z = z + local[r, 2] * noise[h]
        intensity = el.exp(negative_rate * d)
        if intensity > limit or np.float64(chance[h]) < alpha * intensity + keep_zero:
            out[written, 0] = np.float32(x)
            out[written, 1] = np.float32(y)
            out[written, 2] = np.float32(z)
            out[written, 3] = np.float32(intensity)
            written += 1
            if per_channel > 0:
                counts[r // per_channel] += 1
        h += 1
    return written
