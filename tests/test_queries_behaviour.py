"""Query behaviours worked by hand from CARLA's code, on small logs built with LogWriter."""

from __future__ import annotations

import struct

import pytest

from recorder import LogWriter, PacketId, query_blocked, query_collisions, query_info
from recorder.errors import LogFormatError, TruncatedLogWarning
from recorder.logfile.packets import EventAddRecord, PositionRecord

HEADER = "Version: 1\nMap: Town01\nDate: 01/01/70 00:00:00\n\n"
BLOCKED_HEADER = "    Time     Id Actor                                 Duration\n"


def _log(points: list[tuple[float, float, float]]) -> bytes:
    """Actor 7 added in frame 1, then one Position per frame at 0.05 s steps."""
    writer = LogWriter(None, map_name="Town01", date=0)
    for number, point in enumerate(points):
        packets = {PacketId.Position: [PositionRecord(7, point, (0.0, 0.0, 0.0))]}
        if number == 0:
            packets[PacketId.EventAdd] = [
                EventAddRecord(7, 1, point, (0.0, 0.0, 0.0), 7, "vehicle.x", [])
            ]
        writer.write_frame(0.05, packets)
    return writer.getvalue()


def _row(time: str, duration: str) -> str:
    return f"{time:>8} {7:>6} {'vehicle.x':<35} {duration:>10}\n"


# Frames: 1 (elapsed 0, duration 0.05), 2 (0.05, 0.05), 3 (0.1, -1: the last frame).
# Stopped in frames 1 and 2 (within 100 cm of the zeroed start): time 0, duration 0.1;
# frame 3 moves 500 cm: a row (0, 0.1) if 0.1 >= min_time. At the end the actor is in the
# map with duration 0: a row (0, 0) only if 0 >= min_time.
MOVES_LAST = [(0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (500.0, 0.0, 0.0)]


@pytest.mark.parametrize(
    ("min_time", "rows"),
    [
        (0, [_row("0", "0"), _row("0", "0")]),
        (0.08, [_row("0", "0")]),
        (0.2, []),
    ],
)
def test_blocked_rows_worked_by_hand(min_time, rows):
    text = query_blocked(_log(MOVES_LAST), min_time, 100)
    expected = HEADER + BLOCKED_HEADER + "".join(rows) + "\nFrames: 3\nDuration: 0.1 seconds\n"
    assert text == expected


def test_blocked_adds_the_last_frames_minus_one():
    # Stopped in all three frames: 0.05 + 0.05 + (-1) = -0.9 s at the end, under any
    # minimum >= 0, so no row; without the -1 it would be 0.1 s, a row at 0.08.
    closing = "\nFrames: 3\nDuration: 0.1 seconds\n"
    for min_time in (0, 0.08):
        text = query_blocked(_log([(0.0, 0.0, 0.0)] * 3), min_time, 100)
        assert text == HEADER + BLOCKED_HEADER + closing


def test_blocked_distance_is_strictly_less_in_float():
    # Moving exactly 100 cm is not "less than 100": no stop after the first frame.
    text = query_blocked(_log([(0.0, 0.0, 0.0), (100.0, 0.0, 0.0), (200.0, 0.0, 0.0)]), 0.01, 100)
    # Frame 1 stopped (0 cm from the zeroed start) for 0.05 s; frame 2 moves: a row.
    assert text == HEADER + BLOCKED_HEADER + _row("0", "0") + (
        "\nFrames: 3\nDuration: 0.1 seconds\n"
    )


def test_not_a_recorder():
    raw = struct.pack("<H", 1) + struct.pack("<H", 5) + b"HELLO" + b"\0" * 10
    for query in (query_info, query_collisions, query_blocked):
        assert query(raw) == "File is not a CARLA recorder\n"


def test_magic_is_case_blind():
    log = _log(MOVES_LAST)
    lower = log[:4] + log[4:18].lower() + log[18:]
    assert query_info(lower) == query_info(log)


def _frame_starts(log: bytes) -> list[int]:
    pos = 2 + 2 + struct.unpack_from("<H", log, 2)[0] + 8
    pos += 2 + struct.unpack_from("<H", log, pos)[0]
    starts = []
    while pos < len(log):
        pid, size = struct.unpack_from("<BI", log, pos)
        if pid == 0:
            starts.append(pos)
        pos += 5 + size
    return starts


def test_truncated_log_is_answered_up_to_its_last_whole_frame():
    log = _log(MOVES_LAST)
    cut = log[:-3]  # inside frame 3's FrameEnd
    whole = log[: _frame_starts(log)[-1]]  # frames 1 and 2 only
    for show_all in (False, True):
        with pytest.warns(TruncatedLogWarning, match=r"frame 3\); answered up to"):
            assert query_info(cut, show_all) == query_info(whole, show_all)
    assert query_info(whole).endswith("\nFrames: 2\nDuration: 0.05 seconds\n")
    with pytest.raises(LogFormatError, match="byte"):
        query_info(cut, lenient=False)


def test_log_ending_without_frame_end_is_an_error_when_strict():
    log = _log(MOVES_LAST)
    with pytest.raises(LogFormatError, match="ends inside a frame"):
        query_collisions(log[:-5], lenient=False)
    with pytest.warns(TruncatedLogWarning, match="ends inside a frame"):
        assert query_collisions(log[:-5]).endswith("\nFrames: 2\nDuration: 0.05 seconds\n")


def test_info_of_a_log_without_frames():
    # The failed first read leaves the zeroed header id: FrameStart, frame 0.
    empty = LogWriter(None, map_name="Town01", date=0).getvalue()
    closing = "\nFrames: 0\nDuration: 0 seconds\n"
    assert query_info(empty) == HEADER + closing
    assert query_info(empty, show_all=True) == HEADER + "Frame 0 at 0 seconds\n" + closing


def test_blocked_actor_listed_twice_in_one_packet():
    # Frame 1 (elapsed 0, duration 0.05) lists actor 7 at (0,0,0) then (500,0,0): the first
    # record stops it (time 0, 0.05 s), the second moves it 500 cm: a row (0, 0.05).
    # Frame 2 (elapsed 0.05, duration -1) at (500,0,0): stopped again, -1 s: no row at 0.01.
    writer = LogWriter(None, map_name="Town01", date=0)
    add = EventAddRecord(7, 1, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 7, "vehicle.x", [])
    twice = [PositionRecord(7, p, (0.0, 0.0, 0.0)) for p in ((0.0, 0.0, 0.0), (500.0, 0.0, 0.0))]
    writer.write_frame(0.05, {PacketId.EventAdd: [add], PacketId.Position: twice})
    writer.write_frame(0.05, {PacketId.Position: [twice[1]]})
    text = query_blocked(writer.getvalue(), 0.01, 100)
    assert text == HEADER + BLOCKED_HEADER + _row("0", "0") + (
        "\nFrames: 2\nDuration: 0.05 seconds\n"
    )


def test_bad_category_and_order_are_recorder_errors():
    from recorder.errors import RecorderError

    log = _log(MOVES_LAST)
    with pytest.raises(RecorderError, match="category"):
        query_collisions(log, "vv", "a")
    with pytest.raises(RecorderError, match="order"):
        query_blocked(log, order="msvc")
