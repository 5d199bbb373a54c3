"""sensor.other.rss: CARLA's RSS sensor and restrictor on Intel's ad-rss and ad-map-access.

The libraries are an optional extra (`pip install 'lockstep[rss]'`), imported on first need
by bindings.py alone; these names load without them. sensor.py is the sensor's behaviour,
check.py its tick (with matching, route, ego_motion and world_model), restrictor.py
carla.RssRestrictor, data.py the data classes, admap.py the map in ad_map_access.
"""

from world.sensors.rss.data import (
    RssActorConstellationData,
    RssActorConstellationResult,
    RssEgoDynamicsOnRoute,
    RssLogLevel,
    RssResponse,
    RssRoadBoundariesMode,
)
from world.sensors.rss.restrictor import RssRestrictor
from world.sensors.rss.sensor import RssSensorBehaviour

__all__ = [
    "RssActorConstellationData",
    "RssActorConstellationResult",
    "RssEgoDynamicsOnRoute",
    "RssLogLevel",
    "RssResponse",
    "RssRestrictor",
    "RssRoadBoundariesMode",
    "RssSensorBehaviour",
]
