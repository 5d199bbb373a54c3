"""Weather presets against CARLA 0.9.15's table (rpc/WeatherParameters.cpp, typed in by hand)."""

import struct

import pytest

from world.errors import WorldError
from world.weather import PRESET_NAMES, WeatherParameters, weather_from_config, weather_preset


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


FIELDS = [
    "cloudiness", "precipitation", "precipitation_deposits", "wind_intensity",
    "sun_azimuth_angle", "sun_altitude_angle", "fog_density", "fog_distance", "fog_falloff",
    "wetness", "scattering_intensity", "mie_scattering_scale", "rayleigh_scattering_scale",
    "dust_storm",
]  # fmt: skip

# Rows copied from CARLA's table, all 14 columns.
CARLA_ROWS = {
    "ClearNoon": (5, 0, 0, 10, -1, 45, 2, 0.75, 0.1, 0, 1, 0.03, 0.0331, 0),
    "HardRainNoon": (100, 100, 90, 100, -1, 45, 7, 0.75, 0.1, 0, 1, 0.03, 0.0331, 0),
    "SoftRainSunset": (20, 30, 50, 30, -1, 15, 2, 0.75, 0.1, 0, 1, 0.03, 0.0331, 0),
    "ClearNight": (5, 0, 0, 10, -1, -90, 60, 75, 1, 0, 1, 0.03, 0.0331, 0),
    "WetNight": (5, 0, 50, 10, -1, -90, 60, 75, 1, 60, 1, 0.03, 0.0331, 0),
    "MidRainyNight": (80, 60, 60, 60, -1, -90, 60, 0.75, 0.1, 80, 1, 0.03, 0.0331, 0),
    "DustStorm": (100, 0, 0, 100, -1, 45, 2, 0.75, 0.1, 0, 1, 0.03, 0.0331, 100),
    "Default": (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1, 0.03, 0.0331, 0),
}


def test_the_23_presets():
    assert len(PRESET_NAMES) == 23
    assert PRESET_NAMES[:3] == ("Default", "ClearNoon", "CloudyNoon")
    assert "MidRainSunset" in PRESET_NAMES and "MidRainyNoon" in PRESET_NAMES
    assert PRESET_NAMES[-1] == "DustStorm"


@pytest.mark.parametrize("name", sorted(CARLA_ROWS))
def test_preset_matches_carla_row(name):
    preset = getattr(WeatherParameters, name)
    for field, expected in zip(FIELDS, CARLA_ROWS[name], strict=True):
        assert getattr(preset, field) == f32(expected), (name, field)


def test_values_are_float32():
    assert WeatherParameters.ClearNoon.mie_scattering_scale == 0.029999999329447746
    w = WeatherParameters(cloudiness=0.1)
    assert w.cloudiness == f32(0.1) != 0.1


def test_python_defaults():
    w = WeatherParameters()
    assert w.values() == (0.0,) * 12 + (f32(0.0331), 0.0)


def test_preset_lookup_copies():
    w = weather_preset("HardRainNight")
    assert w == WeatherParameters.HardRainNight
    w.cloudiness = 3.0
    assert WeatherParameters.HardRainNight.cloudiness == 100.0
    with pytest.raises(WorldError, match="unknown weather preset 'Sunny'"):
        weather_preset("Sunny")


def test_clamped_puts_fields_in_range():
    w = WeatherParameters(
        cloudiness=150, sun_azimuth_angle=-1, sun_altitude_angle=-120, fog_distance=5000,
        mie_scattering_scale=9, rayleigh_scattering_scale=-3,
    )  # fmt: skip
    c = w.clamped()
    assert (c.cloudiness, c.sun_azimuth_angle, c.sun_altitude_angle) == (100.0, 0.0, -90.0)
    assert c.fog_distance == 5000.0  # no upper limit
    assert (c.mie_scattering_scale, c.rayleigh_scattering_scale) == (5.0, 0.0)
    assert w.cloudiness == 150.0  # the original is unchanged


def test_nan_refused():
    with pytest.raises(WorldError, match="fog_density"):
        WeatherParameters(fog_density=float("nan"))
    with pytest.raises(WorldError, match="wetness: expected a number, found 'wet'"):
        WeatherParameters(wetness="wet")


def test_text_like_carla():
    # std::to_string prints six decimals; 0.03 and 0.0331 as float32 print rounded.
    assert str(WeatherParameters.ClearNoon) == (
        "WeatherParameters(cloudiness=5.000000, precipitation=0.000000, "
        "precipitation_deposits=0.000000, wind_intensity=10.000000, "
        "sun_azimuth_angle=-1.000000, sun_altitude_angle=45.000000, fog_density=2.000000, "
        "fog_distance=0.750000, fog_falloff=0.100000, wetness=0.000000, "
        "scattering_intensity=1.000000, mie_scattering_scale=0.030000, "
        "rayleigh_scattering_scale=0.033100, dust_storm=0.000000)"
    )


def test_weather_from_config():
    assert weather_from_config("WetNoon") == WeatherParameters.WetNoon
    w = weather_from_config({"preset": "ClearNoon", "fog_density": 30})
    assert w.fog_density == 30.0 and w.cloudiness == 5.0  # the rest is ClearNoon's
    assert weather_from_config({"cloudiness": 10}).rayleigh_scattering_scale == f32(0.0331)
    with pytest.raises(WorldError, match=r"routes\[0\].weather.rain: unknown weather field"):
        weather_from_config({"rain": 5}, where="routes[0].weather")
    with pytest.raises(WorldError, match=r"weather: unknown weather preset 'Sunny'"):
        weather_from_config("Sunny")
    with pytest.raises(WorldError, match=r"weather.wetness: .*expected a number"):
        weather_from_config({"wetness": "x"})
