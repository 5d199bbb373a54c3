"""The world's map in ad_map_access: read from its OpenDRIVE text, once per map per process.

ad_map_access holds one map per process. CARLA's RSS sensor gives it the map's
OpenDRIVE text with a 0.2 m overlap margin, every junction a traffic-light
intersection and CARLA's traffic-light type; lockstep does the same. The loaded map
is named by the SHA-256 of its text: a sensor on the same map finds it loaded, a
sensor on another map replaces it (ad_map_access cannot hold two).
"""

from __future__ import annotations

import hashlib

from world.errors import WorldError
from world.sensors.rss.bindings import ad

__all__ = ["ensure_map", "map_key"]

OVERLAP_MARGIN = 0.2  # m, CARLA's RssSensor::Listen

_loaded: list[str] = []  # the key of the map ad_map_access holds, if any


def map_key(opendrive: str) -> str:
    """The name of a map's text: its SHA-256."""
    return hashlib.sha256(opendrive.encode("utf-8")).hexdigest()


def ensure_map(opendrive: str, key: str, map_name: str) -> None:
    """Makes the map of `opendrive` (named `key`) the one ad_map_access holds."""
    if _loaded and _loaded[0] == key:
        return
    lib = ad()
    if _loaded:
        lib.map.access.cleanup()
        _loaded.clear()
    ok = lib.map.access.initFromOpenDriveContent(
        opendrive,
        OVERLAP_MARGIN,
        lib.map.intersection.IntersectionType.TrafficLight,
        lib.map.landmark.TrafficLightType.LEFT_STRAIGHT_RED_YELLOW_GREEN,
    )
    if not ok:
        raise WorldError(f"sensor.other.rss: ad_map_access could not read map {map_name!r}")
    _loaded.append(key)
