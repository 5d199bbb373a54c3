"""An agent's sensors: checked as the leaderboard's agent_wrapper checks them, attached to the
ego with the attributes the leaderboard sets, and read into `input_data = {id: (frame,
data)}` in the leaderboard's shapes (its sensor_interface).

Shapes: a camera (H, W, 4) uint8 BGRA; a LiDAR (N, 4) float32 x, y, z, intensity; a radar
(N, 4) float32 depth, altitude, azimuth, velocity (CARLA's columns flipped); GNSS a float64
array [lat, lon, alt]; IMU a float64 array [acc x, y, z, gyro x, y, z, compass];
speedometer {'speed': m/s}; OpenDRIVE map {'opendrive': text}. The attributes are
leaderboard 2.0's (the camera's width, height and fov; a 64-channel LiDAR of 85 m at 10 Hz
and 600,000 points a second; the radar's horizontal_fov and vertical_fov, 1500 points a
second, 100 m), with leaderboard 1.0's `fov` accepted for a radar.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from runner.agents.base import Track
from runner.errors import AgentError
from world.geometry import Location, Rotation, Transform
from world.sensors.pseudo import OpenDriveMapReader, SpeedometerReader

__all__ = ["PSEUDO_SENSORS", "WORLD_SENSORS", "AgentSensors", "validate_sensor_configuration"]

MAX_ALLOWED_RADIUS_SENSOR = 3.0  # m from the car's origin
QUALIFIER_SENSORS_LIMITS = {
    "sensor.camera.rgb": 4,
    "sensor.lidar.ray_cast": 1,
    "sensor.other.radar": 2,
    "sensor.other.gnss": 1,
    "sensor.other.imu": 1,
    "sensor.opendrive_map": 1,
    "sensor.speedometer": 1,
}
SENSORS_LIMITS = {
    "sensor.camera.rgb": 8,
    "sensor.lidar.ray_cast": 2,
    "sensor.other.radar": 4,
    "sensor.other.gnss": 2,
    "sensor.other.imu": 2,
    "sensor.opendrive_map": 2,
    "sensor.speedometer": 2,
}
ALLOWED_SENSORS = tuple(SENSORS_LIMITS)
PSEUDO_SENSORS = ("sensor.speedometer", "sensor.opendrive_map")
WORLD_SENSORS = tuple(kind for kind in ALLOWED_SENSORS if kind not in PSEUDO_SENSORS)

GNSS_NOISE = {f"noise_{a}_stddev": "0.000005" for a in ("alt", "lat", "lon")} | {
    f"noise_{a}_bias": "0.0" for a in ("alt", "lat", "lon")
}
IMU_NOISE = {
    "noise_accel_stddev_x": "0.001",
    "noise_accel_stddev_y": "0.001",
    "noise_accel_stddev_z": "0.015",
    "noise_gyro_stddev_x": "0.001",
    "noise_gyro_stddev_y": "0.001",
    "noise_gyro_stddev_z": "0.001",
}
LIDAR_SETTINGS = {
    "range": "85",
    "rotation_frequency": "10",
    "channels": "64",
    "upper_fov": "10",
    "lower_fov": "-30",
    "points_per_second": "600000",
    "atmosphere_attenuation_rate": "0.004",
    "dropoff_general_rate": "0.45",
    "dropoff_intensity_limit": "0.8",
    "dropoff_zero_intensity": "0.4",
}


def _attributes(kind: str, spec: dict) -> dict[str, str]:
    """The attributes the leaderboard sets on a sensor of type `kind` described by `spec`."""
    if kind == "sensor.camera.rgb":
        lacking = [key for key in ("width", "height", "fov") if key not in spec]
        if lacking:
            raise AgentError(
                f"sensors(): camera {spec['id']!r} needs {', '.join(lacking)} "
                "(the leaderboard's camera keys: width, height, fov)"
            )
        return {
            "image_size_x": str(spec["width"]),
            "image_size_y": str(spec["height"]),
            "fov": str(spec["fov"]),
        }
    if kind == "sensor.lidar.ray_cast":
        return dict(LIDAR_SETTINGS)
    if kind == "sensor.other.radar":
        if "horizontal_fov" not in spec and "fov" not in spec:
            raise AgentError(
                f"sensors(): radar {spec['id']!r} needs horizontal_fov and vertical_fov "
                "(leaderboard 2.0) or fov (leaderboard 1.0)"
            )
        return {
            "horizontal_fov": str(spec.get("horizontal_fov", spec.get("fov"))),
            "vertical_fov": str(spec.get("vertical_fov", spec.get("fov"))),
            "points_per_second": "1500",
            "range": "100",
        }
    return dict(GNSS_NOISE if kind == "sensor.other.gnss" else IMU_NOISE)


def _array(kind: str, data: Any) -> np.ndarray:
    """The leaderboard's array of one measurement (a copy, as its sensor_interface makes)."""
    if kind == "sensor.camera.rgb":
        raw = np.frombuffer(data.raw_data, dtype=np.uint8)
        return raw.reshape(data.height, data.width, 4).copy()
    if kind == "sensor.lidar.ray_cast":
        return np.frombuffer(data.raw_data, dtype=np.float32).reshape(-1, 4).copy()
    if kind == "sensor.other.radar":
        return np.flip(np.frombuffer(data.raw_data, dtype=np.float32).reshape(-1, 4), 1).copy()
    if kind == "sensor.other.gnss":
        return np.array([data.latitude, data.longitude, data.altitude], dtype=np.float64)
    a, g = data.accelerometer, data.gyroscope
    return np.array([a.x, a.y, a.z, g.x, g.y, g.z, data.compass], dtype=np.float64)


def validate_sensor_configuration(sensors: list[dict], agent_track: Track) -> None:
    """The leaderboard's checks: unique ids, allowed types (no OpenDRIVE map on the SENSORS
    track), within 3 m of the car, and the per-type limits (the qualifier tracks get the larger
    limits and the others the smaller, exactly as the leaderboard's agent_wrapper assigns them)."""
    counts: dict[str, int] = {}
    ids: list[Any] = []
    for sensor in sensors:
        if not isinstance(sensor, dict) or "id" not in sensor or "type" not in sensor:
            raise AgentError(f"sensors(): each sensor needs 'type' and 'id', found {sensor!r}")
        if sensor["id"] in ids:
            raise AgentError(f"Duplicated sensor tag [{sensor['id']}]")
        ids.append(sensor["id"])
        kind = sensor["type"]
        if agent_track == Track.SENSORS and kind.startswith("sensor.opendrive_map"):
            raise AgentError(
                f"Illegal sensor 'sensor.opendrive_map' used for Track [{agent_track}]!"
            )
        if kind not in ALLOWED_SENSORS:
            raise AgentError(f"Illegal sensor '{kind}' used for Track [{agent_track}]!")
        if all(k in sensor for k in ("x", "y", "z")):
            radius = math.sqrt(sensor["x"] ** 2 + sensor["y"] ** 2 + sensor["z"] ** 2)
            if radius > MAX_ALLOWED_RADIUS_SENSOR:
                raise AgentError(
                    f"Illegal sensor extrinsics used for sensor '{sensor['id']}'. "
                    f"Max allowed radius is {MAX_ALLOWED_RADIUS_SENSOR}m"
                )
        counts[kind] = counts.get(kind, 0) + 1
    qualifier = agent_track in (Track.SENSORS_QUALIFIER, Track.MAP_QUALIFIER)
    limits = SENSORS_LIMITS if qualifier else QUALIFIER_SENSORS_LIMITS
    for kind, most in limits.items():
        if counts.get(kind, 0) > most:
            raise AgentError(
                f"Too many {kind} used! Maximum number allowed is {most}, "
                f"but {counts[kind]} were requested."
            )


class AgentSensors:
    """The agent's sensors on the ego: world sensors that listen, pseudo-sensors read per step."""

    def __init__(self, world: Any, ego: Any, specs: list[dict], seed: int) -> None:
        self.world = world
        self._latest: dict[Any, tuple[int, Any]] = {}
        self._pseudo: list[tuple[Any, Any]] = []
        self._actors: list[Any] = []
        library = world.get_blueprint_library()
        for n, spec in enumerate(specs):
            kind, tag = spec["type"], spec["id"]
            if kind == "sensor.speedometer":
                self._pseudo.append((tag, SpeedometerReader(ego)))
                continue
            if kind == "sensor.opendrive_map":
                self._pseudo.append((tag, _CachedMap(world)))
                continue
            bp = library.find(kind).copy()
            for key, value in _attributes(kind, spec).items():
                bp.set_attribute(key, value)
            if bp.has_attribute("noise_seed"):
                bp.set_attribute("noise_seed", str(seed + n))
            location = Location(spec.get("x", 0.0), spec.get("y", 0.0), spec.get("z", 0.0))
            rotation = Rotation(spec.get("pitch", 0.0), spec.get("yaw", 0.0), spec.get("roll", 0.0))
            if kind == "sensor.other.gnss":
                rotation = Rotation()
            actor = world.spawn_actor(bp, Transform(location, rotation), ego)
            actor.listen(self._callback(tag, kind))
            self._actors.append(actor)

    def _callback(self, tag: Any, kind: str):
        def store(data: Any) -> None:
            self._latest[tag] = (data.frame, _array(kind, data))

        return store

    def input_data(self, frame: int) -> dict:
        """{id: (frame, data)} for this step: the last measurement of each world sensor and a
        fresh reading of each pseudo-sensor."""
        out = dict(self._latest)
        for tag, reader in self._pseudo:
            out[tag] = (frame, reader.read())
        return out

    def destroy(self) -> None:
        for actor in self._actors:
            if actor.is_alive:
                actor.stop()
                actor.destroy()
        self._actors = []


class _CachedMap(OpenDriveMapReader):
    """The OpenDRIVE text, made once per route (it does not change)."""

    def __init__(self, world: Any) -> None:
        super().__init__(world)
        self._text: dict[str, str] | None = None

    def read(self) -> dict[str, str]:
        if self._text is None:
            self._text = super().read()
        return dict(self._text)
