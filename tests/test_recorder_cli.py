"""`lockstep log dump|build|export` on golden logs; errors as one line, exit 2."""

from __future__ import annotations

import json

from runner.cli import main


def test_dump_build_round_trip(shared, tmp_path, capsys):
    log = shared / "carla-golden" / "all_packets" / "recording.log"
    spec = tmp_path / "out.json"
    rebuilt = tmp_path / "out.log"
    assert main(["log", "dump", str(log), "-o", str(spec)]) == 0
    assert json.loads(spec.read_text())["map"] == "Carla/Maps/Town10HD_Opt"
    assert main(["log", "build", str(spec), str(rebuilt)]) == 0
    assert rebuilt.read_bytes() == log.read_bytes()


def test_build_golden_spec_with_libstdcxx(shared, tmp_path):
    case = shared / "carla-golden" / "all_packets"
    out = tmp_path / "x.log"
    assert main(["log", "build", str(case / "SPEC.json"), str(out), "--order", "libstdc++"]) == 0
    assert out.read_bytes() == (case / "libstdcxx" / "recording.log").read_bytes()


def test_dump_to_stdout(shared, capsys):
    assert (
        main(["log", "dump", str(shared / "carla-golden" / "edge_header_only" / "recording.log")])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["magic"] == "carla_recorder"


def test_export_csv(shared, tmp_path, capsys):
    out = tmp_path / "p.csv"
    log = shared / "carla-golden" / "edge_single_frame" / "recording.log"
    assert main(["log", "export", str(log), "--csv", str(out)]) == 0
    assert out.read_text().splitlines()[1] == "1,0.0,1,0,spectator,0.0,0.0,0.0,0.0,0.0,0.0"


def test_truncated_log_read_to_its_last_frame_with_a_warning(shared, tmp_path, capsys):
    whole = (shared / "carla-golden" / "all_packets" / "recording.log").read_bytes()
    cut = tmp_path / "cut.log"
    cut.write_bytes(whole[:100])
    assert main(["log", "dump", str(cut), "--strict"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "byte 93" in err and "frame 1" in err
    # without --strict: the frames before the cut, a warning. None is complete in 100 bytes:
    # reading stops after the header, 2 (version) + 2 + 14 ("carla_recorder") + 8 (date) +
    # 2 + 23 ("Carla/Maps/Town10HD_Opt") = byte 51
    assert main(["log", "dump", str(cut), "-o", str(tmp_path / "cut.json")]) == 0
    assert capsys.readouterr().err == (
        f"lockstep: warning: {cut}: the log ends inside a frame (bytes 51 to 100); read up to "
        "its last complete frame, which ends at byte 51 (--strict: an error)\n"
    )
    assert json.loads((tmp_path / "cut.json").read_text())["frames"] == []
    csv = tmp_path / "cut.csv"
    assert main(["log", "export", str(cut), "--csv", str(csv)]) == 0
    assert "ends inside a frame" in capsys.readouterr().err


def test_missing_file_exit_2(tmp_path, capsys):
    assert main(["log", "export", str(tmp_path / "none.log"), "--csv", str(tmp_path / "x")]) == 2
    assert "none.log" in capsys.readouterr().err
