"""The world's sensors by actor id: which behaviour each blueprint gets, stepped in id order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from world.sensors.base import SensorBehaviour, SensorContext
from world.sensors.cameras import (
    DepthCamera,
    InstanceSegmentationCamera,
    NormalsCamera,
    RGBCamera,
    SemanticSegmentationCamera,
)
from world.sensors.collision import CollisionSensor
from world.sensors.dvs import DVSCamera
from world.sensors.gnss import GnssSensor
from world.sensors.imu import IMUSensor
from world.sensors.lane_invasion import LaneInvasionSensor
from world.sensors.lidar import RayCastLidar, RayCastSemanticLidar
from world.sensors.obstacle import ObstacleSensor
from world.sensors.optical_flow import OpticalFlowCamera
from world.sensors.radar import Radar
from world.sensors.rss.sensor import RssSensorBehaviour

__all__ = ["SENSOR_TYPES", "SensorSystem", "check_available"]

SENSOR_TYPES: dict[str, type[SensorBehaviour]] = {
    "sensor.other.collision": CollisionSensor,
    "sensor.other.gnss": GnssSensor,
    "sensor.other.imu": IMUSensor,
    "sensor.other.lane_invasion": LaneInvasionSensor,
    "sensor.other.obstacle": ObstacleSensor,
    "sensor.camera.rgb": RGBCamera,
    "sensor.camera.depth": DepthCamera,
    "sensor.camera.semantic_segmentation": SemanticSegmentationCamera,
    "sensor.camera.instance_segmentation": InstanceSegmentationCamera,
    "sensor.camera.normals": NormalsCamera,
    "sensor.camera.optical_flow": OpticalFlowCamera,
    "sensor.camera.dvs": DVSCamera,
    "sensor.lidar.ray_cast": RayCastLidar,
    "sensor.lidar.ray_cast_semantic": RayCastSemanticLidar,
    "sensor.other.radar": Radar,
    "sensor.other.rss": RssSensorBehaviour,
}


def check_available(type_id: str) -> None:
    """Raises WorldError when `type_id`'s sensor needs an optional library that is missing."""
    kind = SENSOR_TYPES.get(type_id)
    if kind is not None:
        kind.check_available(type_id)


class SensorSystem:
    """Every live sensor's behaviour, keyed by actor id; ticks them in id order."""

    def __init__(self) -> None:
        self._by_id: dict[int, SensorBehaviour] = {}
        self._inert: set[int] = set()  # sensors lockstep has no behaviour for (v2x)
        self._ids: list[int] | None = None  # _by_id's keys, sorted (ids)

    def add(
        self, sensor: Any, type_id: str, attributes: Mapping[str, str]
    ) -> SensorBehaviour | None:
        """Gives a new sensor actor its behaviour; None for a sensor lockstep does not model."""
        kind = SENSOR_TYPES.get(type_id)
        if kind is None:
            self._inert.add(sensor.id)
            return None
        behaviour = kind(sensor, attributes)
        self._by_id[sensor.id] = behaviour
        self._ids = None
        return behaviour

    def ids(self) -> list[int]:
        """The sensors' actor ids, ascending (sorted again only after an add or a remove)."""
        if self._ids is None:
            self._ids = sorted(self._by_id)
        return self._ids

    def has_any(self) -> bool:
        """Whether any sensor has a behaviour to step or forget."""
        return bool(self._by_id)

    def get(self, actor_id: int) -> SensorBehaviour | None:
        return self._by_id.get(actor_id)

    def known(self, actor_id: int) -> bool:
        """Whether the sensor was given its behaviour, or found to have none, already."""
        return actor_id in self._by_id or actor_id in self._inert

    def remove(self, actor_id: int) -> None:
        self._by_id.pop(actor_id, None)
        self._inert.discard(actor_id)
        self._ids = None

    def tick(self, world: Any, frame: int, timestamp: float, delta_seconds: float) -> None:
        """Steps every sensor once, in id order; callbacks run here."""
        if not self._by_id:
            return
        ctx = SensorContext(world, frame, timestamp, delta_seconds)
        for actor_id in self.ids():
            self._by_id[actor_id].tick(ctx)
