"""Sensors that need no rendering: one module per sensor, and the world's list of them."""

from world.sensors.base import SensorBehaviour, SensorContext
from world.sensors.registry import SENSOR_TYPES, SensorSystem

__all__ = ["SENSOR_TYPES", "SensorBehaviour", "SensorContext", "SensorSystem"]
