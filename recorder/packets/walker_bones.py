"""CarlaRecorderWalkerBones: a walker's bones, each a name and a local pose."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from recorder.packet_ids import PacketId
from recorder.packets.base import (
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


_POSE = struct.Struct("<3f3f")
_ID = struct.Struct("<I")


def pack_walker_bones(r: WalkerBonesRecord) -> bytes:
    parts = [_ID.pack(r.id), U16.pack(len(r.bones))]
    for b in r.bones:
        parts += [pack_string(b.name), _POSE.pack(*b.location, *b.rotation)]
    return b"".join(parts)


def unpack_walker_bones(data: bytes, offset: int, end: int) -> tuple[WalkerBonesRecord, int]:
    if offset + 6 > end:
        raise LogFormatError("WalkerBones record runs past the packet end", offset)
    (actor,) = _ID.unpack_from(data, offset)
    (count,) = U16.unpack_from(data, offset + 4)
    offset += 6
    if count * (2 + _POSE.size) > end - offset:
        raise LogFormatError(f"WalkerBones claims {count} bones, past the packet end", offset)
    bones = []
    for _ in range(count):
        name, offset = unpack_string(data, offset, end)
        if offset + _POSE.size > end:
            raise LogFormatError("bone pose runs past the packet end", offset)
        v = _POSE.unpack_from(data, offset)
        offset += _POSE.size
        bones.append(Bone(name, v[0:3], v[3:6]))
    return WalkerBonesRecord(actor, bones), offset


WALKER_BONES_CODEC = PacketCodec(
    PacketId.WalkerBones, "walker_bones", WalkerBonesRecord, pack_walker_bones, unpack_walker_bones
)
