"""CARLA 0.9.x's map geolocation: the geoReference origin and the local Mercator offset.

CARLA reads only `+lat_0=` and `+lon_0=` from the header's geoReference string
(42.0, 2.0 unless both are given) and turns a world location into latitude/longitude by adding
the location's metres (x east, -y north) in a Mercator projection scaled at the
origin latitude, on a sphere of radius 6378137 m (LibCarla geom/GeoLocation.cpp).
"""

from __future__ import annotations

import math

import numpy as np

from world import elementary as el
from world.geometry import GeoLocation, Location
from world.map.opendrive.parser import geo_reference_origin

__all__ = ["EARTH_RADIUS", "geo_origin", "geolocations", "to_geolocation"]

EARTH_RADIUS = 6378137.0
DEFAULT_LATITUDE = 42.0
DEFAULT_LONGITUDE = 2.0


def geo_origin(geo_reference: str | None) -> GeoLocation:
    """The map origin from a geoReference string. Unless it gives both lat_0 and lon_0 (not
    NaN), the origin is CARLA's default (42.0, 2.0) for both, as CARLA 0.9.x's
    GeoReferenceParser decides."""
    lat, lon = geo_reference_origin(geo_reference or "")
    if lat is None or lon is None or math.isnan(lat) or math.isnan(lon):
        lat, lon = DEFAULT_LATITUDE, DEFAULT_LONGITUDE
    return GeoLocation(lat, lon, 0.0)


def geolocations(origin: GeoLocation, points: np.ndarray) -> np.ndarray:
    """Latitude, longitude, altitude (N, 3) of CARLA-frame points (N, 3) from `origin`."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    scale = el.cos(math.radians(origin.latitude))
    mx0 = scale * math.radians(origin.longitude) * EARTH_RADIUS
    my0 = scale * EARTH_RADIUS * el.log(el.tan((90.0 + origin.latitude) * math.pi / 360.0))
    mx = mx0 + pts[:, 0]
    my = my0 - pts[:, 1]
    lon = mx * 180.0 / (math.pi * EARTH_RADIUS * scale)
    lat = 360.0 * el.atan_v(el.exp_v(my / (EARTH_RADIUS * scale))) / math.pi - 90.0
    return np.stack([lat, lon, origin.altitude + pts[:, 2]], axis=1)


def to_geolocation(origin: GeoLocation, location: Location) -> GeoLocation:
    """The GeoLocation of one CARLA-frame location (Map.transform_to_geolocation)."""
    lat, lon, alt = geolocations(origin, np.array([[location.x, location.y, location.z]]))[0]
    return GeoLocation(float(lat), float(lon), float(alt))
