"""The RGB camera's colours: each surface's albedo lit by the weather's sun and sky, in fog.

No textures, no shadows, no post-processing: a surface of albedo a (sRGB, made linear) with
unit normal n (turned toward the camera) has the linear colour

    a · (ambient + sun · max(0, n · s))

where s points to the sun (azimuth φ, altitude θ from WeatherParameters: s = (cos θ cos φ,
cos θ sin φ, sin θ) in CARLA's frame). With d = sin θ the day factor is D = clamp((d +
0.05) / 0.25, 0, 1): the sun's strength is 1.1 √max(d, 0) (1 − 0.75 c) for cloudiness c in
[0, 1], the sky's ambient light 0.03 + 0.32 D (1 − 0.3 c); below the horizon only the
night's ambient 0.03 remains. The lit lamps of traffic lights glow at their full colour,
day and night. The sky is a gradient from its horizon colour to its zenith colour with the
ray's elevation, blue by day, greyer under clouds, warm near sunset, dark at night.

Fog (fog_density ρ in [0, 100], fog_distance d₀ m, fog_falloff b) is exponential height fog:
the extinction at height z is σ(z) = 0.0005 ρ e^{−0.1 b z} per metre, integrated along the
ray beyond d₀; a pixel keeps e^{−τ} of its colour and takes the rest from the horizon
colour. The sky is fogged as a surface 1000 m away. The linear colour is made sRGB by the
nearest of the 256 codes. Transcendentals are world/elementary.py's, so every CPU gives the
same bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.sensors.camera_encodings import to_bgra

__all__ = ["LINEAR_OF_SRGB", "Lighting", "lighting_of", "shade", "srgb_of_linear"]


def _srgb_table() -> np.ndarray:
    c = np.arange(256) / 255.0
    curve = el.exp_v(2.4 * el.log_v((c + 0.055) / 1.055))
    return np.where(c <= 0.04045, c / 12.92, curve)


LINEAR_OF_SRGB = _srgb_table()  # 256 linear values of the sRGB codes
_MIDPOINTS = (LINEAR_OF_SRGB[1:] + LINEAR_OF_SRGB[:-1]) / 2.0

FAR_SKY = 1000.0  # m: how far the sky counts for the fog
_FOG_SCALE = 0.0005  # extinction per metre per unit of fog_density
_FOG_HEIGHT_SCALE = 0.1  # per metre per unit of fog_falloff


def srgb_of_linear(linear: np.ndarray) -> np.ndarray:
    """The nearest sRGB code (uint8) of each linear value (clipped to [0, 1])."""
    return np.searchsorted(_MIDPOINTS, np.clip(linear, 0.0, 1.0)).astype(np.uint8)


@dataclass(frozen=True, slots=True)
class Lighting:
    """The weather's light, worked out once per weather."""

    sun: np.ndarray  # (3,) unit vector toward the sun
    sun_strength: float
    ambient: float
    zenith: np.ndarray  # (3,) linear sky colour straight up
    horizon: np.ndarray  # (3,) linear sky colour at the horizon (also the fog's)
    fog_density: float  # extinction per metre at z = 0
    fog_distance: float
    fog_falloff: float  # per metre


def _clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def lighting_of(weather) -> Lighting:
    """The Lighting of a WeatherParameters (see the module)."""
    azimuth = math.radians(weather.sun_azimuth_angle)
    altitude = math.radians(weather.sun_altitude_angle)
    ca, sa = el.cos(altitude), el.sin(altitude)
    sun = np.array([ca * el.cos(azimuth), ca * el.sin(azimuth), sa])
    cloud = _clamp(weather.cloudiness / 100.0, 0.0, 1.0)
    day = _clamp((sa + 0.05) / 0.25, 0.0, 1.0)
    strength = 1.1 * math.sqrt(max(sa, 0.0)) * (1.0 - 0.75 * cloud)
    ambient = 0.03 + 0.32 * day * (1.0 - 0.3 * cloud)
    grey = np.array([0.42, 0.44, 0.47])
    night_zenith, night_horizon = np.array([0.002, 0.003, 0.008]), np.array([0.01, 0.012, 0.02])
    day_zenith = (1.0 - cloud) * np.array([0.10, 0.22, 0.60]) + cloud * grey
    day_horizon = (1.0 - cloud) * np.array([0.55, 0.65, 0.80]) + cloud * (grey + 0.1)
    dusk = _clamp(1.0 - sa / 0.3, 0.0, 1.0) * day * (1.0 - cloud)
    day_horizon = day_horizon + dusk * np.array([0.35, 0.12, 0.0])
    return Lighting(
        sun=sun,
        sun_strength=strength,
        ambient=ambient,
        zenith=day * day_zenith + (1.0 - day) * night_zenith,
        horizon=day * day_horizon + (1.0 - day) * night_horizon,
        fog_density=_FOG_SCALE * _clamp(weather.fog_density, 0.0, 100.0),
        fog_distance=max(weather.fog_distance, 0.0),
        fog_falloff=_FOG_HEIGHT_SCALE * max(weather.fog_falloff, 0.0),
    )


def _sky(rays: np.ndarray, light: Lighting) -> np.ndarray:
    """(..., 3) linear sky colours of unit rays."""
    up = np.sqrt(np.clip(rays[..., 2:3], 0.0, 1.0))
    return light.horizon + (light.zenith - light.horizon) * up


def _transmittance(
    distance: np.ndarray, rise: np.ndarray, height: float, light: Lighting
) -> np.ndarray:
    """e^{−τ} of exponential height fog over `distance` m of rays climbing `rise` m per metre
    from a camera at `height` m."""
    if light.fog_density <= 0.0:
        return np.ones_like(distance)
    through = np.maximum(distance - light.fog_distance, 0.0)
    start = height + rise * np.minimum(distance, light.fog_distance)
    b = light.fog_falloff
    x = b * rise * through
    small = np.abs(x) < 1e-6
    mean = np.where(small, 1.0, (1.0 - el.exp_v(-x)) / np.where(small, 1.0, x))
    tau = light.fog_density * el.exp_v(-b * start) * mean * through
    return el.exp_v(-tau)


def shade(
    seen: np.ndarray,
    depth: np.ndarray,
    rays: np.ndarray,
    ray_lengths: np.ndarray,
    camera_height: float,
    albedo: np.ndarray,
    normals: np.ndarray,
    glowing: np.ndarray,
    light: Lighting,
) -> np.ndarray:
    """(H, W, 4) BGRA of one frame: `seen` (H, W) where a surface is seen and `depth` its
    planar depth, `rays` (H, W, 3) the unit world rays, `ray_lengths` (H, W) the camera-frame
    rays' lengths (the distance along a ray is the planar depth times it); `albedo` (S, 3)
    sRGB, `normals` (S, 3) and `glowing` (S,) of the S seen pixels, in row order."""
    colour = _sky(rays, light)
    distance = np.full(seen.shape, FAR_SKY)
    if seen.any():
        ray = rays[seen]
        n = normals.astype(np.float64)
        facing = (n * ray).sum(-1, keepdims=True)
        n = np.where(facing > 0.0, -n, n)
        lambert = np.maximum(n @ light.sun, 0.0)[:, None]
        base = LINEAR_OF_SRGB[albedo]
        lit = base * (light.ambient + light.sun_strength * lambert)
        colour[seen] = np.where(glowing[:, None], base, lit)
        distance[seen] = depth[seen] * ray_lengths[seen]
    keep = _transmittance(distance, rays[..., 2], camera_height, light)[..., None]
    colour = colour * keep + light.horizon * (1.0 - keep)
    code = srgb_of_linear(colour)
    return to_bgra(code[..., 0], code[..., 1], code[..., 2])
