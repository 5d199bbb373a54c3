"""CarlaRecorderWalkerBones: a walker's bones, each a name and a local pose."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import (
    U16,
    LogFormatError,
    PacketCodec,
    Vec3,
    pack_string,
    unpack_string,
)


@dataclass(slots=True)
class Bone:
    name: str
    location: Vec3
    rotation: Vec3


@dataclass(slots=True)
class WalkerBonesRecord:
    id: int
    bones: list[Bone] = field(default_factory=list)


_ID = struct.Struct("<I")
RECORD_HEAD_SIZE = _ID.size + U16.size  # a record's walker id and uint16 bone count


def walker_bones_codec(pose: struct.Struct) -> PacketCodec:
    """The WalkerBones codec whose bone pose (location, rotation) is `pose`: floats in UE4,
    doubles in UE5."""

    def pack(r: WalkerBonesRecord) -> bytes:
        parts = [_ID.pack(r.id), U16.pack(len(r.bones))]
        for b in r.bones:
            parts += [pack_string(b.name), pose.pack(*b.location, *b.rotation)]
        return b"".join(parts)

    def unpack(data: bytes, offset: int, end: int) -> tuple[WalkerBonesRecord, int]:
        if offset + RECORD_HEAD_SIZE > end:
            raise LogFormatError("WalkerBones record runs past the packet end", offset)
        (actor,) = _ID.unpack_from(data, offset)
        (count,) = U16.unpack_from(data, offset + _ID.size)
        offset += RECORD_HEAD_SIZE
        if count * (2 + pose.size) > end - offset:
            raise LogFormatError(f"WalkerBones claims {count} bones, past the packet end", offset)
        bones = []
        for _ in range(count):
            name, offset = unpack_string(data, offset, end)
            if offset + pose.size > end:
                raise LogFormatError("bone pose runs past the packet end", offset)
            v = pose.unpack_from(data, offset)
            offset += pose.size
            bones.append(Bone(name, v[0:3], v[3:6]))
        return WalkerBonesRecord(actor, bones), offset

    return PacketCodec(PacketId.WalkerBones, "walker_bones", WalkerBonesRecord, pack, unpack)


WALKER_BONES_CODEC = walker_bones_codec(struct.Struct("<3f3f"))
