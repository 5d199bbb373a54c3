"""The LiDARs' and the radar's data classes, laid out byte for byte as CARLA's.

* LidarMeasurement (sensor.lidar.ray_cast): float32 x, y, z, intensity per point, in the
  sensor's frame (metres, x forward, y right, z up: CARLA's left-handed frame, as LibCarla
  sends it), channel after channel; `get_point_count(channel)` says how many each channel has.
* SemanticLidarMeasurement (sensor.lidar.ray_cast_semantic): packed records of float32 x, y,
  z, cos_inc_angle, uint32 object_idx, uint32 object_tag (24 bytes).
* RadarMeasurement (sensor.other.radar): float32 velocity, azimuth, altitude, depth per
  detection (the leaderboard flips the columns to depth, altitude, azimuth, velocity).

`raw_data` gives the records' bytes, so `np.frombuffer(m.raw_data, dtype=np.float32)` works
as in CARLA's examples; `save_to_disk` writes an ASCII PLY as LibCarla's PointCloudIO does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from world.geometry import Location
from world.sensors.data import SensorData

__all__ = [
    "LIDAR_POINT",
    "RADAR_DETECTION",
    "SEMANTIC_LIDAR_POINT",
    "LidarDetection",
    "LidarMeasurement",
    "RadarDetection",
    "RadarMeasurement",
    "SemanticLidarDetection",
    "SemanticLidarMeasurement",
]

LIDAR_POINT = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("intensity", "<f4")])
SEMANTIC_LIDAR_POINT = np.dtype(
    [
        ("x", "<f4"),
        ("y", "<f4"),
        ("z", "<f4"),
        ("cos_inc_angle", "<f4"),
        ("object_idx", "<u4"),
        ("object_tag", "<u4"),
    ]
)
RADAR_DETECTION = np.dtype(
    [("velocity", "<f4"), ("azimuth", "<f4"), ("altitude", "<f4"), ("depth", "<f4")]
)


@dataclass(slots=True)
class LidarDetection:
    """One point of a LidarMeasurement: where (sensor frame, m) and its intensity."""

    point: Location = field(default_factory=Location)
    intensity: float = 0.0

    def __str__(self) -> str:
        p = self.point
        return f"LidarDetection(x={p.x:f}, y={p.y:f}, z={p.z:f}, intensity={self.intensity:f})"


@dataclass(slots=True)
class SemanticLidarDetection:
    """One point of a SemanticLidarMeasurement: where, the cosine of the angle between the
    ray and the surface's normal, the actor id it hit (0 for the map) and its semantic tag."""

    point: Location = field(default_factory=Location)
    cos_inc_angle: float = 0.0
    object_idx: int = 0
    object_tag: int = 0

    def __str__(self) -> str:
        p = self.point
        return (
            f"SemanticLidarDetection(x={p.x:f}, y={p.y:f}, z={p.z:f}, "
            f"cos_inc_angle={self.cos_inc_angle:f}, object_idx={self.object_idx}, "
            f"object_tag={self.object_tag})"
        )


@dataclass(slots=True)
class RadarDetection:
    """One radar detection: velocity toward the sensor (m/s, approaching negative), azimuth
    and altitude of the ray (rad) and the distance to what it hit (m)."""

    velocity: float = 0.0
    azimuth: float = 0.0
    altitude: float = 0.0
    depth: float = 0.0

    def __str__(self) -> str:
        return (
            f"RadarDetection(velocity={self.velocity:f}, azimuth={self.azimuth:f}, "
            f"altitude={self.altitude:f}, depth={self.depth:f})"
        )


@dataclass(slots=True)
class _Records(SensorData):
    """A measurement made of fixed-size records in one buffer."""

    buffer: bytearray = field(default_factory=bytearray, repr=False)

    _record = LIDAR_POINT

    @property
    def raw_data(self) -> memoryview:
        return memoryview(self.buffer).toreadonly()

    def records(self) -> np.ndarray:
        """The records as a structured array (a view of the buffer)."""
        return np.frombuffer(self.buffer, self._record)

    def __len__(self) -> int:
        return len(self.buffer) // self._record.itemsize

    def _row(self, pos: int) -> np.void:
        if not 0 <= int(pos) < len(self):
            raise IndexError(f"index {pos} out of range (a measurement of {len(self)})")
        return self.records()[int(pos)]

    def _write(self, pos: int, values: tuple) -> None:
        if not 0 <= int(pos) < len(self):
            raise IndexError(f"index {pos} out of range (a measurement of {len(self)})")
        size = self._record.itemsize
        self.buffer[size * pos : size * (pos + 1)] = np.array([values], self._record).tobytes()

    def __iter__(self) -> Iterator:
        return (self[i] for i in range(len(self)))


@dataclass(slots=True)
class _Sweep(_Records):
    """A LiDAR's measurement: the channels, the angle the sweep reached, points per channel."""

    channels: int = 0
    horizontal_angle: float = 0.0  # radians
    point_counts: tuple[int, ...] = ()

    def get_point_count(self, channel: int) -> int:
        """How many of the points channel `channel` gave (points are sorted by channel)."""
        if not 0 <= int(channel) < self.channels:
            raise IndexError(f"channel {channel} out of range (a LiDAR of {self.channels})")
        return self.point_counts[int(channel)]

    def __str__(self) -> str:
        return f"{self._head()}, number_of_points={len(self)})"

    def _ply_header(self) -> str:
        raise NotImplementedError

    def _ply_row(self, row: np.void) -> str:
        raise NotImplementedError

    def save_to_disk(self, path: str) -> str:
        """Writes the points as an ASCII PLY (CARLA's PointCloudIO; ``.ply`` added when the
        path has no extension); returns the path written."""
        target = Path(path)
        if not target.suffix:
            target = target.with_suffix(".ply")
        if target.parent != Path(""):
            target.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            "ply",
            "format ascii 1.0",
            f"element vertex {len(self)}",
            self._ply_header(),
            "end_header",
        ]
        lines += [self._ply_row(row) for row in self.records()]
        target.write_text("\n".join(lines) + "\n")
        return str(target)


@dataclass(slots=True)
class LidarMeasurement(_Sweep):
    """carla.LidarMeasurement: sensor.lidar.ray_cast's points."""

    _record = LIDAR_POINT

    def __getitem__(self, pos: int) -> LidarDetection:
        r = self._row(pos)
        return LidarDetection(
            Location(float(r["x"]), float(r["y"]), float(r["z"])), float(r["intensity"])
        )

    def __setitem__(self, pos: int, detection: LidarDetection) -> None:
        p = detection.point
        self._write(pos, (p.x, p.y, p.z, detection.intensity))

    def _ply_header(self) -> str:
        return "property float32 x\nproperty float32 y\nproperty float32 z\nproperty float32 I"

    def _ply_row(self, row: np.void) -> str:
        return f"{row['x']:.4f} {row['y']:.4f} {row['z']:.4f} {row['intensity']:.4f}"


@dataclass(slots=True)
class SemanticLidarMeasurement(_Sweep):
    """carla.SemanticLidarMeasurement: sensor.lidar.ray_cast_semantic's points."""

    _record = SEMANTIC_LIDAR_POINT

    def __getitem__(self, pos: int) -> SemanticLidarDetection:
        r = self._row(pos)
        return SemanticLidarDetection(
            Location(float(r["x"]), float(r["y"]), float(r["z"])),
            float(r["cos_inc_angle"]),
            int(r["object_idx"]),
            int(r["object_tag"]),
        )

    def __setitem__(self, pos: int, detection: SemanticLidarDetection) -> None:
        p = detection.point
        values = (p.x, p.y, p.z, detection.cos_inc_angle, detection.object_idx)
        self._write(pos, (*values, detection.object_tag))

    def _ply_header(self) -> str:
        return (
            "property float32 x\nproperty float32 y\nproperty float32 z\n"
            "property float32 CosAngle\nproperty uint32 ObjIdx\nproperty uint32 ObjTag"
        )

    def _ply_row(self, row: np.void) -> str:
        return (
            f"{row['x']:.4f} {row['y']:.4f} {row['z']:.4f} {row['cos_inc_angle']:.4f} "
            f"{row['object_idx']} {row['object_tag']}"
        )


@dataclass(slots=True)
class RadarMeasurement(_Records):
    """carla.RadarMeasurement: the detections of one radar measurement."""

    _record = RADAR_DETECTION

    def get_detection_count(self) -> int:
        return len(self)

    def __getitem__(self, pos: int) -> RadarDetection:
        r = self._row(pos)
        return RadarDetection(
            float(r["velocity"]), float(r["azimuth"]), float(r["altitude"]), float(r["depth"])
        )

    def __setitem__(self, pos: int, detection: RadarDetection) -> None:
        d = detection
        self._write(pos, (d.velocity, d.azimuth, d.altitude, d.depth))

    def __str__(self) -> str:
        return f"{self._head()}, point_count={len(self)})"
