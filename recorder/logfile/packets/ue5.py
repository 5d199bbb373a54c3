"""CARLA 0.10 (UE5) logs: the same framing, doubles in vectors, packets 21-23 renumbered.

UE5's `FVector` is three doubles, and the recorder writes it as such: Position, Kinematics,
BoundingBox, TriggerVolume, EventAdd and WalkerBones records grow. The packet ids run
21 VehicleDoor, 22 AnimVehicleWheels, 23 AnimBiker, and there is no Weather packet. Its
PhysicsControl holds the Chaos vehicle model (recorder/logfile/packets/physics_control_ue5.py).

`UE5_CODECS` maps a UE5 log's id byte to the codec of the packet it means.
"""

from __future__ import annotations

import struct

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.animation import ANIM_BIKER_CODEC, ANIM_VEHICLE_WHEELS_CODEC
from recorder.logfile.packets.base import FixedLayout, PacketCodec
from recorder.logfile.packets.boxes import BoxRecord
from recorder.logfile.packets.events import event_add_codec
from recorder.logfile.packets.kinematics import KinematicsRecord
from recorder.logfile.packets.physics_control_ue5 import PHYSICS_CONTROL_UE5_CODEC
from recorder.logfile.packets.position import PositionRecord
from recorder.logfile.packets.vehicle_door import VEHICLE_DOOR_CODEC
from recorder.logfile.packets.walker_bones import walker_bones_codec

POSITION_UE5 = FixedLayout(
    PositionRecord, [("id", "I", 1), ("location", "d", 3), ("rotation", "d", 3)]
)
KINEMATICS_UE5 = FixedLayout(
    KinematicsRecord, [("id", "I", 1), ("linear_velocity", "d", 3), ("angular_velocity", "d", 3)]
)
BOX_UE5 = FixedLayout(BoxRecord, [("id", "I", 1), ("origin", "d", 3), ("extension", "d", 3)])

# UE5 id byte -> codec; ids 0-20 mean what they mean in UE4.
UE5_IDS = {21: PacketId.VehicleDoor, 22: PacketId.AnimVehicleWheels, 23: PacketId.AnimBiker}


def ue5_codecs(ue4: dict[PacketId, PacketCodec]) -> dict[int, PacketCodec]:
    codecs: dict[int, PacketCodec] = {int(pid): c for pid, c in ue4.items() if pid <= 20}
    codecs[PacketId.PhysicsControl] = PHYSICS_CONTROL_UE5_CODEC
    codecs[PacketId.Position] = PacketCodec.fixed(PacketId.Position, "position", POSITION_UE5)
    codecs[PacketId.Kinematics] = PacketCodec.fixed(
        PacketId.Kinematics, "kinematics", KINEMATICS_UE5
    )
    codecs[PacketId.BoundingBox] = PacketCodec.fixed(PacketId.BoundingBox, "bounding_box", BOX_UE5)
    codecs[PacketId.TriggerVolume] = PacketCodec.fixed(
        PacketId.TriggerVolume, "trigger_volume", BOX_UE5
    )
    codecs[PacketId.EventAdd] = event_add_codec(struct.Struct("<IB3d3dI"))
    codecs[PacketId.WalkerBones] = walker_bones_codec(struct.Struct("<3d3d"))
    codecs[21] = VEHICLE_DOOR_CODEC
    codecs[22] = ANIM_VEHICLE_WHEELS_CODEC
    codecs[23] = ANIM_BIKER_CODEC
    return codecs
