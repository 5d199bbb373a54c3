"""Bad input to the log tools: files that are not logs, devices, cut logs, bad thresholds.

Each case is one of issue 10's "Bad input" list for logs: a clear one-line error naming the
file (exit 2), CARLA's own text where CARLA answers (CarlaRecorderQuery::CheckFileInfo
prints `File is not a CARLA recorder`), never a traceback, a MemoryError or a hang.
"""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

import recorder.json_form.codec
from recorder import LogReader, open_log, query_blocked, query_collisions, query_info
from recorder.errors import LogFormatError, NotARecorderError, RecorderError, TruncatedLogWarning
from runner.cli import main

CARLA_NOT_A_RECORDER = b"File is not a CARLA recorder\n"  # CARLA's CheckFileInfo text
QUERIES = (["info"], ["info", "-a"], ["collisions"], ["collisions", "-t", "hv"], ["blocked"])


def _random_bytes(seed: int, size: int = 48 * 1024) -> bytes:
    return np.random.default_rng(np.random.SeedSequence(seed)).bytes(size)


def _one_line(err: bytes) -> str:
    text = err.decode()
    assert text.count("\n") == 1 and text.startswith("lockstep: error: "), text
    return text


def _golden_log(shared, case: str = "all_packets") -> bytes:
    return (shared / "carla-golden" / case / "recording.log").read_bytes()


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("query", QUERIES)
def test_random_bytes_print_carlas_text_and_exit_2(tmp_path, capsysbinary, seed, query):
    path = tmp_path / "noise.bin"
    path.write_bytes(_random_bytes(seed))
    assert main([*query, "-f", str(path)]) == 2
    captured = capsysbinary.readouterr()
    assert captured.out == CARLA_NOT_A_RECORDER
    err = _one_line(captured.err)
    assert "noise.bin" in err and "not a CARLA recorder log" in err
    # The magic is quoted (32 of its bytes as escapes), not the 48 KB file.
    assert len(err.replace(str(path), "")) < 300


@pytest.mark.parametrize("content", [b"", b"\x01", b"\x01\x00\x05\x00CAR"])
def test_too_short_for_a_header_is_not_a_recorder(tmp_path, capsysbinary, content):
    # CARLA's header read fails and leaves an empty or partial magic: not CARLA_RECORDER.
    path = tmp_path / "short.log"
    path.write_bytes(content)
    assert main(["collisions", "-f", str(path)]) == 2
    captured = capsysbinary.readouterr()
    assert captured.out == CARLA_NOT_A_RECORDER
    assert "short.log" in _one_line(captured.err)
    assert query_info(path) == CARLA_NOT_A_RECORDER.decode()


def test_bad_magic_message_quotes_a_few_bytes(tmp_path):
    magic = b"X" * 40_000
    path = tmp_path / "long_magic.log"
    path.write_bytes(struct.pack("<HH", 1, len(magic)) + magic + b"\0" * 12)
    with pytest.raises(NotARecorderError) as info:
        LogReader(path)
    message = str(info.value)
    assert "long_magic.log" in message and "(40000 bytes)" in message
    assert message.count("X") <= 40
    with pytest.raises(LogFormatError):  # open_log and the dump see a LogFormatError
        open_log(path)


def test_header_errors_through_the_queries_name_the_file(shared, tmp_path, capsysbinary):
    # all_packets' header: 2 + (2 + 14) magic, 8 date, (2 + 23) map = 51 bytes.
    path = tmp_path / "cut_header.log"
    path.write_bytes(_golden_log(shared)[:30])  # inside the map name
    for query in (query_info, query_collisions, query_blocked):
        with pytest.raises(LogFormatError, match=r"cut_header\.log: header") as info:
            query(path)
        assert "<bytes>" not in str(info.value)
    assert main(["info", "-f", str(path)]) == 2
    captured = capsysbinary.readouterr()
    assert captured.out == b"" and "cut_header.log: header" in _one_line(captured.err)


@pytest.mark.parametrize("query", QUERIES)
def test_dev_zero_is_refused_not_read(capsysbinary, query):
    assert main([*query, "-f", "/dev/zero"]) == 2
    err = _one_line(capsysbinary.readouterr().err)
    assert "/dev/zero: not a regular file (a character device)" in err


def test_devices_directories_and_pipes_are_refused(tmp_path, capsysbinary):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # opening it to read would wait for a writer forever
    for path in (pipe, tmp_path):
        assert main(["info", "-f", str(path)]) == 2
        assert "not a regular file" in _one_line(capsysbinary.readouterr().err)
        with pytest.raises(RecorderError, match="not a regular file"):
            open_log(path)
    for tool in (["log", "dump", "/dev/zero"], ["log", "export", "/dev/zero", "--csv", "x.csv"]):
        assert main(tool) == 2
        assert "/dev/zero: not a regular file" in _one_line(capsysbinary.readouterr().err)
    assert main(["log", "build", "/dev/zero", str(tmp_path / "out.log")]) == 2
    assert "/dev/zero: not a regular file" in _one_line(capsysbinary.readouterr().err)


def test_json_spec_over_the_bound_is_refused(tmp_path, monkeypatch, capsysbinary):
    spec = tmp_path / "big.json"
    spec.write_text('{"version": 1}' + " " * 2000)
    monkeypatch.setattr(recorder.json_form.codec, "MAX_SPEC_BYTES", 1024)
    assert main(["log", "build", str(spec), str(tmp_path / "out.log")]) == 2
    err = _one_line(capsysbinary.readouterr().err)
    assert "big.json: 2014 bytes, more than" in err
    assert not (tmp_path / "out.log").exists()


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["-t", "nan", "-d", "nan"], "-t/--time"),
        (["-t", "-1"], "-t/--time"),
        (["-t", "inf"], "-t/--time"),
        (["-d", "-5"], "-d/--distance"),
        (["-d", "nan"], "-d/--distance"),
        (["-t", "ten"], "-t/--time"),
    ],
)
def test_blocked_thresholds_must_be_finite_and_not_negative(shared, capsys, args, what):
    log = str(shared / "carla-golden" / "all_packets" / "recording.log")
    with pytest.raises(SystemExit) as info:
        main(["blocked", "-f", log, *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {what}: expected a finite number of " in err


@pytest.mark.parametrize("bad", [float("nan"), -1.0, float("inf"), "30"])
def test_blocked_thresholds_in_python(shared, bad):
    log = shared / "carla-golden" / "all_packets" / "recording.log"
    with pytest.raises(RecorderError, match="must be a"):
        query_blocked(log, bad, 100)
    with pytest.raises(RecorderError, match="must be a"):
        query_blocked(log, 30, bad)


def _frame_ends(log: bytes) -> list[int]:
    """The byte after each FrameEnd of a well-formed log (walked by hand)."""
    pos = 4 + struct.unpack_from("<H", log, 2)[0] + 8
    pos += 2 + struct.unpack_from("<H", log, pos)[0]
    ends = []
    while pos < len(log):
        pid, size = struct.unpack_from("<BI", log, pos)
        pos += 5 + size
        if pid == 1:
            ends.append(pos)
    return ends


@pytest.mark.parametrize("case", ["all_packets", "edge_cases", "town_drive"])
def test_cut_logs_are_answered_up_to_the_last_complete_frame(shared, tmp_path, case):
    log = _golden_log(shared, case)
    ends = _frame_ends(log)
    for cut in (ends[-2] + 1, ends[-2] + 7, ends[-1] - 1):  # inside the last frame
        cut_path, whole_path = tmp_path / "cut.log", tmp_path / "whole.log"
        cut_path.write_bytes(log[:cut])
        whole_path.write_bytes(log[: ends[-2]])
        for query in (
            lambda p: query_info(p),
            lambda p: query_info(p, show_all=True),
            lambda p: query_collisions(p, "a", "a"),
            lambda p: query_blocked(p, 1, 1),
        ):
            with pytest.warns(TruncatedLogWarning, match=f"ends at byte {ends[-2]}"):
                text = query(cut_path)
            assert text == query(whole_path)
            with pytest.raises(LogFormatError, match=r"cut\.log"):
                query_info(cut_path, lenient=False)


def test_a_corrupt_size_is_answered_up_to_the_frame_before(shared, tmp_path, capsysbinary):
    log = bytearray(_golden_log(shared))
    ends = _frame_ends(bytes(log))
    struct.pack_into("<I", log, ends[1] + 1, 0xFFFFFFF0)  # frame 3's FrameStart size
    path = tmp_path / "bad_size.log"
    path.write_bytes(bytes(log))
    (tmp_path / "two.log").write_bytes(bytes(log[: ends[1]]))
    assert main(["info", "-f", str(tmp_path / "two.log")]) == 0
    two = capsysbinary.readouterr().out
    assert two.endswith(b"\nFrames: 2\nDuration: 0.05 seconds\n")
    assert main(["info", "-f", str(path)]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == two
    warning = captured.err.decode()
    assert warning.startswith("lockstep: warning: ") and warning.count("\n") == 1
    assert f"bad_size.log: packet FrameStart of {0xFFFFFFF0} bytes runs past the end" in warning
    assert main(["info", "-f", str(path), "--strict"]) == 2
    assert f"(at byte {ends[1]}, frame 2)" in _one_line(capsysbinary.readouterr().err)
