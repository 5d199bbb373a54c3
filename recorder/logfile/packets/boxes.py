"""CarlaRecorderBoundingBox and TriggerVolume: an actor's box, origin and extent in cm."""

from __future__ import annotations

from dataclasses import dataclass

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import FixedLayout, PacketCodec, Vec3


@dataclass(slots=True)
class BoxRecord:
    id: int
    origin: Vec3
    extension: Vec3


BOX = FixedLayout(BoxRecord, [("id", "I", 1), ("origin", "f", 3), ("extension", "f", 3)])
BOUNDING_BOX_CODEC = PacketCodec.fixed(PacketId.BoundingBox, "bounding_box", BOX)
TRIGGER_VOLUME_CODEC = PacketCodec.fixed(PacketId.TriggerVolume, "trigger_volume", BOX)
