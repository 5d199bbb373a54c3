"""LogReader against CARLA's golden logs and hand-made byte strings."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from recorder.errors import LogFormatError, RecorderError
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.reader import LogReader


def _header(version: int = 1, magic: bytes = b"CARLA_RECORDER", map_name: bytes = b"Town01"):
    return (
        struct.pack("<HH", version, len(magic))
        + magic
        + struct.pack("<qH", 0, len(map_name))
        + map_name
    )


def _packet(pid: int, body: bytes) -> bytes:
    return struct.pack("<BI", pid, len(body)) + body


def _frame(frame_id: int, elapsed: float, *middle: bytes) -> bytes:
    start = _packet(0, struct.pack("<Qdd", frame_id, -1.0, elapsed))
    return start + b"".join(middle) + _packet(1, b"")


@pytest.fixture(scope="module")
def all_packets(shared):
    return LogReader(shared / "carla-golden" / "all_packets" / "recording.log")


def test_header_of_golden_log(all_packets):
    # SPEC.json of all_packets: version 2, map "Carla/Maps/Town10HD_Opt", date 1767225601;
    # the header is 2 + (2 + 14) + 8 + (2 + 23) = 51 bytes.
    h = all_packets.header
    assert (h.version, h.magic, h.date, h.map_name, h.end_offset) == (
        2,
        "CARLA_RECORDER",
        1767225601,
        "Carla/Maps/Town10HD_Opt",
        51,
    )


def test_magic_is_case_blind(shared):
    h = LogReader(shared / "carla-golden" / "edge_header_only" / "recording.log").header
    assert h.magic == "carla_recorder" and h.map_name == "Town02_Opt" and h.date == -172800


def test_bad_magic_raises():
    with pytest.raises(LogFormatError, match="magic 'CARLA_RECORDEX'"):
        LogReader(_header(magic=b"CARLA_RECORDEX"))


def test_frame_index_of_golden_log(all_packets):
    # Deltas in SPEC.json: frame 2 0.05, frame 3 1/3, frame 4 0.0165; frame 1's is ignored.
    index = all_packets.frame_index
    assert index.frame_id.tolist() == [1, 2, 3, 4]
    assert index.duration.tolist() == [0.05, 0.3333333333333333, 0.0165, -1.0]
    assert index.elapsed.tolist() == [
        0.0,
        0.05,
        0.05 + 0.3333333333333333,
        0.05 + 0.3333333333333333 + 0.0165,
    ]
    # Byte offsets of the FrameStart packets, read off the file with a hex viewer.
    assert index.offset.tolist() == [51, 2789, 3799, 3957]
    assert index.end.tolist() == [2789, 3799, 3957, 4164]


def test_seek_by_frame_and_time(all_packets):
    assert all_packets.seek_frame(3) == 3799
    assert all_packets.seek_time(0.06) == 2789
    assert all_packets.seek_time(0.05) == 2789
    assert all_packets.seek_time(-1.0) == 51
    assert all_packets.seek_time(100.0) == 3957
    with pytest.raises(RecorderError, match="no frame 9"):
        all_packets.seek_frame(9)


def test_packet_order_of_an_empty_frame(all_packets):
    # Frame 3 of all_packets has no records: the golden README's always-written packets remain.
    start, end = 3799, 3957
    ids = [p.id for p in all_packets.packets(start) if p.offset < end]
    assert ids == [0, 20, 2, 3, 4, 5, 23, 6, 7, 8, 9, 10, 21, 22, 13, 14, 19, 1]


def test_position_array_matches_spec(all_packets):
    # Frame 2 of SPEC.json: actor 24 at (-52.3, 140.7, 0.61) cm, rotation (0.1, 0.2, -179).
    packet = next(p for p in all_packets.packets(2789) if p.id == PacketId.Position)
    arr = all_packets.array(packet)
    assert arr["id"].tolist() == [24, 311]
    assert arr["location"][0].tolist() == [
        float(np.float32(-52.3)),
        float(np.float32(140.7)),
        float(np.float32(0.61)),
    ]
    assert arr["rotation"][1].tolist() == [0.0, 0.0, 46.0]
    assert all_packets.records(packet)[1].location == (
        float(np.float32(10.55)),
        float(np.float32(-20.2)),
        1.0,
    )


def test_unknown_packet_ids_are_skipped_by_size():
    log = _header() + _frame(1, 0.0, _packet(99, b"abc"), _packet(6, struct.pack("<H", 0)))
    reader = LogReader(log)
    assert [p.id for p in reader.packets()] == [0, 99, 6, 1]
    assert len(reader.frame_index) == 1
    with pytest.raises(RecorderError, match="packet id 99 is not decoded in a ue4 log"):
        reader.records(next(p for p in reader.packets() if p.id == 99))


def test_truncated_log_names_offset_and_frame(all_packets):
    cut = all_packets.data[:2800]  # inside frame 2's FrameStart (packet at byte 2789)
    reader = LogReader(cut)
    with pytest.raises(LogFormatError) as info:
        list(reader.packets())
    assert info.value.offset == 2789 and info.value.frame == 1
    assert "byte 2789" in str(info.value) and "FrameStart" in str(info.value)


def test_lenient_reads_up_to_last_complete_frame(all_packets):
    reader = LogReader(all_packets.data[:3900], lenient=True)  # frame 3 is cut
    assert reader.frame_index.frame_id.tolist() == [1, 2]
    assert reader.frame_index.end.tolist() == [2789, 3799]
    assert list(reader.packets())[-1].offset == 3794  # frame 2's FrameEnd


def test_huge_count_is_an_error_not_an_allocation():
    body = struct.pack("<H", 65535) + b"\0" * 28  # 65535 positions need 2 + 65535 * 28 bytes
    reader = LogReader(_header() + _frame(1, 0.0, _packet(6, body)))
    packet = next(p for p in reader.packets() if p.id == 6)
    with pytest.raises(
        LogFormatError, match=r"need 1834982 bytes, its size says 30 \(at byte 68, frame 1\)"
    ):
        reader.records(packet)
    with pytest.raises(LogFormatError):
        reader.array(packet)


def test_size_past_the_end():
    log = _header() + struct.pack("<BI", 6, 0xFFFFFFF0) + b"\0" * 10
    with pytest.raises(LogFormatError, match="runs past the end"):
        list(LogReader(log).packets())


def _string(raw: bytes) -> bytes:
    return struct.pack("<H", len(raw)) + raw


def test_read_string_semantics():
    good = _string("Zoë".encode())
    nul = _string(b"ab\0cd")
    bad = _string(b"\xff\xfe")
    after = _string(b"ok")
    data = _header() + good + nul + bad + after
    reader = LogReader(data)
    start = reader.header.end_offset
    text, pos = reader.read_string(start)
    assert (text, pos, reader.failed) == ("Zoë", start + 6, False)
    text, pos = reader.read_string(pos)
    assert (text, reader.failed) == ("ab", False)  # stops at the NUL
    text, pos = reader.read_string(pos)
    assert (text, reader.failed) == ("", True)  # invalid UTF-8
    assert reader.read_string(pos)[0] == ""  # failed sticks
    assert reader.failed


def test_incomplete_string_fails_until_seek():
    # The string sits in an unknown packet's body: its length says 50 bytes, 5 are left.
    data = _header() + _frame(1, 0.0, _packet(99, struct.pack("<H", 50) + b"short"))
    reader = LogReader(data)
    text, _ = reader.read_string(len(data) - 12)
    assert (text, reader.failed) == ("", True)
    reader.seek_frame(1)
    assert not reader.failed


def test_wheel_size_taken_from_packet_size(shared):
    # The 2020 log (CARLA 0.9.10) has 36-byte wheels; the 2021 one 48-byte wheels.
    for folder, size in (("DistanceToLaneCenter_2020", 36), ("DistanceBetweenVehicles", 48)):
        reader = LogReader(shared / "carla-logs" / folder / "recording.log")
        packet = next(p for p in reader.packets() if p.id == PacketId.PhysicsControl)
        records = reader.records(packet)
        assert records and all(r.wheel_size == size and len(r.wheels) == 4 for r in records)


def test_frame_start_size_check_in_the_index():
    # Two frames; the second FrameStart is 32 bytes (8 extra) but the chain stays intact.
    first = _frame(1, 0.0)
    second = _packet(0, struct.pack("<Qdd", 2, -1.0, 0.05) + b"\0" * 8) + _packet(1, b"")
    log = _header() + first + second
    with pytest.raises(LogFormatError) as info:
        _ = LogReader(log).frame_index
    assert "FrameStart packet of 32 bytes, expected 24" in str(info.value)
    assert info.value.offset == len(_header()) + len(first) and info.value.frame == 1


def test_seek_time_inside_long_frames(shared):
    # edge_cases: frames 4..8 start at 0.25, 12.75, 25.25, 37.75, 50.25 s (12.5 s apart).
    reader = LogReader(shared / "carla-golden" / "edge_cases" / "recording.log")
    index = reader.frame_index
    at = {int(f): int(o) for f, o in zip(index.frame_id, index.offset, strict=True)}
    assert reader.seek_time(12.74) == at[4]
    assert reader.seek_time(12.76) == at[5]
    assert reader.seek_time(49.0) == at[7]
