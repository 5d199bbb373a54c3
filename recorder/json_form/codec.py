"""JSON dump and build of CARLA logs, in the schema of the golden SPEC.json files.

`build_log(spec)` writes the log CARLA's recorder writes for a spec: CARLA's packet order and
empty-packet rules, collisions through CARLA's per-frame `unordered_set` (libc++ order by
default, libstdc++ on request), the UE-side physics control converted as CARLA converts it.

`dump_log(log)` gives a spec that builds back the same bytes, for any log. Where a log cannot be
said in the plain schema, the dump adds extension keys (docs/recorder-format.md lists them):
per frame `frame_id`, `elapsed` (values that do not follow CARLA's arithmetic), `packets` (the
frame's exact packet sequence, with `{"id", "hex"}` items for packets kept as raw bytes),
`collisions_as_written`, `no_frame_end`; at the top `leading_packets` and
`last_frame_duration`; in a physics control `wheel_size` and `rpc`.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any, BinaryIO

from recorder.errors import LogFormatError, RecorderError, quoted
from recorder.json_form.records import (
    JsonInexactError,
    fixed_from_json,
    fixed_to_json,
    physics_from_json,
    physics_to_json,
    record_from_json,
    record_to_json,
)
from recorder.logfile.hash_order import LIBCXX, CollisionSet
from recorder.logfile.packet_ids import KNOWN_IDS, PacketId
from recorder.logfile.packets import CODEC_BY_KEY, CODECS, PacketCodec
from recorder.logfile.reader import MAGIC, LogReader, RawPacket
from recorder.logfile.source import read_bounded
from recorder.logfile.writer import ADDITIONAL_ORDER, MAIN_ORDER, LogWriter, frame_layout

# A spec is read whole and parsed into Python objects (about ten times its size in memory).
MAX_SPEC_BYTES = 1 << 30
_F64 = struct.Struct("<d")
_SCALARS = {PacketId.VisualTime: "visual_time", PacketId.PlatformTime: "platform_time"}
_SCALARS[PacketId.FrameCounter] = "frame_counter"
_LIST_KEYS = {CODECS[pid].key: pid for pid in (*MAIN_ORDER, *ADDITIONAL_ORDER)}
_LIST_KEYS.pop("platform_time")
_FRAME_KEYS = {"delta", "visual_time", "platform_time", "frame_counter", "bare", "frame_id"}
_FRAME_KEYS |= {"elapsed", "packets", "collisions_as_written", "no_frame_end", *_LIST_KEYS}
_TOP_KEYS = {"version", "magic", "map", "date", "additional_data", "frames"}
_TOP_KEYS |= {"leading_packets", "last_frame_duration"}


# -- build --------------------------------------------------------------------------------------


def load_spec(path: str | Path) -> dict:
    """A spec from a JSON file of at most MAX_SPEC_BYTES; bad JSON names the file, line and
    column."""
    raw = read_bounded(path, MAX_SPEC_BYTES, "JSON spec")
    try:
        spec = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RecorderError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise RecorderError(f"{path}: bad JSON at {where}: {exc.msg}") from None
    if not isinstance(spec, dict):
        raise RecorderError(f"{path}: expected a JSON object at the top")
    return spec


def build_log(
    spec: dict, target: str | Path | BinaryIO | None = None, *, library: str = LIBCXX
) -> bytes | None:
    """The log CARLA writes for `spec`; its bytes when `target` is None, else written there."""
    unknown = set(spec) - _TOP_KEYS
    if unknown:
        raise RecorderError(f"spec: unknown key {quoted(sorted(unknown)[0])}")
    for key in ("version", "map", "date", "frames"):
        if key not in spec:
            raise RecorderError(f"spec: missing key {key!r}")
    writer = LogWriter(
        target,
        map_name=spec["map"],
        date=spec["date"],
        version=spec["version"],
        magic=spec.get("magic", MAGIC),
        additional_data=bool(spec.get("additional_data", False)),
    )
    try:
        for item in spec.get("leading_packets", []):
            _write_raw(writer, item, "spec.leading_packets")
        collisions = CollisionSet(library)
        for i, frame in enumerate(spec["frames"]):
            _build_frame(writer, frame, f"frames[{i}]", collisions)
            collisions.clear()
        if "last_frame_duration" in spec:
            writer.patch_last_duration(spec["last_frame_duration"])
        return writer.getvalue() if target is None else None
    finally:
        writer.close()


def _build_frame(writer: LogWriter, frame: dict, path: str, collisions: CollisionSet) -> None:
    if not isinstance(frame, dict):
        raise RecorderError(f"{path}: expected an object")
    unknown = set(frame) - _FRAME_KEYS
    if unknown:
        raise RecorderError(f"{path}: unknown key {quoted(sorted(unknown)[0])}")
    records = {
        pid: _records(frame, key, pid, path) for key, pid in _LIST_KEYS.items() if key in frame
    }
    if PacketId.Collision in records:
        given = records[PacketId.Collision]
        for r in given:
            collisions.add(r.id1, r.id2, r)
        if not frame.get("collisions_as_written", False):
            records[PacketId.Collision] = collisions.records()
    if "visual_time" in frame:
        writer.visual_time = frame["visual_time"]
    if "platform_time" in frame:
        writer.platform_time = frame["platform_time"]
    delta = frame.get("delta", 0.0)
    counter = frame.get("frame_counter")
    if "packets" not in frame:
        writer.write_frame(
            delta,
            records,
            frame_counter=counter,
            bare=bool(frame.get("bare", False)),
            frame_id=frame.get("frame_id"),
            elapsed=frame.get("elapsed"),
        )
        return
    writer.begin_frame(delta, frame_id=frame.get("frame_id"), elapsed=frame.get("elapsed"))
    for j, item in enumerate(frame["packets"]):
        if isinstance(item, dict):
            _write_raw(writer, item, f"{path}.packets[{j}]")
        elif isinstance(item, int) and item in KNOWN_IDS and item > PacketId.FrameEnd:
            writer.write_frame_packet(PacketId(item), records.get(PacketId(item), []), counter)
        else:
            raise RecorderError(
                f"{path}.packets[{j}]: {quoted(item)} is not a packet id or raw packet"
            )
    if not frame.get("no_frame_end", False):
        writer.end_frame()
    else:
        writer.abandon_frame()


def _records(frame: dict, key: str, pid: PacketId, path: str) -> list:
    items = frame[key]
    if not isinstance(items, list):
        raise RecorderError(f"{path}.{key}: expected a list")
    if pid == PacketId.PhysicsControl:
        return [physics_from_json(o, f"{path}.{key}[{i}]") for i, o in enumerate(items)]
    codec = CODEC_BY_KEY[key]
    if codec.layout is not None and pid != PacketId.Collision:
        return fixed_from_json(codec.layout, items, f"{path}.{key}")
    record_type = codec.record
    return [record_from_json(record_type, o, f"{path}.{key}[{i}]") for i, o in enumerate(items)]


def _write_raw(writer: LogWriter, item: Any, path: str) -> None:
    try:
        writer.write_raw_packet(int(item["id"]), bytes.fromhex(item["hex"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise RecorderError(f"{path}: expected {{'id': int, 'hex': str}} ({exc})") from None


# -- dump ---------------------------------------------------------------------------------------


def dump_log(
    source: str | Path | bytes | LogReader, *, library: str = LIBCXX, lenient: bool = False
) -> dict:
    """A spec that `build_log(..., library=library)` turns back into the log's exact bytes."""
    reader = source if isinstance(source, LogReader) else LogReader(source, lenient=lenient)
    h = reader.header
    packets = list(reader.packets())
    additional = any(p.id == PacketId.PlatformTime for p in packets)
    out: dict[str, Any] = {"version": h.version}
    if h.magic != MAGIC:
        out["magic"] = h.magic
    out |= {"map": h.map_name, "date": h.date, "additional_data": additional}
    starts = [i for i, p in enumerate(packets) if p.id == PacketId.FrameStart]
    if (starts and starts[0] > 0) or (not starts and packets):
        out["leading_packets"] = [_raw(reader, p) for p in packets[: starts[0] if starts else None]]
    dumper = _FrameDumper(reader, additional, library)
    frames = []
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(packets)
        frames.append(dumper.frame(packets[start], packets[start + 1 : stop]))
    if dumper.last_duration is not None and not _same(dumper.last_duration, -1.0):
        out["last_frame_duration"] = dumper.last_duration
    out["frames"] = frames
    return out


class _FrameDumper:
    """Dumps frames in order, tracking what the builder will compute (ids, times, collisions)."""

    def __init__(self, reader: LogReader, additional: bool, library: str):
        self.reader = reader
        self.additional = additional
        self.collisions = CollisionSet(library)
        self.count = 0
        self.frame_id = 0
        self.elapsed = 0.0
        self.last_duration: float | None = None
        self._json: dict[PacketId, list] = {}
        self._ue5 = reader.detect_variant() == "ue5"

    def frame(self, start: RawPacket, body: list[RawPacket]) -> dict:
        fs = self.reader.records(start)[0]
        delta = 0.0 if self.last_duration is None else self.last_duration
        expected_elapsed = 0.0 if self.count == 0 else self.elapsed + delta
        out: dict[str, Any] = {"delta": delta}
        extra: dict[str, Any] = {}
        if fs.id != self.frame_id + 1:
            extra["frame_id"] = fs.id
        if not _same(fs.elapsed, expected_elapsed):
            extra["elapsed"] = fs.elapsed
        self.count += 1
        self.frame_id, self.elapsed, self.last_duration = fs.id, fs.elapsed, fs.duration

        ended = bool(body) and body[-1].id == PacketId.FrameEnd and body[-1].size == 0
        inner = body[:-1] if ended else body
        items: list[Any] = []
        lists: dict[PacketId, list] = {}
        self._json = {}
        for packet in inner:
            item = self._packet(packet, out, lists)
            items.append(item)
        self._collisions(lists, extra)
        if not ended:
            extra["no_frame_end"] = True
        for pid in (*MAIN_ORDER, *ADDITIONAL_ORDER):
            if len(lists.get(pid, ())) and pid not in _SCALARS:  # a missing list key: empty
                out[CODECS[pid].key] = self._json[pid]
        if ended and not inner:
            out["bare"] = True
        elif not ended or items != self._layout(lists, out):
            extra["packets"] = items
        return out | extra

    def _packet(self, packet: RawPacket, out: dict, lists: dict[PacketId, list]) -> Any:
        pid = packet.id
        if pid not in KNOWN_IDS or pid <= PacketId.FrameEnd or self._ue5:
            return _raw(self.reader, packet)  # the schema speaks UE4: a UE5 log stays raw
        pid = PacketId(pid)
        if pid in lists or (pid in _SCALARS and _SCALARS[pid] in out):
            return _raw(self.reader, packet)  # a second packet of a kind in one frame
        codec = CODECS[pid]
        if codec.layout is not None and pid not in _SCALARS and pid != PacketId.Collision:
            return self._fixed_packet(packet, codec, lists)
        try:
            records = self.reader.records(packet)
        except LogFormatError:
            return _raw(self.reader, packet)
        body = self._body(packet)
        if codec.pack_body(records) != body:
            return _raw(self.reader, packet)
        try:
            if pid == PacketId.PhysicsControl:
                converted = [physics_to_json(r) for r in records]
                back = [physics_from_json(o, "") for o in json.loads(json.dumps(converted))]
                if codec.pack_body(back) != body:
                    return _raw(self.reader, packet)
            else:
                converted = [record_to_json(r) for r in records]
        except JsonInexactError:
            return _raw(self.reader, packet)
        if pid in _SCALARS:
            (value,) = converted[0].values()
            out[_SCALARS[pid]] = value
        else:
            lists[pid] = records
            self._json[pid] = converted
        return int(pid)

    def _fixed_packet(self, packet: RawPacket, codec: PacketCodec, lists: dict) -> Any:
        """A fixed-size packet through numpy: its bytes are its records, so no re-encoding."""
        try:
            records = self.reader.array(packet)
            converted = fixed_to_json(codec.layout, records)
        except (LogFormatError, JsonInexactError):
            return _raw(self.reader, packet)
        lists[codec.packet_id] = records
        self._json[codec.packet_id] = converted
        return int(codec.packet_id)

    def _collisions(self, lists: dict[PacketId, list], extra: dict) -> None:
        written = lists.get(PacketId.Collision)
        if not written:
            self.collisions.clear()
            return
        for candidate in (written, written[::-1]):
            trial = self.collisions.copy()
            for r in candidate:
                trial.add(r.id1, r.id2, r)
            if [id(r) for r in trial.records()] == [id(r) for r in written]:
                lists[PacketId.Collision] = list(candidate)
                self._json[PacketId.Collision] = [record_to_json(r) for r in candidate]
                self.collisions = trial
                break
        else:
            extra["collisions_as_written"] = True
            for r in written:
                self.collisions.add(r.id1, r.id2, r)
        self.collisions.clear()

    def _layout(self, lists: dict[PacketId, list], out: dict) -> list[int]:
        layout = frame_layout(lists, self.additional, "frame_counter" in out)
        return [int(p) for p in layout]

    def _body(self, packet: RawPacket) -> bytes:
        return self.reader.data[packet.body_offset : packet.body_offset + packet.size]


def _raw(reader: LogReader, packet: RawPacket) -> dict:
    body = reader.data[packet.body_offset : packet.body_offset + packet.size]
    return {"id": packet.id, "hex": body.hex()}


def _same(a: float, b: float) -> bool:
    return _F64.pack(a) == _F64.pack(b)


def dump_json(spec: dict) -> str:
    """The JSON text of a spec: one frame per line, keys in the schema's order."""
    head = {k: v for k, v in spec.items() if k != "frames"}
    lines = [json.dumps(head)[:-1] + ', "frames": [']
    frames = spec["frames"]
    lines += [json.dumps(f) + ("," if i + 1 < len(frames) else "") for i, f in enumerate(frames)]
    lines.append("]}")
    return "\n".join(lines) + "\n"
