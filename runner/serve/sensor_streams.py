"""Each sensor's measurements in CARLA's serialisation, on the sensor's own stream.

When a client listens to a sensor (it subscribes to the sensor's stream), the server
listens to lockstep's sensor of that actor; every measurement is written as CARLA's
sensor header (type, frame, timestamp, the sensor's transform) and the data as CARLA's
serializer lays it out (LibCarla sensor/s11n): msgpack for the events and the GNSS and IMU
readings. A lane invasion sensor is the client's own in CARLA: it never asks for a stream.
"""

from __future__ import annotations

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

__all__ = ["serialise", "start_listening"]

_NO_ACTOR = [0, 0, [0, "", []], [[0.0] * 3, [0.0] * 3, [0.0] * 3], b"", b""]


def start_listening(session: Any, sensor: Any, stream_id: int) -> bool:
    """Listens to lockstep's `sensor` and publishes each measurement on `stream_id`; False
    (said in one line) when lockstep's sensor gives no data."""

    said: list[str] = []

    def deliver(data: Any) -> None:
        payload = serialise(data, lambda actor: _actor_record(session, actor))
        if payload is not None:
            session.streams.publish(stream_id, payload)
        elif not said:
            said.append(type(data).__name__)
            session.log(f"{sensor.type_id} (actor {sensor.id}): {said[0]} has no stream form")

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


def serialise(data: Any, record: Callable[[Any], list]) -> bytes | None:
    """CARLA's message for one lockstep measurement (header included), or None for a kind
    the stream does not carry."""
    body = _body(data, record)
    if body is None:
        return None
    kind, payload = body
    return sensor_header(SENSOR_TYPES[kind], data.frame, data.timestamp, data.transform) + payload


def _body(data: Any, record: Callable[[Any], list]) -> tuple[str, bytes] | None:
    if isinstance(data, CollisionEvent):
        impulse = shapes.vector_out(data.normal_impulse)
        return "collision", pack([record(data.actor), record(data.other_actor), impulse])
    if isinstance(data, ObstacleDetectionEvent):
        return "obstacle", pack(
            [record(data.actor), record(data.other_actor), float(data.distance)]
        )
    if isinstance(data, GnssMeasurement):
        return "gnss", pack([float(data.latitude), float(data.longitude), float(data.altitude)])
    if isinstance(data, IMUMeasurement):
        return "imu", pack(
            [
                shapes.vector_out(data.accelerometer),
                shapes.vector_out(data.gyroscope),
                float(data.compass),
            ]
        )
    return None
