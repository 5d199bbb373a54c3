"""Each sensor's measurements in CARLA's serialisation, on the sensor's own stream.

When a client listens to a sensor (it subscribes to the sensor's stream), the server
listens to lockstep's sensor of that actor; every measurement is written as CARLA's
sensor header (type, frame, timestamp, the sensor's transform) and the data as CARLA's
serializer lays it out (LibCarla sensor/s11n): msgpack for the events and the GNSS and IMU
readings; for cameras a 12-byte header (width, height, fov) and the pixels (BGRA; two
float32 for optical flow; packed 13-byte events for DVS); for LiDARs the sweep's angle, the
channel count and the points per channel, then the points; for radar the detections. The
header's type (which the client reads the data by) follows the sensor's blueprint. A lane
invasion sensor is the client's own in CARLA: it never asks for a stream.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from runner.serve import shapes
from runner.serve.stream import SENSOR_TYPES, sensor_header
from runner.serve.wire import pack
from world import LockstepError
from world.sensors.data import (
    CollisionEvent,
    GnssMeasurement,
    IMUMeasurement,
    ObstacleDetectionEvent,
)
from world.sensors.dvs_events import DVSEventArray
from world.sensors.images import Image, OpticalFlowImage
from world.sensors.point_clouds import (
    LidarMeasurement,
    RadarMeasurement,
    SemanticLidarMeasurement,
)

__all__ = ["SENSOR_KINDS", "serialise", "start_listening"]

_NO_ACTOR = [0, 0, [0, "", []], [[0.0] * 3, [0.0] * 3, [0.0] * 3], b"", b""]


# each sensor blueprint's kind: the index CARLA's client reads the data by
SENSOR_KINDS = {
    "sensor.other.collision": "collision",
    "sensor.other.obstacle": "obstacle",
    "sensor.other.gnss": "gnss",
    "sensor.other.imu": "imu",
    "sensor.other.radar": "radar",
    "sensor.lidar.ray_cast": "lidar",
    "sensor.lidar.ray_cast_semantic": "semantic_lidar",
    "sensor.camera.rgb": "rgb",
    "sensor.camera.depth": "depth",
    "sensor.camera.normals": "normals",
    "sensor.camera.semantic_segmentation": "semantic_segmentation",
    "sensor.camera.instance_segmentation": "instance_segmentation",
    "sensor.camera.optical_flow": "optical_flow",
    "sensor.camera.dvs": "dvs",
}


def start_listening(session: Any, sensor: Any, stream_id: int) -> bool:
    """Listens to lockstep's `sensor` and publishes each measurement on `stream_id`; False
    (said in one line) when lockstep's sensor gives no data or the stream has no form."""
    kind = SENSOR_KINDS.get(sensor.type_id)
    if kind is None:
        session.log(f"{sensor.type_id} (actor {sensor.id}): CARLA's client reads no stream of it")
        return False

    def deliver(data: Any) -> None:
        payload = serialise(data, kind, lambda actor: _actor_record(session, actor))
        if payload is not None:
            session.streams.publish(stream_id, payload)
        else:
            session.say_once(
                f"no stream form {sensor.id}",
                f"{sensor.type_id} (actor {sensor.id}): {type(data).__name__} has no stream form",
            )

    try:
        sensor.listen(deliver)
    except LockstepError as exc:
        session.log(f"{sensor.type_id} (actor {sensor.id}) sends nothing: {exc}")
        return False
    return True


def _actor_record(session: Any, actor: Any) -> list:
    if actor is None or not actor.is_alive:
        return _NO_ACTOR
    return session.rpc_actor(actor)


def serialise(data: Any, kind: str, record: Callable[[Any], list]) -> bytes | None:
    """CARLA's message of one lockstep measurement of a sensor of `kind` (the header
    included), or None for data the stream does not carry."""
    body = _body(data, record)
    if body is None:
        return None
    return sensor_header(SENSOR_TYPES[kind], data.frame, data.timestamp, data.transform) + body


_IMAGE = struct.Struct("<IIf")  # width, height, horizontal fov (degrees)
_SWEEP = struct.Struct("<fI")  # the angle the sweep reached (radians), channels


def _body(data: Any, record: Callable[[Any], list]) -> bytes | None:
    if isinstance(data, CollisionEvent):
        impulse = shapes.vector_out(data.normal_impulse)
        return pack([record(data.actor), record(data.other_actor), impulse])
    if isinstance(data, ObstacleDetectionEvent):
        return pack([record(data.actor), record(data.other_actor), float(data.distance)])
    if isinstance(data, GnssMeasurement):
        return pack([float(data.latitude), float(data.longitude), float(data.altitude)])
    if isinstance(data, IMUMeasurement):
        accelerometer, gyroscope = data.accelerometer, data.gyroscope
        compass = float(data.compass)
        return pack([shapes.vector_out(accelerometer), shapes.vector_out(gyroscope), compass])
    if isinstance(data, Image | OpticalFlowImage | DVSEventArray):
        # CARLA's image (and DVS) header, then BGRA pixels, float32 flow pairs or events
        return _IMAGE.pack(data.width, data.height, data.fov) + bytes(data.buffer)
    if isinstance(data, LidarMeasurement | SemanticLidarMeasurement):
        counts = struct.pack(f"<{data.channels}I", *data.point_counts)
        return _SWEEP.pack(data.horizontal_angle, data.channels) + counts + bytes(data.buffer)
    if isinstance(data, RadarMeasurement):
        return bytes(data.buffer)
    return None
