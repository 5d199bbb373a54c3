"""`lockstep info / collisions / blocked`: CARLA's text on stdout, one-line errors, exit 2."""

from __future__ import annotations

from runner.cli import main


def _golden(shared, case="all_packets"):
    return shared / "carla-golden" / case


def test_info_prints_carlas_text(shared, capsysbinary):
    folder = _golden(shared)
    assert main(["info", "-f", str(folder / "recording.log")]) == 0
    assert capsysbinary.readouterr().out == (folder / "info_0.txt").read_bytes()


def test_info_all_saved_to_file(shared, tmp_path, capsysbinary):
    folder = _golden(shared)
    out = tmp_path / "info.txt"
    assert main(["info", "-f", str(folder / "recording.log"), "-a", "-s", str(out)]) == 0
    assert out.read_bytes() == (folder / "info_1.txt").read_bytes()
    assert capsysbinary.readouterr().out == b""


def test_collisions_with_types(shared, capsysbinary):
    folder = _golden(shared)
    assert main(["collisions", "-f", str(folder / "recording.log"), "-t", "hv"]) == 0
    assert capsysbinary.readouterr().out == (folder / "collisions_h_v.txt").read_bytes()


def test_collisions_default_types_are_aa(shared, capsysbinary):
    folder = _golden(shared)
    assert main(["collisions", "-f", str(folder / "recording.log")]) == 0
    assert capsysbinary.readouterr().out == (folder / "collisions_a_a.txt").read_bytes()


def test_blocked_with_libstdcxx_order(shared, capsysbinary):
    folder = _golden(shared, "town_drive")
    log = str(folder / "recording.log")
    assert main(["blocked", "-f", log, "-t", "5", "-d", "100", "--order", "libstdc++"]) == 0
    assert (
        capsysbinary.readouterr().out == (folder / "libstdcxx" / "blocked_5_100.txt").read_bytes()
    )


def test_blocked_defaults_are_30_seconds_100_cm(shared, capsysbinary):
    folder = shared / "carla-logs" / "DistanceBetweenVehicles"
    assert main(["blocked", "-f", str(folder / "recording.log")]) == 0
    assert capsysbinary.readouterr().out == (folder / "blocked_30_100.txt").read_bytes()


def test_missing_file_is_one_line_exit_2(tmp_path, capsys):
    assert main(["info", "-f", str(tmp_path / "nope.log")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.log" in err


def test_truncated_log_is_answered_up_to_its_last_whole_frame(shared, tmp_path, capsysbinary):
    folder = _golden(shared)
    log = tmp_path / "cut.log"
    whole = (folder / "recording.log").read_bytes()
    log.write_bytes(whole[:-3])  # inside frame 4's FrameEnd (frame 4 starts at byte 3957)
    (tmp_path / "three.log").write_bytes(whole[:3957])
    assert main(["collisions", "-f", str(tmp_path / "three.log")]) == 0
    three = capsysbinary.readouterr().out
    assert three.endswith(b"\nFrames: 3\nDuration: 0 seconds\n")
    assert main(["collisions", "-f", str(log)]) == 0
    captured = capsysbinary.readouterr()
    assert captured.out == three
    err = captured.err.decode()
    assert err.count("\n") == 1 and err.startswith("lockstep: warning: ")
    assert "cut.log" in err and "byte 4159, frame 4" in err


def test_truncated_log_with_strict_is_one_line_exit_2(shared, tmp_path, capsysbinary):
    log = tmp_path / "cut.log"
    log.write_bytes((_golden(shared) / "recording.log").read_bytes()[:-3])
    assert main(["collisions", "-f", str(log), "--strict"]) == 2
    captured = capsysbinary.readouterr()
    err = captured.err.decode()
    assert err.count("\n") == 1 and "cut.log" in err and "byte 4159" in err


def test_bad_types_is_one_line_exit_2(shared, capsys):
    log = str(_golden(shared) / "recording.log")
    assert main(["collisions", "-f", log, "-t", "x"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_local_time_prints_the_machine_zone(shared, capsysbinary):
    import time

    log = str(_golden(shared) / "recording.log")
    assert main(["info", "-f", log, "--local-time"]) == 0
    date_line = capsysbinary.readouterr().out.decode().splitlines()[2]
    # all_packets' date is 1767225601 (01/01/26 00:00:01 UTC).
    assert date_line == "Date: " + time.strftime("%m/%d/%y %H:%M:%S", time.localtime(1767225601))


def test_a_missing_log_is_named_without_python_s_errno(tmp_path, capsys):
    missing = tmp_path / "none.log"
    for command in (["info"], ["collisions"], ["blocked"], ["log", "dump"]):
        flag = [str(missing)] if command[0] == "log" else ["-f", str(missing)]
        assert main([*command, *flag]) == 2
        assert capsys.readouterr().err == (
            f"lockstep: error: {missing}: No such file or directory\n"
        )
