"""CarlaRecorderWeather: the weather's fourteen floats, in write order (no actor id)."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec


@dataclass(slots=True)
class WeatherRecord:
    cloudiness: float
    precipitation: float
    precipitation_deposits: float
    wind_intensity: float
    sun_azimuth_angle: float
    sun_altitude_angle: float
    fog_density: float
    fog_distance: float
    fog_falloff: float
    wetness: float
    scattering_intensity: float
    mie_scattering_scale: float
    rayleigh_scattering_scale: float
    dust_storm: float


WEATHER = FixedLayout(
    WeatherRecord, [(name, "f", 1) for name in WeatherRecord.__dataclass_fields__]
)
WEATHER_CODEC = PacketCodec.fixed(PacketId.Weather, "weather", WEATHER)
