"""CARLA's WeatherParameters: the fields, their defaults and ranges, and the 23 presets.

Fields, Python defaults and the preset table are those of CARLA 0.9.15
(LibCarla rpc/WeatherParameters.cpp, PythonAPI Weather.cpp); the ranges are the
clamp limits of the UE4 plugin's FWeatherParameters. CARLA stores each field as
a C++ float, so every value here is rounded through float32 when it is set, and
a preset reads back as the float32 of CARLA's literal (0.03 -> 0.0299999993...).

CARLA does not clamp values set through the API (the limits are editor
metadata), and neither does this class; `clamped()` returns a copy in range for
callers that want one. The presets hold -1 where CARLA means "keep the map's
value" (every field of `Default`, the sun azimuth of the others).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from world.errors import WorldError

__all__ = [
    "PRESET_NAMES",
    "WEATHER_RANGES",
    "WeatherParameters",
    "weather_from_config",
    "weather_preset",
]

# Field order of CARLA's struct, its constructor and its printed text.
_FIELDS = (
    "cloudiness",
    "precipitation",
    "precipitation_deposits",
    "wind_intensity",
    "sun_azimuth_angle",
    "sun_altitude_angle",
    "fog_density",
    "fog_distance",
    "fog_falloff",
    "wetness",
    "scattering_intensity",
    "mie_scattering_scale",
    "rayleigh_scattering_scale",
    "dust_storm",
)

# (low, high) of each field; high None where CARLA gives only a lower limit.
WEATHER_RANGES: dict[str, tuple[float, float | None]] = {
    "cloudiness": (0.0, 100.0),
    "precipitation": (0.0, 100.0),
    "precipitation_deposits": (0.0, 100.0),
    "wind_intensity": (0.0, 100.0),
    "sun_azimuth_angle": (0.0, 360.0),
    "sun_altitude_angle": (-90.0, 90.0),
    "fog_density": (0.0, 100.0),
    "fog_distance": (0.0, None),
    "fog_falloff": (0.0, None),
    "wetness": (0.0, 100.0),
    "scattering_intensity": (0.0, 100.0),
    "mie_scattering_scale": (0.0, 5.0),
    "rayleigh_scattering_scale": (0.0, 2.0),
    "dust_storm": (0.0, 100.0),
}


class WeatherParameters:
    """Cloud, rain, wind, sun, fog, wetness, scattering and dust (CARLA's carla.WeatherParameters).

    Percentages (0-100) except the sun's angles (degrees), fog distance (metres),
    fog falloff and the two scattering scales (plain factors).
    """

    __slots__ = _FIELDS

    def __init__(
        self,
        cloudiness: float = 0.0,
        precipitation: float = 0.0,
        precipitation_deposits: float = 0.0,
        wind_intensity: float = 0.0,
        sun_azimuth_angle: float = 0.0,
        sun_altitude_angle: float = 0.0,
        fog_density: float = 0.0,
        fog_distance: float = 0.0,
        fog_falloff: float = 0.0,
        wetness: float = 0.0,
        scattering_intensity: float = 0.0,
        mie_scattering_scale: float = 0.0,
        rayleigh_scattering_scale: float = 0.0331,
        dust_storm: float = 0.0,
    ) -> None:
        values = locals()
        for name in _FIELDS:
            setattr(self, name, values[name])

    def __setattr__(self, name: str, value: float) -> None:
        try:
            number = float(np.float32(value))
        except (TypeError, ValueError):
            number = math.nan
        if math.isnan(number):
            raise WorldError(f"WeatherParameters.{name}: expected a number, found {value!r}")
        object.__setattr__(self, name, number)

    def values(self) -> tuple[float, ...]:
        """The fields in CARLA's order (the order of the recorder's Weather packet)."""
        return tuple(getattr(self, name) for name in _FIELDS)

    def copy(self) -> WeatherParameters:
        return WeatherParameters(*self.values())

    def clamped(self) -> WeatherParameters:
        """A copy with each field put in CARLA's range (`WEATHER_RANGES`)."""
        out = self.copy()
        for name, (low, high) in WEATHER_RANGES.items():
            value = max(getattr(out, name), low)
            setattr(out, name, value if high is None else min(value, high))
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WeatherParameters):
            return NotImplemented
        return self.values() == other.values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as CARLA's

    def __repr__(self) -> str:
        # std::to_string(float) prints "%f": six decimals.
        text = ", ".join(f"{name}={getattr(self, name):f}" for name in _FIELDS)
        return f"WeatherParameters({text})"

    __str__ = __repr__

    # The presets, set below as class attributes (WeatherParameters.ClearNoon, ...).
    Default: WeatherParameters
    ClearNoon: WeatherParameters
    CloudyNoon: WeatherParameters
    WetNoon: WeatherParameters
    WetCloudyNoon: WeatherParameters
    MidRainyNoon: WeatherParameters
    HardRainNoon: WeatherParameters
    SoftRainNoon: WeatherParameters
    ClearSunset: WeatherParameters
    CloudySunset: WeatherParameters
    WetSunset: WeatherParameters
    WetCloudySunset: WeatherParameters
    MidRainSunset: WeatherParameters
    HardRainSunset: WeatherParameters
    SoftRainSunset: WeatherParameters
    ClearNight: WeatherParameters
    CloudyNight: WeatherParameters
    WetNight: WeatherParameters
    WetCloudyNight: WeatherParameters
    SoftRainNight: WeatherParameters
    MidRainyNight: WeatherParameters
    HardRainNight: WeatherParameters
    DustStorm: WeatherParameters


# CARLA 0.9.15's table, columns in `_FIELDS` order. The last four columns
# (scattering intensity, Mie scale, Rayleigh scale, dust) are 1, 0.03, 0.0331 and 0
# everywhere except DustStorm's dust of 100, so only the first ten are written out.
_SCATTER = (1.0, 0.03, 0.0331)
_PRESET_TABLE: dict[str, tuple[float, ...]] = {
    "Default": (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
    "ClearNoon": (5, 0, 0, 10, -1, 45, 2, 0.75, 0.1, 0),
    "CloudyNoon": (60, 0, 0, 10, -1, 45, 3, 0.75, 0.1, 0),
    "WetNoon": (5, 0, 50, 10, -1, 45, 3, 0.75, 0.1, 0),
    "WetCloudyNoon": (60, 0, 50, 10, -1, 45, 3, 0.75, 0.1, 0),
    "MidRainyNoon": (60, 60, 60, 60, -1, 45, 3, 0.75, 0.1, 0),
    "HardRainNoon": (100, 100, 90, 100, -1, 45, 7, 0.75, 0.1, 0),
    "SoftRainNoon": (20, 30, 50, 30, -1, 45, 3, 0.75, 0.1, 0),
    "ClearSunset": (5, 0, 0, 10, -1, 15, 2, 0.75, 0.1, 0),
    "CloudySunset": (60, 0, 0, 10, -1, 15, 3, 0.75, 0.1, 0),
    "WetSunset": (5, 0, 50, 10, -1, 15, 2, 0.75, 0.1, 0),
    "WetCloudySunset": (60, 0, 50, 10, -1, 15, 2, 0.75, 0.1, 0),
    "MidRainSunset": (60, 60, 60, 60, -1, 15, 3, 0.75, 0.1, 0),
    "HardRainSunset": (100, 100, 90, 100, -1, 15, 7, 0.75, 0.1, 0),
    "SoftRainSunset": (20, 30, 50, 30, -1, 15, 2, 0.75, 0.1, 0),
    "ClearNight": (5, 0, 0, 10, -1, -90, 60, 75, 1, 0),
    "CloudyNight": (60, 0, 0, 10, -1, -90, 60, 0.75, 0.1, 0),
    "WetNight": (5, 0, 50, 10, -1, -90, 60, 75, 1, 60),
    "WetCloudyNight": (60, 0, 50, 10, -1, -90, 60, 0.75, 0.1, 60),
    "SoftRainNight": (60, 30, 50, 30, -1, -90, 60, 0.75, 0.1, 60),
    "MidRainyNight": (80, 60, 60, 60, -1, -90, 60, 0.75, 0.1, 80),
    "HardRainNight": (100, 100, 90, 100, -1, -90, 100, 0.75, 0.1, 100),
    "DustStorm": (100, 0, 0, 100, -1, 45, 2, 0.75, 0.1, 0),
}
_DUST = {"DustStorm": 100.0}

PRESET_NAMES: tuple[str, ...] = tuple(_PRESET_TABLE)

for _name, _row in _PRESET_TABLE.items():
    setattr(WeatherParameters, _name, WeatherParameters(*_row, *_SCATTER, _DUST.get(_name, 0.0)))
del _name, _row


def weather_preset(name: str) -> WeatherParameters:
    """A fresh copy of CARLA's preset `name` (e.g. "ClearNoon"); WorldError if unknown."""
    if name not in _PRESET_TABLE:
        raise WorldError(
            f"unknown weather preset {name!r}: expected one of {', '.join(PRESET_NAMES)}"
        )
    return getattr(WeatherParameters, name).copy()


def weather_from_config(
    value: str | Mapping[str, float], where: str = "weather"
) -> WeatherParameters:
    """A preset by name, or WeatherParameters from a mapping of field names to numbers.

    A mapping starts from CARLA's Python defaults and may name a `preset` to start
    from instead. `where` names the place in the config for error messages.
    """
    if isinstance(value, str):
        try:
            return weather_preset(value)
        except WorldError as err:
            raise WorldError(f"{where}: {err}") from None
    if not isinstance(value, Mapping):
        raise WorldError(f"{where}: expected a preset name or a mapping of fields, found {value!r}")
    fields = dict(value)
    weather = weather_from_config(fields.pop("preset"), where) if "preset" in fields else None
    weather = WeatherParameters() if weather is None else weather
    for name, number in fields.items():
        if name not in _FIELDS:
            raise WorldError(
                f"{where}.{name}: unknown weather field; expected one of {', '.join(_FIELDS)}"
            )
        try:
            setattr(weather, name, number)
        except WorldError as err:
            raise WorldError(f"{where}.{name}: {err}") from None
    return weather
