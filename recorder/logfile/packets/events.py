"""Actor events (CarlaRecorderEventAdd, EventDel, EventParent)."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets.base import (
    U16,
    FixedLayout,
    LogFormatError,
    PacketCodec,
    Vec3,
    pack_string,
    unpack_string,
)


@dataclass(slots=True)
class ActorAttribute:
    """CarlaRecorderActorAttribute: type (1 Bool .. 5 RGBColor), id, value as text."""

    type: int
    id: str
    value: str


@dataclass(slots=True)
class EventAddRecord:
    """CarlaRecorderEventAdd: a new actor with its kind, spawn pose (cm, degrees) and blueprint."""

    id: int
    type: int
    location: Vec3
    rotation: Vec3
    uid: int
    blueprint: str
    attributes: list[ActorAttribute] = field(default_factory=list)


_ATTR_TYPE = struct.Struct("<B")


def event_add_codec(head: struct.Struct) -> PacketCodec:
    """The EventAdd codec whose fixed head (id, type, location, rotation, uid) is `head`:
    floats in UE4, doubles in UE5."""

    def pack(r: EventAddRecord) -> bytes:
        parts = [
            head.pack(r.id, r.type, *r.location, *r.rotation, r.uid),
            pack_string(r.blueprint),
            U16.pack(len(r.attributes)),
        ]
        for a in r.attributes:
            parts += [_ATTR_TYPE.pack(a.type), pack_string(a.id), pack_string(a.value)]
        return b"".join(parts)

    def unpack(data: bytes, offset: int, end: int) -> tuple[EventAddRecord, int]:
        if offset + head.size > end:
            raise LogFormatError("EventAdd record runs past the packet end", offset)
        v = head.unpack_from(data, offset)
        blueprint, offset = unpack_string(data, offset + head.size, end)
        if offset + 2 > end:
            raise LogFormatError("EventAdd attribute count runs past the packet end", offset)
        (count,) = U16.unpack_from(data, offset)
        offset += 2
        if count * 5 > end - offset:  # each attribute needs at least 5 bytes
            raise LogFormatError(
                f"EventAdd claims {count} attributes, more than the packet holds", offset
            )
        attributes = []
        for _ in range(count):
            if offset + 1 > end:
                raise LogFormatError("attribute runs past the packet end", offset)
            kind = data[offset]
            name, offset = unpack_string(data, offset + 1, end)
            value, offset = unpack_string(data, offset, end)
            attributes.append(ActorAttribute(kind, name, value))
        return EventAddRecord(v[0], v[1], v[2:5], v[5:8], v[8], blueprint, attributes), offset

    return PacketCodec(PacketId.EventAdd, "event_add", EventAddRecord, pack, unpack)


EVENT_ADD_CODEC = event_add_codec(struct.Struct("<IB3f3fI"))


@dataclass(slots=True)
class EventDelRecord:
    """CarlaRecorderEventDel: the removed actor's id."""

    id: int


@dataclass(slots=True)
class EventParentRecord:
    """CarlaRecorderEventParent: a child's id and its parent's id."""

    id: int
    parent: int


EVENT_DEL = FixedLayout(EventDelRecord, [("id", "I", 1)])
EVENT_PARENT = FixedLayout(EventParentRecord, [("id", "I", 1), ("parent", "I", 1)])
EVENT_DEL_CODEC = PacketCodec.fixed(PacketId.EventDel, "event_del", EVENT_DEL)
EVENT_PARENT_CODEC = PacketCodec.fixed(PacketId.EventParent, "event_parent", EVENT_PARENT)
