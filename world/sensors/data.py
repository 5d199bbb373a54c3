"""CARLA's sensor data classes for the sensors that need no rendering (carla.SensorData and kin).

Each measurement carries `frame`, `timestamp` (simulation seconds) and the
sensor's `transform` when it was made, as CARLA's do; the printed forms follow
CARLA's PythonAPI (`std::to_string` prints doubles with six decimals).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from world.geometry import Transform, Vector3D

__all__ = [
    "CollisionEvent",
    "GnssMeasurement",
    "IMUMeasurement",
    "LaneInvasionEvent",
    "ObstacleDetectionEvent",
    "SensorData",
]


@dataclass(slots=True)
class SensorData:
    """What every measurement has: the frame, the simulation time and the sensor's transform."""

    frame: int
    timestamp: float
    transform: Transform

    @property
    def frame_number(self) -> int:
        """CARLA's deprecated name of `frame`, still bound."""
        return self.frame

    def _head(self) -> str:
        return f"{type(self).__name__}(frame={self.frame}, timestamp={self.timestamp:f}"


@dataclass(slots=True)
class CollisionEvent(SensorData):
    """sensor.other.collision: the parent (`actor`) touched `other_actor` this tick."""

    actor: Any = None
    other_actor: Any = None
    normal_impulse: Vector3D = field(default_factory=Vector3D)

    def __str__(self) -> str:
        return f"{self._head()}, other_actor={self.other_actor})"


@dataclass(slots=True)
class LaneInvasionEvent(SensorData):
    """sensor.other.lane_invasion: the lane markings the parent crossed since the last tick."""

    actor: Any = None
    crossed_lane_markings: list = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self._head()})"


@dataclass(slots=True)
class ObstacleDetectionEvent(SensorData):
    """sensor.other.obstacle: the first actor ahead within the swept box, and its distance (m)."""

    actor: Any = None
    other_actor: Any = None
    distance: float = 0.0

    def __str__(self) -> str:
        return f"{self._head()}, other_actor={self.other_actor}, distance={self.distance:f})"


@dataclass(slots=True)
class GnssMeasurement(SensorData):
    """sensor.other.gnss: latitude and longitude in degrees, altitude in metres."""

    latitude: float = 0.0
    longitude: float = 0.0
    altitude: float = 0.0

    def __str__(self) -> str:
        return (
            f"{self._head()}, lat={self.latitude:f}, lon={self.longitude:f}, alt={self.altitude:f})"
        )


@dataclass(slots=True)
class IMUMeasurement(SensorData):
    """sensor.other.imu: acceleration (m/s², gravity included), angular velocity (rad/s), compass.

    The compass is the heading from north, in radians in [0, 2π); CARLA's north
    is the -y direction of its world.
    """

    accelerometer: Vector3D = field(default_factory=Vector3D)
    gyroscope: Vector3D = field(default_factory=Vector3D)
    compass: float = 0.0

    def __str__(self) -> str:
        a, g = self.accelerometer, self.gyroscope
        return (
            f"{self._head()}, accelerometer=Vector3D(x={a.x:f}, y={a.y:f}, z={a.z:f}), "
            f"gyroscope=Vector3D(x={g.x:f}, y={g.y:f}, z={g.z:f}), compass={self.compass:f})"
        )
