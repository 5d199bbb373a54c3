"""sensor.other.gnss: the sensor's latitude, longitude and altitude, with CARLA's noise model.

The position is the map's geolocation of the sensor's location (CARLA 0.9.x:
a Mercator offset from the geoReference's lat_0/lon_0, Map.transform_to_geolocation).
Each measurement adds the bias and a normal draw of the standard deviation, per
axis, in degrees for latitude and longitude and metres for altitude. The draws
come from the sensor's own generator seeded by `noise_seed`, in the order
latitude, longitude, altitude, every measurement, listening or not, so a run's
noise does not depend on when a callback was set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from world.sensors.base import SensorBehaviour, SensorContext, attribute_float
from world.sensors.data import GnssMeasurement

__all__ = ["GnssSensor"]


class GnssSensor(SensorBehaviour):
    """A GNSS receiver on its parent."""

    def __init__(self, sensor: Any, attributes: Mapping[str, str]) -> None:
        super().__init__(sensor, attributes)
        self.bias = np.array(
            [
                attribute_float(attributes, f"noise_{axis}_bias", 0.0)
                for axis in ("lat", "lon", "alt")
            ]
        )
        self.stddev = np.array(
            [
                attribute_float(attributes, f"noise_{axis}_stddev", 0.0)
                for axis in ("lat", "lon", "alt")
            ]
        )
        seed = int(attribute_float(attributes, "noise_seed", 0.0))
        self._rng = np.random.Generator(np.random.PCG64(seed))

    def measure(self, ctx: SensorContext) -> list[GnssMeasurement]:
        transform = self.sensor.get_transform()
        geo = ctx.world.get_map().transform_to_geolocation(transform.location)
        noise = self._rng.normal(0.0, 1.0, size=3) * self.stddev + self.bias
        return [
            GnssMeasurement(
                ctx.frame,
                ctx.timestamp,
                transform,
                latitude=geo.latitude + float(noise[0]),
                longitude=geo.longitude + float(noise[1]),
                altitude=geo.altitude + float(noise[2]),
            )
        ]
