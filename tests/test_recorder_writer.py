"""LogWriter: CARLA's frame layout, the duration patch, numpy hand-over, wheel layouts."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from recorder.errors import RecorderError
from recorder.logfile.packet_ids import PacketId
from recorder.logfile.packets import CODECS, PhysicsControlRecord, PositionRecord, Wheel36, Wheel48
from recorder.logfile.packets.physics_control import Wheel208
from recorder.logfile.reader import LogReader
from recorder.logfile.writer import LogWriter

P = PacketId


def _ids(data: bytes) -> list[int]:
    return [p.id for p in LogReader(data).packets()]


def test_header_bytes():
    w = LogWriter(map_name="Town01", date=1, version=1)
    # u16 1, "CARLA_RECORDER" (14 bytes), i64 1, "Town01"
    assert w.getvalue() == (
        b"\x01\x00\x0e\x00CARLA_RECORDER" + struct.pack("<q", 1) + b"\x06\x00Town01"
    )


def test_empty_frame_layout_without_and_with_additional_data():
    # The always-written packets of the golden README, in ACarlaRecorder::Write's order.
    main = [0, 20, 2, 3, 4, 5, 23, 6, 7, 8, 9, 10, 21, 22, 1]
    w = LogWriter(map_name="m", date=0)
    w.write_frame(0.05)
    assert _ids(w.getvalue()) == main
    w = LogWriter(map_name="m", date=0, additional_data=True)
    w.write_frame(0.05)
    assert _ids(w.getvalue()) == [*main[:-1], 13, 14, 19, 1]


def test_optional_packets_only_when_they_hold_records():
    w = LogWriter(map_name="m", date=0, additional_data=True)
    kin = CODECS[P.Kinematics].record(7, (1.0, 2.0, 3.0), (0.0, 0.0, 0.0))
    w.write_frame(0.05, {P.Kinematics: [kin]}, frame_counter=5)
    ids = _ids(w.getvalue())
    assert ids[:3] == [0, 20, 18] and ids.index(12) < ids.index(13) and 17 not in ids


def test_durations_patched_when_the_next_frame_starts(tmp_path):
    path = tmp_path / "run.log"
    with LogWriter(path, map_name="m", date=0) as w:
        w.write_frame(0.5)  # the first frame's delta is ignored: elapsed 0
        w.write_frame(0.25)
        w.write_frame(0.125)
    index = LogReader(path).frame_index
    assert index.frame_id.tolist() == [1, 2, 3]
    assert index.duration.tolist() == [0.25, 0.125, -1.0]
    assert index.elapsed.tolist() == [0.0, 0.25, 0.375]


def test_frames_longer_than_what_the_writer_keeps_back_are_written_in_order(tmp_path):
    # 3000 Position records are 84 kB a frame, more than a file writer holds before handing
    # bytes to the OS; the file is the in-memory log, durations patched in place.
    rows = [PositionRecord(k + 1, (float(k), 2.0, 3.0), (0.0, 0.0, 90.0)) for k in range(3000)]
    logs = []
    for target in (tmp_path / "long.log", None):
        with LogWriter(target, map_name="m", date=0) as w:
            for delta in (0.0, 0.05, 0.1):
                w.write_frame(delta, {P.Position: rows})
            logs.append(w.getvalue() if target is None else b"")
    data = (tmp_path / "long.log").read_bytes()
    assert len(data) > 3 * 84_000 and data == logs[1]
    assert LogReader(data).frame_index.duration.tolist() == [0.05, 0.1, -1.0]


def test_a_crash_leaves_the_complete_frames_readable(tmp_path):
    path = tmp_path / "crash.log"
    w = LogWriter(path, map_name="m", date=0)
    w.write_frame(0.05)
    w.write_frame(0.05)
    w.begin_frame(0.05)
    w.write_packet(P.Position, [])
    w.flush()  # the process dies here: no FrameEnd for frame 3
    reader = LogReader(path, lenient=True)
    assert reader.frame_index.frame_id.tolist() == [1, 2]
    assert reader.frame_index.duration.tolist() == [0.05, 0.05]
    w.close()


def test_numpy_arrays_and_records_give_the_same_bytes():
    records = [PositionRecord(i, (i * 1.5, -2.0, 0.25), (0.0, 1.0, 90.0 * i)) for i in range(5)]
    dtype = CODECS[P.Position].dtype
    arr = np.zeros(5, dtype)
    arr["id"] = np.arange(5)
    arr["location"] = [(i * 1.5, -2.0, 0.25) for i in range(5)]
    arr["rotation"] = [(0.0, 1.0, 90.0 * i) for i in range(5)]
    a = LogWriter(map_name="m", date=0)
    a.write_frame(0.05, {P.Position: records})
    b = LogWriter(map_name="m", date=0)
    b.write_frame(0.05, {P.Position: arr})
    assert a.getvalue() == b.getvalue()
    reader = LogReader(a.getvalue())
    packet = next(p for p in reader.packets() if p.id == P.Position)
    assert reader.array(packet).tobytes() == arr.tobytes()


def _physics(wheels: list, size: int) -> PhysicsControlRecord:
    return PhysicsControlRecord(
        9, 5000.0, 1.0, 0.125, 2.0, 0.375, True, 10.0, 4.0, 1500.0, 0.25, (0.5, 0.0, -0.25),
        [(0.0, 400.0), (5000.0, 500.0)], [], [(0.0, 1.0)], wheels, size,
    )  # fmt: skip


@pytest.mark.parametrize(
    "size, wheel",
    [
        (36, Wheel36(3.5, 0.25, 70.0, 30.0, 1500.0, 3000.0, (1.0, 2.0, 3.0))),
        (48, Wheel48(3.5, 0.25, 70.0, 30.0, 1500.0, 3000.0, 2.0, 17.0, 1000.0, (1.0, 2.0, 3.0))),
        (208, Wheel208(wheel_index=2, offset=(140.0, -80.0, 0.0), abs_enabled=True)),
    ],
)
def test_wheel_sizes_round_trip(size, wheel):
    record = _physics([wheel, wheel], size)
    w = LogWriter(map_name="m", date=0, additional_data=True)
    w.write_frame(0.05, {P.PhysicsControl: [record, record]})
    reader = LogReader(w.getvalue())
    packet = next(p for p in reader.packets() if p.id == P.PhysicsControl)
    # count 2; per record: head 53, torque 4 + 16, gears 4, steering 4 + 8, wheels 4 + 2 * size
    assert packet.size == 2 + 2 * (53 + 20 + 4 + 12 + 4 + 2 * size)
    assert reader.records(packet) == [record, record]


def test_208_byte_wheel_writes_zero_pointers_and_padding():
    raw = CODECS[P.PhysicsControl].pack_body([_physics([Wheel208()], 208)])
    wheel = raw[-208:]
    assert wheel[72:96] == b"\0" * 24  # the lateral slip graph's begin/end/capacity pointers
    assert wheel[1:4] == b"\0\0\0" and wheel[204:] == b"\0" * 4
    assert struct.unpack_from("<i", wheel, 164) == (-1,)  # wheel_index, LibCarla's default


def test_packets_outside_the_frame_mode_are_refused():
    w = LogWriter(map_name="m", date=0)  # no additional data: no Kinematics packet
    kin = CODECS[P.Kinematics].record(7, (1.0, 2.0, 3.0), (0.0, 0.0, 0.0))
    with pytest.raises(RecorderError, match="Kinematics"):
        w.write_frame(0.05, {P.Kinematics: [kin]})


def test_count_overflow_is_refused():
    with pytest.raises(RecorderError, match="uint16"):
        CODECS[P.EventDel].pack_body(np.zeros(70000, CODECS[P.EventDel].dtype))


def _lay_out_frame(writer: LogWriter, records: list) -> int:
    """A frame laid out in the writer's frame buffer as the live recorder does it: room for
    FrameStart, the packets of a CARLA frame whose only records are `records` (Position),
    room for FrameEnd. Returns the body's end."""
    from recorder.logfile.writer import FRAME_END_SIZE, FRAME_START_SIZE, frame_layout

    body = b""
    for pid in frame_layout({P.Position: records}, False):
        if pid == P.VisualTime:
            raw = struct.pack("<d", 0.0)
        else:
            raw = CODECS[pid].pack_body(records if pid == P.Position else [])
        body += struct.pack("<BI", pid, len(raw)) + raw
    writer.make_frame_room(FRAME_START_SIZE + len(body) + FRAME_END_SIZE)
    start = writer.frame_at + FRAME_START_SIZE
    writer.frame_buffer[start : start + len(body)] = np.frombuffer(body, np.uint8)
    return start + len(body)


@pytest.mark.parametrize("buffer_size", [1 << 16, 200, 120, 0])
@pytest.mark.parametrize("to_file", [True, False])
def test_frames_laid_out_in_the_buffer_equal_frames_written_packet_by_packet(
    tmp_path, buffer_size, to_file
):
    # In a file the writer rewrites the last frame with its duration in the write of the
    # next one; frames of 100 to 180 bytes in a buffer of 200 or 120 bytes (or none) make it
    # move the last frame to the front or grow the buffer on the way. The bytes are the
    # packet-by-packet writer's, and a log cut anywhere in the last frame reads to the one
    # before.
    rows = [
        [PositionRecord(j + 1, (float(k), 2.0, 3.0), (0.0, 0.0, 90.0)) for j in range(k % 3 + 1)]
        for k in range(6)
    ]
    deltas = [0.0, 0.05, 0.05, 0.1, 0.05, 0.2]
    reference = LogWriter(map_name="m", date=3)
    for delta, records in zip(deltas, rows, strict=True):
        reference.write_frame(delta, {P.Position: records})
    path = tmp_path / "laid_out.log"
    target = path if to_file else None
    with LogWriter(target, map_name="m", date=3, frame_buffer_size=buffer_size) as w:
        for k, (delta, records) in enumerate(zip(deltas, rows, strict=True)):
            end = _lay_out_frame(w, records)
            assert w.write_frame_in(delta, end) == k + 1
            w.flush()
        data = path.read_bytes() if to_file else w.getvalue()
    assert data == reference.getvalue()
    index = LogReader(data).frame_index
    assert index.duration.tolist() == [0.05, 0.05, 0.1, 0.05, 0.2, -1.0]
    for cut in range(int(index.offset[-1]), len(data)):
        frames = LogReader(data[:cut], lenient=True).frame_index.frame_id.tolist()
        assert frames == [1, 2, 3, 4, 5]
