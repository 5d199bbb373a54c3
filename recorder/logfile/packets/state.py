"""CarlaRecorderStateTrafficLight: a light's freeze flag, elapsed time and state (int8)."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec


@dataclass(slots=True)
class StateRecord:
    id: int
    frozen: bool
    elapsed: float
    state: int


STATE = FixedLayout(
    StateRecord, [("id", "I", 1), ("frozen", "?", 1), ("elapsed", "f", 1), ("state", "b", 1)]
)
STATE_CODEC = PacketCodec.fixed(PacketId.State, "state", STATE)
