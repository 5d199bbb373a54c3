"""Two CARLA logs compared byte for byte, except the header's date and PlatformTime packets.

The first divergence is named the way a person looks for it: the frame, the
packet, the record's actor id, the field and both values (floats in full
precision). Packets are compared as bytes; only a differing pair is decoded.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import LogReader, RawPacket, packet_name

__all__ = ["Divergence", "compare_logs"]


@dataclass(frozen=True)
class Divergence:
    """Where two logs first differ; `field` is a dotted path inside the record."""

    frame: int | None
    packet: str
    actor_id: int | None
    field: str
    old: Any
    new: Any

    def __str__(self) -> str:
        frame = "header" if self.frame is None else f"frame {self.frame}"
        actor = "" if self.actor_id is None else f", actor {self.actor_id}"
        return (
            f"first divergence at {frame}, packet {self.packet}{actor}, field {self.field}: "
            f"{_text(self.old)} != {_text(self.new)}"
        )


_AXES = {"location": ("x", "y", "z"), "rotation": ("roll", "pitch", "yaw")}


def _text(value: Any) -> str:
    return repr(value)


def _packets(reader: LogReader) -> list[RawPacket]:
    return [p for p in reader.packets() if p.id != PacketId.PlatformTime]


def compare_logs(old_path: str | Path, new_path: str | Path) -> Divergence | None:
    """None when the logs agree (less date and PlatformTime), else the first divergence."""
    old, new = LogReader(old_path), LogReader(new_path)
    for name in ("version", "magic", "map_name"):
        a, b = getattr(old.header, name), getattr(new.header, name)
        if a != b:
            return Divergence(None, "header", None, name, a, b)
    old_packets, new_packets = _packets(old), _packets(new)
    frame: int | None = None
    for a, b in zip(old_packets, new_packets, strict=False):
        if a.id == PacketId.FrameStart:
            frame = _frame_id(old, a)
        if a.id != b.id:
            return Divergence(
                frame, "packet order", None, "id", packet_name(a.id), packet_name(b.id)
            )
        body_a = old.data[a.body_offset : a.body_offset + a.size]
        body_b = new.data[b.body_offset : b.body_offset + b.size]
        if body_a != body_b:
            return _record_divergence(old, new, a, b, frame)
    if len(old_packets) != len(new_packets):
        longer = "old" if len(old_packets) > len(new_packets) else "new"
        rest = (old_packets if longer == "old" else new_packets)[
            min(len(old_packets), len(new_packets))
        ]
        where = frame
        return Divergence(
            where,
            packet_name(rest.id),
            None,
            "end of log",
            f"{len(old_packets)} packets",
            f"{len(new_packets)} packets",
        )
    return None


def _frame_id(reader: LogReader, packet: RawPacket) -> int:
    records = reader.records(packet)
    record = records[0] if isinstance(records, list) else records
    return int(getattr(record, "id", getattr(record, "frame_id", 0)))


def _record_divergence(
    old: LogReader, new: LogReader, a: RawPacket, b: RawPacket, frame: int | None
) -> Divergence:
    name = packet_name(a.id)
    try:
        records_a, records_b = old.records(a), new.records(b)
    except Exception:  # a packet lockstep cannot decode: name the first differing byte
        return _byte_divergence(old, new, a, b, frame, name)
    if not isinstance(records_a, list):
        records_a, records_b = [records_a], [records_b]
    for ra, rb in zip(records_a, records_b, strict=False):
        found = _field_divergence(ra, rb, "")
        if found is not None:
            path, va, vb = found
            actor = getattr(ra, "id", None) if a.id != PacketId.FrameStart else None
            if a.id == PacketId.Collision:
                actor = ra.id1
            return Divergence(frame, name, actor, path or "value", va, vb)
    return Divergence(frame, name, None, "record count", len(records_a), len(records_b))


def _field_divergence(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        for f in dataclasses.fields(a):
            found = _field_divergence(
                getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}" if path else f.name
            )
            if found is not None:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        names = _AXES.get(path.rsplit(".", 1)[-1]) if len(a) == 3 else None
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _field_divergence(x, y, f"{path}.{names[i]}" if names else f"{path}[{i}]")
            if found is not None:
                return found
        if len(a) != len(b):
            return (f"{path}.length", len(a), len(b))
        return None
    same = a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)
    return None if same else (path, a, b)


def _byte_divergence(
    old: LogReader, new: LogReader, a: RawPacket, b: RawPacket, frame: int | None, name: str
) -> Divergence:
    body_a = old.data[a.body_offset : a.body_offset + a.size]
    body_b = new.data[b.body_offset : b.body_offset + b.size]
    for i, (x, y) in enumerate(zip(body_a, body_b, strict=False)):
        if x != y:
            return Divergence(frame, name, None, f"byte {i}", x, y)
    return Divergence(frame, name, None, "size", len(body_a), len(body_b))
