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

Fog (fog_density ρ in [0, 100], fog_distance d₀ m, fog_falloff b) thins with height: its
extinction is σ = 0.0005 ρ e^{−0.1 b z} per metre at the camera's height z, and a pixel whose
surface lies d metres along its ray keeps e^{−σ (d − d₀)} of its colour beyond d₀, taking the
rest from the horizon's colour. The sky is fogged as a surface 1000 m away. The linear
colour is made sRGB by the nearest of the 256 codes. One compiled pass does it
(world.sensors.pixel_kernels), with world/elementary.py's exp, so every CPU gives the same
bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from world import elementary as el
from world.actors.vehicle_state import CityObjectLabel
from world.render import StripDrawing
from world.sensors.buffers import records_array
from world.sensors.pinhole import pixel_offsets
from world.sensors.pixel_kernels import SKY_STEPS, shade_view, sky_steps

__all__ = ["LINEAR_OF_SRGB", "Lighting", "Shader", "light_array", "lighting_of"]


def _srgb_table() -> np.ndarray:
    c = np.arange(256) / 255.0
    curve = el.exp_v(2.4 * el.log_v((c + 0.055) / 1.055))
    return np.where(c <= 0.04045, c / 12.92, curve)


LINEAR_OF_SRGB = _srgb_table()  # 256 linear values of the sRGB codes
_MIDPOINTS = (LINEAR_OF_SRGB[1:] + LINEAR_OF_SRGB[:-1]) / 2.0
_ABOVE = np.concatenate([_MIDPOINTS, [np.inf]])  # the midpoint above each code
# the code at each of 8192 + 1 grid points of [0, 1]: finer than the codes' least spacing
# (1 / (255 * 12.92) = 0.0003), so a value is at most one step from its cell's code
_CELLS = np.searchsorted(_MIDPOINTS, np.arange(8193) / 8192.0).astype(np.int64)

FAR_SKY = 1000.0  # m: how far the sky counts for the fog
_FOG_SCALE = 0.0005  # extinction per metre per unit of fog_density
_FOG_HEIGHT_SCALE = 0.1  # per metre per unit of fog_falloff


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


def light_array(light: Lighting, height: float) -> np.ndarray:
    """The Lighting seen from a camera `height` m up, as the kernel's LIGHT_FIELDS."""
    extinction = light.fog_density * el.exp(-light.fog_falloff * height)
    return np.array(
        [
            *light.sun, light.sun_strength, light.ambient, *light.zenith, *light.horizon,
            extinction, light.fog_distance, 0.0, FAR_SKY, float(CityObjectLabel.TrafficLight),
        ]
    )  # fmt: skip


class Shader:
    """An RGB camera's shading, keeping between frames what does not change with them: the
    light on each side of the static scene's triangles (world.sensors.pixel_kernels), worked
    out as pixels first see them, kept while the static scene and the light stay the same."""

    def __init__(self) -> None:
        self._static_key: tuple | None = None  # (the static colours, the light's bytes)
        self._static_code = np.zeros((0, 2), np.int64)
        self._static_scale = np.zeros((0, 2))
        self._sky_key: bytes | None = None  # the light's sky and fog numbers
        self._sky = (np.zeros(SKY_STEPS), np.zeros(SKY_STEPS, np.int64), 0)

    def _sky_steps(self, light: np.ndarray) -> tuple:
        # what the sky's word depends on: zenith, horizon, fog extinction and distance, far_sky
        key = light[5:15].tobytes()
        if key != self._sky_key:
            starts, words, _count = self._sky
            codes = (LINEAR_OF_SRGB, _ABOVE, _CELLS)
            self._sky = (starts, words, sky_steps(light, codes, starts, words))
            self._sky_key = key
        return self._sky

    def _static_memo(
        self, colour: np.ndarray, light: np.ndarray, lit: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        # what a side's light and code depend on: the sun, ambient, horizon, glow tag, lamps
        key = (colour, light[[0, 1, 2, 3, 4, 8, 9, 10, 15]].tobytes(), lit.tobytes())
        held = self._static_key
        if held is None or held[0] is not colour or held[1:] != key[1:]:
            self._static_key = key
            self._static_code = np.zeros((len(colour), 2), np.int64)
            self._static_scale = np.zeros((len(colour), 2))
        return self._static_code, self._static_scale

    def shade(
        self,
        drawing: StripDrawing,
        fov: float,
        axes: np.ndarray,
        height: float,
        columns: tuple,
        lit: np.ndarray,
        light: Lighting,
    ) -> np.ndarray:
        """(H, W, 4) BGRA of one frame (over a bytearray an Image takes as it is): `drawing`
        the camera's view (world.render's StripDrawing, drawn a strip at a time as it is
        shaded), `fov` the camera's, `axes` its forward, right and up as columns, `height` its
        z, `columns` the scene's (static colour, normal, tag, dynamic colour, normal, tag,
        offset), `lit` the lit lamps' colours."""
        h, w = drawing.height, drawing.width
        across, down = pixel_offsets(w, h, fov)
        words = records_array((h, w), np.uint32)  # one BGRA word a pixel
        lamps = np.ascontiguousarray(lit, np.uint8)
        values = light_array(light, height)
        static_memo = self._static_memo(columns[0], values, lamps)
        dynamic = len(columns[3])
        rays = (across, down, np.ascontiguousarray(axes, np.float64))
        full = False  # the drawing's table of triangles was too small: grown, drawn again
        while shade_view(
            drawing.arguments(full),
            rays,
            tuple(columns[0:3]),
            tuple(columns[3:6]),
            columns[6],
            (LINEAR_OF_SRGB, _ABOVE, _CELLS),
            lamps,
            values,
            static_memo,
            (np.zeros((dynamic, 2), np.int64), np.zeros((dynamic, 2))),
            self._sky_steps(values),
            words,
        ):
            full = True
        return words.view(np.uint8).reshape(h, w, 4)
