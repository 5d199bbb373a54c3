"""CarlaRecorderTrafficLightTime: a light's green, yellow and red times."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec


@dataclass(slots=True)
class TrafficLightTimeRecord:
    id: int
    green_time: float
    yellow_time: float
    red_time: float


TRAFFIC_LIGHT_TIME = FixedLayout(
    TrafficLightTimeRecord,
    [("id", "I", 1), ("green_time", "f", 1), ("yellow_time", "f", 1), ("red_time", "f", 1)],
)
TRAFFIC_LIGHT_TIME_CODEC = PacketCodec.fixed(
    PacketId.TrafficLightTime, "traffic_light_time", TRAFFIC_LIGHT_TIME
)
