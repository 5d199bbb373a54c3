"""CARLA's streaming port: tokens, the sensor header, and who listens to which stream.

A client subscribes to a stream by opening a TCP connection to the streaming port (the RPC
port + 1) and writing the stream's id as 4 little-endian bytes; the server then pushes
messages framed as a little-endian u32 size and that many bytes. Each message starts with
CARLA's 48-byte sensor header (sensor type, frame, timestamp, the sensor's transform).
The world's snapshots are stream WORLD_STREAM; each sensor has its own.

A token (24 bytes) tells the client where a stream is: its id, the port, TCP, and an IPv4
address (streaming/detail/Token.h).
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable
from typing import Any, Protocol

__all__ = [
    "HEADER_SIZE",
    "SENSOR_TYPES",
    "WORLD_STREAM",
    "StreamHub",
    "Subscriber",
    "frame_message",
    "sensor_header",
    "token",
]

WORLD_STREAM = 1  # the world observer's stream id (CARLA's server special-cases 1)
_TCP, _IPV4 = 1, 1
HEADER_SIZE = 48
_HEADER = struct.Struct("<QQd6f")
_SIZE = struct.Struct("<I")

# Index of each sensor's serializer in CARLA 0.9.16's SensorRegistry (its wheel's
# CompositeSerializer): the header's first field, which the client dispatches on.
SENSOR_TYPES = {
    "collision": 0,
    "depth": 1,
    "normals": 2,
    "dvs": 3,
    "gnss": 4,
    "imu": 5,
    "lane_invasion": 6,
    "obstacle": 7,
    "optical_flow": 8,
    "radar": 9,
    "semantic_lidar": 10,
    "lidar": 11,
    "rgb": 13,
    "semantic_segmentation": 14,
    "instance_segmentation": 15,
    "episode_state": 17,
}


def token(stream_id: int, host: str, port: int) -> bytes:
    """The 24-byte token of `stream_id` on `host:port` (an IPv4 address)."""
    address = socket.inet_aton(host)
    return struct.pack("<IHBB4s12x", stream_id, port, _TCP, _IPV4, address)


def sensor_header(sensor_type: int, frame: int, timestamp: float, transform: Any = None) -> bytes:
    """CARLA's sensor header: u64 type, u64 frame, f64 seconds, the sensor's Transform (f32)."""
    if transform is None:
        return _HEADER.pack(sensor_type, frame, timestamp, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    loc, rot = transform.location, transform.rotation
    return _HEADER.pack(
        sensor_type, frame, timestamp, loc.x, loc.y, loc.z, rot.pitch, rot.yaw, rot.roll
    )


def frame_message(payload: bytes) -> bytes:
    """A streaming message: the payload's size as u32, then the payload."""
    return _SIZE.pack(len(payload)) + payload


class Subscriber(Protocol):
    """A connection that takes framed messages (runner.serve.loop's stream connections)."""

    def send(self, data: bytes) -> None: ...


class StreamHub:
    """The subscribers of each stream id, in the order they subscribed.

    `on_first` / `on_last` are told when a stream gains its first subscriber and loses its
    last (a sensor starts and stops listening then)."""

    def __init__(
        self,
        on_first: Callable[[int], None] | None = None,
        on_last: Callable[[int], None] | None = None,
    ) -> None:
        self._subscribers: dict[int, list[Subscriber]] = {}
        self.on_first = on_first
        self.on_last = on_last

    def subscribe(self, stream_id: int, subscriber: Subscriber) -> None:
        listeners = self._subscribers.setdefault(stream_id, [])
        listeners.append(subscriber)
        if len(listeners) == 1 and self.on_first is not None:
            self.on_first(stream_id)

    def unsubscribe(self, stream_id: int, subscriber: Subscriber) -> None:
        listeners = self._subscribers.get(stream_id, [])
        if subscriber in listeners:
            listeners.remove(subscriber)
            if not listeners:
                del self._subscribers[stream_id]
                if self.on_last is not None:
                    self.on_last(stream_id)

    def has_subscribers(self, stream_id: int) -> bool:
        return stream_id in self._subscribers

    def publish(self, stream_id: int, payload: bytes) -> None:
        """Sends `payload` (header included) to every subscriber of `stream_id`."""
        listeners = self._subscribers.get(stream_id)
        if not listeners:
            return
        message = frame_message(payload)
        for subscriber in list(listeners):
            subscriber.send(message)
